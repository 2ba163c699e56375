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
): string | undefined {
  if (blockS >= m.s || later === false) return undefined;
  return `its block (${isoOf(blockS)}) is before the audit's moment, ${isoOf(m.s)} (${label}'s snapshot): coins moved from it to another chain since (as the same asset or swapped into another owed) would count twice; prove at its last block at or before that moment`;
}
