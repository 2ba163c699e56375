/**
 * Token and coin amounts between integer base units and exact decimal text: no floats anywhere. A token
 * with 18 decimals holding 2^128 base units is 340282366920938463463.374607431768211456 whole units,
 * which no double can hold.
 */

/** Base units → the shortest exact decimal text in whole units (`1500000, 6` → `"1.5"`, `0, 18` → `"0"`). */
export function formatUnits(base: bigint, decimals: number): string {
  const neg = base < 0n;
  const a = neg ? -base : base;
  if (decimals === 0) return `${neg ? "-" : ""}${a}`;
  const unit = 10n ** BigInt(decimals);
  const frac = (a % unit).toString().padStart(decimals, "0").replace(/0+$/, "");
  return `${neg ? "-" : ""}${a / unit}${frac ? `.${frac}` : ""}`;
}

/** Decimal text in whole units → base units; undefined when it has more places than `decimals` or is not decimal. */
export function parseUnits(text: string, decimals: number): bigint | undefined {
  const m = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/.exec(text);
  if (!m) return undefined;
  const frac = m[2] ?? "";
  if (frac.length > decimals) return undefined;
  return BigInt(m[1] as string) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, "0") || "0");
}

/** `1234567` → `"1,234,567"`: digits grouped for reading, exact for any size. */
export function groupDigits(text: string): string {
  const [whole, frac] = text.split(".");
  const g = (whole as string).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return frac === undefined ? g : `${g}.${frac}`;
}
