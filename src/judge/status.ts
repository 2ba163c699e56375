/**
 * Two rules of the one judge (issue 55, item 1), written once for both solvency paths — chaingw's own proofs
 * (`liabilities/solvency.ts`) and an exchange's address file (`exchange/ownership/solvency.ts`):
 *  - **one snapshot per chain**: every holding of one chain that backs an asset owed stands at one height, the
 *    latest a holding of it was re-read on chain at (a chain none was re-read on: the latest any states). A
 *    balance read below it proves nothing for the sum — value moved between the two heights (paid to another
 *    address, wrapped, swapped into another asset owed) would count at both; an output is judged at it (it
 *    counts only if its node found it unspent there);
 *  - **an asset's status** from its sums (the ledger's, judge/holding.ts) and what could not be judged: covered
 *    only by proven reserves; "cannot say" only where what could not be told (a node's "cannot say", a proven
 *    holding whose time or moment for this audit is unknown, a document not placed at all) could cover it —
 *    short even with it, the claims decide.
 */
import type { ReadStatus } from "./holding.js";
import type { AssetStatus } from "./report.js";
import type { AssetCode, AuditFault } from "./words.js";

/** A holding as the snapshot rule sees it: its chain (as its node answered), its height, what was re-read. */
export interface SnapshotRead {
  chain: string;
  height: number;
  read: ReadStatus;
}

/**
 * Each chain's one snapshot: the latest height a holding backing an asset owed was re-read at (`read`
 * proven); a chain none was re-read on, the latest height any states.
 */
export function chainSnapshots(reads: Iterable<SnapshotRead>): Map<string, number> {
  const proven = new Map<string, number>();
  const any = new Map<string, number>();
  const raise = (m: Map<string, number>, r: SnapshotRead) => {
    if (r.height > (m.get(r.chain) ?? -1)) m.set(r.chain, r.height);
  };
  for (const r of reads) {
    raise(any, r);
    if (r.read === "proven") raise(proven, r);
  }
  for (const [chain, h] of any) if (!proven.has(chain)) proven.set(chain, h);
  return proven;
}

/**
 * Why a balance read at `height` proves nothing for the sum (its chain's snapshot is `latest`; `whose`: the
 * file's, the proofs'), typed; undefined: read at the snapshot, or an output (judged at the snapshot by its spend).
 */
export function snapshotFault(
  kind: "output" | "balance",
  height: number | undefined,
  latest: number | undefined,
  whose: "file" | "proofs",
): AuditFault | undefined {
  return kind === "output" || height === undefined || latest === undefined || height === latest
    ? undefined
    : { code: "below-snapshot", height, latest, whose };
}

/** What an asset's status is decided from: its sums at one scale, and what of it could not be judged. */
export interface StatusInput {
  liabilities: bigint;
  /** every counted holding as stated (the proven included) */
  claimed: bigint;
  proven: bigint;
  /** counted holdings not proven whose proof could not be told (the ledger's `unknown`): they might be */
  unknown: bigint;
  /** a document backing it does not hold */
  fails: boolean;
  /** a document its node could not place (which chain it is of): its coins are in no sum, and might cover it */
  unplaced: boolean;
  /** a document not judged at all (without --verify, its addresses do not say which coin it is) */
  unjudged: boolean;
  /**
   * the liabilities' totals cannot be relied on (a root whose hash does not bind the totals it carries, or the
   * file's own root): what is owed is not known, so whether it is covered cannot be said (issue 55, item 2)
   */
  owedUnknown: boolean;
}

/**
 * covered: proven reserves cover it; reserves-fail: a document backing it does not hold; cannot-say: what could
 * not be told could cover it; unjudged: a document not judged; claimed-only: only the claims cover it;
 * not-covered: not even they.
 */
export function assetStatus(x: StatusInput): AssetStatus {
  if (x.fails) return "reserves-fail";
  if (x.owedUnknown) return "cannot-say";
  if (x.proven >= x.liabilities) return "covered";
  if (x.unplaced || x.proven + x.unknown >= x.liabilities) return "cannot-say";
  if (x.unjudged) return "unjudged";
  return x.claimed >= x.liabilities ? "claimed-only" : "not-covered";
}

/**
 * The asset's finding code from its status (the one rule, both paths): "cannot say" is owed-unknown where what
 * it owes is not known, and unknown-for-audit where every node answered — only whether holdings proven on chain
 * are for this audit is not told (a time not placed, a moment) —; `nodeUntold`: a node could not say.
 */
export const assetCodeOf = (status: AssetStatus, owedUnknown: boolean, nodeUntold: boolean): AssetCode =>
  status !== "cannot-say"
    ? status
    : owedUnknown
      ? "owed-unknown"
      : nodeUntold
        ? "cannot-say"
        : "unknown-for-audit";
