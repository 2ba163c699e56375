/**
 * What `solvency` of an exchange's address file writes of each row and snapshot (solvency.ts judges them):
 * a counted row kept as a few numbers until it is written, then made into its line (util/lazy-list.ts) in
 * every form the report is written in; a snapshot with its block time and its gap to the liabilities' date.
 */
import type { RowLine, Snapshot } from "../../judge/report.js";
import { type AuditFault, gapText, type HoldingFinding, holdingWords } from "../../judge/words.js";
import { LazyList } from "../../util/lazy-list.js";
import { isoOf } from "../../util/text.js";
import { amountText } from "../../util/units.js";
import { at } from "./holdings.js";
import type { RowResult } from "./report.js";
import type { AuditTime, SnapshotTime } from "./solvency.js";

/**
 * A counted row as the report writes it, kept as a few numbers (its RowLine is made as it is written): its
 * index, its fault, and its entry's standing once its coin's rows are all counted (a later coin's row of the
 * same balance does not change what this coin's report says).
 */
export interface CountedRow {
  i: number;
  fault?: AuditFault;
  proven: boolean;
  units: bigint;
  scale: number;
}

/**
 * A coin's counted rows as the report lists them, each made as it is written (util/lazy-list.ts): its line,
 * coin, network, address, amount at the coin's places, whether proven, and its finding in words.
 */
export function rowLines(
  rows: readonly RowResult[],
  counted: readonly CountedRow[],
  decimals: number,
): LazyList<RowLine> {
  // a row proven or claimed with no fault of the audit's: one finding and its words for every such row
  const plain = (proven: boolean) => {
    const f: HoldingFinding = { code: proven ? "row-proven" : "row-claimed" };
    return { f, why: holdingWords(f) };
  };
  const [yes, no] = [plain(true), plain(false)];
  return new LazyList(counted.length, function* () {
    for (const { i, fault, proven, units, scale } of counted) {
      const { line, coin, network, address } = rows[i] as RowResult;
      const amount = amountText(at({ units, scale }, decimals), decimals);
      if (!fault) {
        const { f, why } = proven ? yes : no;
        yield { line, coin, network, address, amount, proven, code: f.code, why, finding: f };
        continue;
      }
      const f: HoldingFinding = { ...fault, line };
      const why = holdingWords(f);
      yield {
        line,
        coin,
        network,
        address,
        amount,
        proven,
        not_for_this_audit: why,
        code: f.code,
        why,
        finding: f,
      };
    }
  });
}

/** A snapshot as the report names it: its block time, and its gap to the liabilities' date against --max-gap. */
export function snapshotEntry(
  s: { network: string; height: number; time: SnapshotTime | undefined },
  a: AuditTime,
): Snapshot {
  const t = s.time?.time ?? null;
  const gap = t === null || a.dateS === null ? null : t - a.dateS;
  return {
    network: s.network,
    kind: "height",
    height: s.height,
    below_tip: null,
    block_time: t === null ? null : isoOf(t),
    gap_seconds: gap,
    gap: gap === null ? null : gapText(gap),
    within_max_gap: gap === null ? null : Math.abs(gap) <= a.maxGap.seconds,
  };
}
