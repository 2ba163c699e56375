/**
 * One moment across chains (docs/proofs.md, "One moment across chains"), the one rule of both solvency paths
 * — chaingw's own proofs (`liabilities/solvency.ts`) and an exchange's address file
 * (`exchange/ownership/solvency.ts`): an audit whose reserves are on several chains is judged at one moment,
 * the latest of the snapshots' block times of every chain backing any asset owed — one for the audit, not one
 * per asset: coins moved to another chain inside the window, as the same asset or swapped into another asset
 * owed, would otherwise count on both. A chain read before that moment shows its coins held then only when no
 * later block of it came at or before the moment; a UTXO output spent by the moment is not counted at all.
 */
import { isoOf } from "../util/text.js";
import type { AuditFault } from "./words.js";

/**
 * Solvency's one time rule, for chaingw's own proofs and an exchange's address file alike: a snapshot proves
 * for the liabilities only when its block's time is within --max-gap of their date. Why not (typed,
 * judge/words.ts words it): its block's time or the liabilities' date not known (null, or no number) — cannot
 * say; more than --max-gap apart — not proven. Undefined: within.
 */
export function timeFault(
  blockS: number | null | undefined,
  dateS: number | null,
  maxGap: { text: string; seconds: number },
): AuditFault | undefined {
  if (blockS == null || !Number.isFinite(blockS)) return { code: "block-time-untold" };
  if (dateS === null || !Number.isFinite(dateS)) return { code: "liabilities-undated" };
  const gap = blockS - dateS;
  return Math.abs(gap) > maxGap.seconds
    ? { code: "beyond-max-gap", gap_seconds: gap, max_gap: maxGap.text, max_gap_seconds: maxGap.seconds }
    : undefined;
}

/** The audit's moment: Unix seconds, and the chain whose snapshot it is. */
export interface Moment<K> {
  s: number;
  chain: K;
}

/**
 * The latest of the chains' snapshot times; null with fewer than two chains whose time is known. A chain whose
 * time is not known is left out (its holdings prove nothing then, `timeFault`): it never lifts the moment off
 * the others — two chains read at different times beside a third of no time would otherwise both count.
 */
export function momentOf<K>(times: Iterable<readonly [K, number | null]>): Moment<K> | null {
  let best: Moment<K> | null = null;
  let n = 0;
  for (const [chain, s] of times) {
    if (s === null || !Number.isFinite(s)) continue;
    n++;
    if (best === null || s > best.s) best = { s, chain };
  }
  return n < 2 ? null : best;
}

/**
 * Why balances read at a block of time `blockS`, before the moment `m` (`label`: the moment's chain, named),
 * are not shown held at the moment: a later block of their chain exists at or before it, or whether one does
 * could not be told (`later`: true / undefined), so coins moved since would count twice. undefined: read at
 * the moment, or the chain's last block at or before it (`later` false).
 */
export function beforeMomentFault(
  blockS: number,
  m: Moment<unknown>,
  label: string,
  later: boolean | undefined,
): AuditFault | undefined {
  if (blockS >= m.s || later === false) return undefined;
  return { code: "before-moment", block_time: isoOf(blockS), moment: isoOf(m.s), chain: label };
}

/**
 * When a UTXO output was spent: the block that spent it, its own time (its header's stamp) and its median time
 * past (the median of the 11 blocks before it, BIP113; null: not told).
 */
export interface SpentAt {
  height: number;
  time: number | null;
  median?: number | null;
}

/**
 * Whether an output was spent by `s` (Unix seconds): its block's stamp at or before `s`. No time told: it may
 * have been, and it is not counted. `s` null: no such time, never.
 */
export function spentBy(spent: SpentAt, s: number | null): boolean {
  if (s === null) return false;
  return spent.time === null || spent.time <= s;
}

/**
 * The spending block's median time past, when it is at or before `s` though the block's own stamp is after:
 * whether the output was spent by `s` the chain cannot tell. A miner may date a block up to two hours ahead of
 * the network's clock, so a block stamped after the moment may have been mined before it (coins sent to a
 * bridge before the audit's moment and proven again on another chain would count on both); the median time
 * past (BIP113, the 11 blocks before it), which its own stamp cannot move, lags the clock, so it may as well
 * have been mined after. Such an output is "cannot say" for the audit, never counted as held nor as moved.
 */
export const datedAhead = (spent: SpentAt, s: number | null): number | undefined =>
  s !== null && spent.time !== null && spent.time > s && spent.median != null && spent.median <= s
    ? spent.median
    : undefined;
