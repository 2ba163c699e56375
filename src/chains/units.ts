/**
 * The coin's units, exactly: decimal text ⇄ base units (wei, sun) as BigInt, never through a float.
 * Unit names come from the chain object (EvmTraits.units), so TRON's sun/TRX work like wei/gwei/ether.
 */
import { ParamProblem } from "../errors/index.js";
import { evmTraits } from "./evm-values.js";
import type { Chain } from "./types.js";

export interface Unit {
  name: string;
  decimals: number;
}

/** A unit of the chain by name (case-insensitive; "eth" for ether); throws ParamProblem listing them. */
export function unitOf(chain: Chain, name: string): Unit {
  const units = evmTraits(chain).units;
  const n = name.trim().toLowerCase();
  const u = units.find((x) => x.name === n || (n === "eth" && x.name === "ether"));
  if (u) return u;
  throw new ParamProblem(
    `unknown unit ${JSON.stringify(name)} on the ${chain.name} chain; expected ${units.map((x) => x.name).join(", ")}`,
  );
}

/** The coin's own unit (ether, trx): the last of the chain's units. */
export const coinUnit = (chain: Chain): Unit => evmTraits(chain).units.at(-1) as Unit;
/** The chain's base unit (wei, sun). */
export const baseUnit = (chain: Chain): Unit => evmTraits(chain).units[0];

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** "1.5" in a unit of `decimals` → base units. More fraction digits than the unit has is refused, not rounded. */
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
  return BigInt(m[1]) * 10n ** BigInt(decimals) + BigInt(significant.padEnd(decimals, "0") || "0");
}

/** Base units → decimal text in a unit of `decimals`, trailing zeros dropped ("1.5", "0.000000001", "42"). */
export function formatUnits(value: bigint, decimals: number): string {
  const neg = value < 0n;
  const v = neg ? -value : value;
  const scale = 10n ** BigInt(decimals);
  const whole = v / scale;
  const frac = decimals === 0 ? "" : (v % scale).toString().padStart(decimals, "0").replace(/0+$/, "");
  return `${neg ? "-" : ""}${whole}${frac ? `.${frac}` : ""}`;
}

/**
 * An amount with an optional unit suffix ("1.5ether", "10 gwei", "2trx") or a plain integer in base units
 * (decimal or 0x hex), as an argument to a contract call or a --value: base units.
 */
export function amountWithUnit(chain: Chain, text: string): bigint | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]+)\s*$/.exec(text);
  if (!m) return undefined;
  const u = unitOf(chain, m[2]);
  return parseUnits(m[1], u.decimals, u.name);
}
