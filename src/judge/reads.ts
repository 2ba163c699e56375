/**
 * One balance backs one asset, for a declared token whose balanceOf reads another's coins (issue 55, item 4):
 * the rule both paths apply — chaingw's own EVM proofs (liabilities/solvency.ts) and an exchange's token rows
 * (exchange/ownership/holdings.ts). What the verifier's probe saw (reserves/evm/balances-read.ts
 * `readTracking`: balanceOf moving with a native balance, or when another declared token's code answered
 * otherwise) is its input; a token that reads the native coin or another declared token backs nothing — the
 * coin it reads counts once, as itself. Data in, a typed finding out (words.ts words it).
 */
import type { HoldingChain, HoldingFinding } from "./words.js";

/** What the probe saw a token's balanceOf read: the native coin, or another declared token (`token`). */
export type TokenReads = { of: "native"; detail: string } | { of: "token"; token: string; detail: string };

/** The finding that a token reading `reads` is not counted as `asset` (`coin`: as its source names it). */
export function readsFinding(
  reads: TokenReads,
  held: { asset: string; coin: string; is: HoldingChain },
): HoldingFinding {
  return reads.of === "token"
    ? { code: "reads-token", ...held, detail: reads.detail, token: reads.token }
    : { code: "reads-native", ...held, detail: reads.detail };
}
