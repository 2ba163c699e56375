/**
 * Coin amounts as integers: the node prints `50.00000000`; a float sum of thousands of those drifts, so
 * every amount is read from its exact decimal text into BigInt base units (1 coin = 10^8).
 */
import { JsonNumber } from "../../json/lossless.js";

export const DECIMALS = 8;
const UNIT = 10n ** BigInt(DECIMALS);

/**
 * Exact base units from a JSON number token (`50.00000000`, `0.1`, `1e-05`, `5E+1`). Throws on anything
 * negative, non-numeric, or finer than 10^-8 (which no UTXO amount can be).
 */
export function toSats(v: unknown, what: string): bigint {
  const text = v instanceof JsonNumber ? v.raw : typeof v === "string" ? v : undefined;
  if (text === undefined) throw new Error(`${what} is not a number (${JSON.stringify(v)})`);
  const m = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) throw new Error(`${what} is not a non-negative decimal amount (${text})`);
  const [, int, frac = "", exp = "0"] = m;
  const e = Number(exp);
  if (!Number.isSafeInteger(e) || Math.abs(e) > 40)
    throw new Error(`${what} has an absurd exponent (${text})`);
  // digits as one integer with a decimal point moved by the exponent: value = digits * 10^(shift)
  const digits = BigInt(int + frac);
  const shift = e - frac.length + DECIMALS;
  if (shift >= 0) return digits * 10n ** BigInt(shift);
  const div = 10n ** BigInt(-shift);
  if (digits % div !== 0n) throw new Error(`${what} has more than ${DECIMALS} decimals (${text})`);
  return digits / div;
}

/** `505000000000n` → `"5050.00000000"` */
export function formatCoins(sats: bigint): string {
  const neg = sats < 0n;
  const a = neg ? -sats : sats;
  return `${neg ? "-" : ""}${a / UNIT}.${(a % UNIT).toString().padStart(DECIMALS, "0")}`;
}
