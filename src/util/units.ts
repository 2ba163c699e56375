/**
 * Token and coin amounts between integer base units and exact decimal text: no floats anywhere. A token
 * with 18 decimals holding 2^128 base units is 340282366920938463463.374607431768211456 whole units,
 * which no double can hold. The one units module: the chains' unit names (wei/gwei/ether, sun/trx) are in
 * chains/units.ts, which converts with these.
 */
import { ParamProblem } from "../errors/index.js";

/** Base units → the shortest exact decimal text in whole units (`1500000, 6` → `"1.5"`, `0, 18` → `"0"`). */
export function formatUnits(base: bigint, decimals: number): string {
  const neg = base < 0n;
  const a = neg ? -base : base;
  if (decimals === 0) return `${neg ? "-" : ""}${a}`;
  const unit = 10n ** BigInt(decimals);
  const frac = (a % unit).toString().padStart(decimals, "0").replace(/0+$/, "");
  return `${neg ? "-" : ""}${a / unit}${frac ? `.${frac}` : ""}`;
}

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * Decimal text in whole units ("1.5", "1_000", " 2.50 ") → base units. More significant fraction digits than
 * the unit has is refused, not rounded; so is anything but plain decimal text. `unitName` names the unit in
 * the refusal (a ParamProblem: the caller says which parameter).
 */
export function parseUnits(text: string, decimals: number, unitName = ""): bigint {
  const t = text.trim().replace(/_/g, "");
  const m = DECIMAL.exec(t);
  if (!m || t.length > 100)
    throw new ParamProblem(`expected a decimal amount like 1.5, got ${JSON.stringify(text.slice(0, 40))}`);
  const frac = m[2] ?? "";
  const significant = frac.replace(/0+$/, "");
  if (significant.length > decimals)
    throw new ParamProblem(
      `${t}${unitName ? ` ${unitName}` : ""} has more decimals than the unit allows (${decimals}): not a whole number of base units`,
    );
  return BigInt(m[1] as string) * 10n ** BigInt(decimals) + BigInt(significant.padEnd(decimals, "0") || "0");
}

/** `1234567` → `"1,234,567"`: digits grouped for reading, exact for any size. */
export function groupDigits(text: string): string {
  const [whole, frac] = text.split(".");
  const g = (whole as string).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return frac === undefined ? g : `${g}.${frac}`;
}

/**
 * The one way an amount is written for a reader, in every table, text line, chart and CSV: coin units with
 * every one of the asset's decimals, exact, no separators (`150000000n, 8` → `"1.50000000"`). Base units are
 * written only in fields named base_units.
 */
export function amountText(base: bigint, decimals: number): string {
  const neg = base < 0n;
  const a = neg ? -base : base;
  if (decimals === 0) return `${neg ? "-" : ""}${a}`;
  const s = a.toString().padStart(decimals + 1, "0");
  return `${neg ? "-" : ""}${s.slice(0, -decimals)}.${s.slice(-decimals)}`;
}

/**
 * Decimal text in coin units (as a report states it: "1.5") written the one way, with the asset's decimals
 * ("1.50000000"); text that is no such amount (more places than the asset has, "n/a") is returned as it is.
 */
/**
 * A plain decimal written at `decimals` places, or at more where the text states more (never cut: 19 places of
 * an 18-place coin stay 19); text that is no amount as written.
 */
export function amountAtLeast(text: string, decimals: number): string {
  const places = (/\.(\d*?)0*$/.exec(text)?.[1] ?? "").length;
  return amountOf(text, Math.max(decimals, places));
}

export function amountOf(text: string, decimals: number): string {
  const neg = text.startsWith("-");
  try {
    const b = parseUnits(neg ? text.slice(1) : text, decimals);
    return amountText(neg ? -b : b, decimals);
  } catch {
    return text;
  }
}
