/**
 * Solvency's one report (issue 55, item 1): what `solvency` prints (`--json`), writes (`--html`, `--report`)
 * and exits by, whichever input fed the judge — chaingw's own reserve proofs or an exchange's address file.
 * One verdict, one record per asset owed (`assets`, the same member for the same fact on both paths); the
 * facts only one input has are optional members: a proof's line (`proofs`, empty for an address file), an
 * address file's rows (`rows`, `not_counted`) and its own verdict (`reserves_file`).
 */
import type { AssetRule } from "../chains/assets.js";
import { counted, type Verdict } from "../reserves/verdict.js";
import type { ListOf } from "../util/lazy-list.js";
import {
  type AssetCode,
  type AuditFault,
  gapText,
  type HoldingCode,
  type HoldingFinding,
  type TotalsFinding,
} from "./words.js";

/** What a reserve proof's check means for solvency. */
export type ReserveStatus = "holds" | "fails" | "cannot-say" | "not-verified";

/**
 * covered: proven reserves cover the liabilities; claimed-only: only claimed (unproven) reserves do;
 * not-covered: not even the claimed ones; reserves-fail: a proof backing it does not hold; cannot-say: a node
 * could not say (or whether holdings proven on chain are for this audit cannot be told), proven reserves alone
 * do not cover it, and what could not be judged might; unjudged (without --verify): a proof whose addresses do
 * not say which coin it is was not judged, and proven reserves alone do not cover it.
 */
export type AssetStatus =
  | "covered"
  | "claimed-only"
  | "not-covered"
  | "reserves-fail"
  | "cannot-say"
  | "unjudged";

export interface Amount {
  amount: string;
  base_units: string;
}

/** One network's snapshot: the height its holdings were judged at, that block's time, and its gap to `created`. */
export interface Snapshot {
  network: string;
  kind: "height" | "block";
  height: number;
  /** how far below the verifying node's tip (null: not read) */
  below_tip: number | null;
  /** the block's time as the node gives it (RFC 3339); null: not read */
  block_time: string | null;
  /** seconds from the liabilities' date to the block's time (negative: the reserves are older) */
  gap_seconds: number | null;
  /** "3 min before the liabilities were counted" */
  gap: string | null;
  within_max_gap: boolean | null;
}

/** A proof's line of an asset (chaingw's own proofs): counted or why not, what it states and proves. */
export interface ProofLine {
  file: string;
  id?: string;
  /** what the proof is: its network (and token), as re-derived or, without --verify, as claimed */
  is: string;
  counted: boolean;
  /** why it does not count: the finding's code and its words (judge/words.ts) */
  code?: HoldingCode;
  why?: string;
  /** the finding typed — its code, subject and numbers: why it does not count, or why it proves nothing for this audit */
  finding?: HoldingFinding;
  /** the proof's own height or block */
  height: number;
  /** that block's time as the verifying node gives it (RFC 3339), null without --verify */
  block_time: string | null;
  /** the text its signatures are over (null: none) */
  challenge: string | null;
  /** why what it holds proves nothing for these liabilities (another challenge, out of time), if so */
  not_for_this_audit?: string;
  /** what this proof states at the joint height, and how much of it it proves (overlaps with others included) */
  claimed: string;
  proven: string;
  check: ReserveStatus;
  summary?: string;
}

/** An address file's row counted for an asset (each balance once): proven or claimed. */
export interface RowLine {
  line: number;
  coin: string;
  network: string;
  address: string;
  amount: string;
  proven: boolean;
  /** proven on chain over the accepted text, but not for this audit's time or moment: why */
  not_for_this_audit?: string;
  /** why it counts as it does: the finding's code and its words (judge/words.ts `holdingWords`) */
  code: HoldingCode;
  why: string;
  /** the finding typed: its code, subject and numbers */
  finding: HoldingFinding;
}

/**
 * One holding as the judge judged it — a proof's output or balance (chaingw's own), an address file's row —,
 * with its finding (judge/words.ts) and that finding in words: what rows.csv and the package list.
 */
export interface HoldingLine {
  asset: string;
  /** the file and output (`txid:vout`), the file (and #id) of a balance, or the file's line */
  source: string;
  /** what it is of: the proof's network (and token), or the row's network cell */
  network: string;
  /** the address, where one is named */
  address: string;
  /** what it states, and what of it is proven for this audit, in the asset's units with all its decimals */
  claimed: string;
  proven: string;
  status: "proven" | "claimed" | "not counted";
  finding?: HoldingFinding;
  /** the finding's code and its words (judge/words.ts): what rows.csv and the page list */
  code: HoldingCode;
  why: string;
}

/** An address file's row of an asset not counted, and why. */
export interface RowNotCounted {
  line: number;
  coin: string;
  network: string;
  /** the row's address, as the file writes it */
  address: string;
  /**
   * what the row claims, in coin units with the asset's decimals (its coin's, where it is another's; a file of
   * base units whose coin's places chaingw does not know: "N base units"): a claim, counted for nothing
   */
  claimed: string;
  /** the verifier's status of the row */
  status: string;
  /** why it is not counted: the finding's code and its words (judge/words.ts) */
  code: HoldingCode;
  why: string;
  /** the finding typed: its code, subject and numbers */
  finding: HoldingFinding;
}

export interface SolvencyAsset {
  asset: string;
  /** the places every amount of it is written at (an address file's: the most of the liabilities' and the rows') */
  decimals: number;
  /** what backs it and where that rule came from */
  backing: { source: AssetRule["source"]; by: string[] };
  liabilities: Amount;
  /** held on the chain under addresses whose signature over the challenge the verifier judged valid */
  proven: Amount;
  /** every counted output or balance as the documents state it (the proven ones included) */
  claimed: Amount;
  /** proven ÷ liabilities ("112.50%"); "n/a" for no liabilities */
  coverage: string;
  /** claimed ÷ liabilities */
  claimed_coverage: string;
  /** proven ÷ claimed; "n/a" when nothing is claimed */
  proven_share: string;
  /** how much proven reserves miss, in the asset's units; null when covered */
  shortfall: string | null;
  status: AssetStatus;
  /** chaingw's own proofs: each proof's line (none for an address file) */
  proofs: ProofLine[];
  /**
   * an address file's rows counted for it (each balance once), and those not, with why; the rows counted made
   * as they are written (util/lazy-list.ts: a file's 100,000 rows are never held in any form at once)
   */
  rows?: ListOf<RowLine>;
  not_counted?: RowNotCounted[];
  /** per network: the one height the asset's holdings were judged at, its block time and its gap */
  snapshots: Snapshot[];
  /** outputs or balances named by more than one proof, counted once (the first 20 named, then a count) */
  overlap: string[];
  /** outputs of a lower proof spent at or below the joint height: not counted there */
  spent_before_snapshot: number;
  /** outputs spent in a block whose time is at or before the commitment's `created`: they back nothing */
  spent_before_commitment: { output: string; height: number; time: string | null }[];
  /** the one moment its chains are judged at (the latest of their snapshots' block times), null: one chain */
  moment: { time: string; network: string } | null;
  /** outputs of a chain read before that moment, spent by it: they may back the asset again on a later chain */
  moved_before_moment: { output: string; height: number; time: string | null }[];
  /**
   * outputs spent in a block stamped after the liabilities' created or the moment whose median time past is not
   * (judge/moment.ts `datedAhead`): whether still held then cannot be said — "cannot say", never counted as moved
   */
  spent_dated_ahead: {
    output: string;
    height: number;
    fault: Extract<AuditFault, { code: "spend-dated-ahead" }>;
  }[];
  /** tokens among its proofs that mirror a native coin, each named: counted as that coin, once */
  mirrors: string[];
  /** the asset's finding's code (judge/words.ts AssetCode; docs/finding-codes.md): its status's why, stable */
  code: AssetCode;
  /** the asset's finding in words (judge/words.ts): what the summary, the text and the package say of it */
  why: string;
  /** where the data states more places than the asset's decimals: which, and that none is rounded (words) */
  places?: string;
}

/** The audit the verdict answers: its challenge, where it came from, and why nothing is proven for it, if so. */
export interface Audit {
  /** the text the reserves' signatures must be over, or null: no audit challenge */
  challenge: string | null;
  from: "commitment" | "--challenge" | "commitment and --challenge" | null;
  /** the commitment's own challenge (under its digest), and --challenge */
  commitment_challenge: string | null;
  given_challenge: string | null;
  /** the liabilities' created (an exchange's root: the date given for it, or null), the bound on the gap */
  created: string | null;
  max_gap: string;
  max_gap_seconds: number;
  /** the largest gap of a snapshot's block time to `created` ("3 d after the liabilities' date"), null: none known */
  gap: string | null;
  /** lines that each make the verdict at best NOT PROVEN SOLVENT */
  faults: string[];
}

export type SolvencyVerdict = "solvent" | "unproven" | "not-solvent" | "cannot-say";

/** Solvency's verdict in the one verdict type of every check (reserves/verdict.ts), for the one exit table. */
export const SOLVENCY_VERDICT: Record<SolvencyVerdict, Verdict> = {
  solvent: "holds",
  // covered only by reserves nobody proved: solvency is not shown
  unproven: "fails",
  "not-solvent": "fails",
  "cannot-say": "cannot-say",
};

export interface SolvencyReport {
  verdict: SolvencyVerdict;
  summary: string;
  /** whether anything was re-read on chain (--verify; an address file: a --node given) */
  verified: boolean;
  /** which audit was judged: its challenge, the liabilities' date, and what keeps it from being proven */
  audit: Audit;
  /** The texts the reserves' signatures are over (null: a proof without one), each with its files. */
  challenges: { text: string | null; files: string[]; for_this_audit: boolean }[];
  /** the contracts --backing declared, trusted as the assets they are declared to be (never checked) */
  trusted: string[];
  /** chaingw's commitment, when the liabilities are one */
  commitment?: {
    root: string;
    digest: string;
    label?: string;
    challenge: string | null;
    created: string;
    digest_ok: boolean;
    /** whether its root binds its totals (liabilities/commitment-totals.ts), when read */
    totals?: TotalsFinding;
  };
  /** an exchange's liabilities root, when they are one: its file, the root, the date given, why not relied on */
  exchange_liabilities?: { source: string; root: string | null; date: string | null; note?: string };
  /** an exchange's address file, when the reserves are one: its layout, its own verdict as reserves verify
   * gives it, and the summary lines that disagree with its rows */
  reserves_file?: {
    file: string;
    format: string;
    verdict: Verdict;
    summary: string;
    disagreements: string[];
  };
  assets: SolvencyAsset[];
  /** the nodes read, each named with the chain it answered for (cli/nodes.ts: one sentence, credentials cut);
   * absent when none was named */
  nodes?: { net: string; chain: string; url: string }[];
}

export const STATUS_RANK: Record<AssetStatus, number> = {
  covered: 0,
  "cannot-say": 1,
  "claimed-only": 2,
  unjudged: 2,
  "not-covered": 3,
  "reserves-fail": 3,
};

/** The largest gap of the snapshots' block times to the liabilities' date, in words (null: none known). */
export function largestGap(snapshots: Iterable<Snapshot>): string | null {
  let best: number | null = null;
  for (const s of snapshots)
    if (s.gap_seconds !== null && (best === null || Math.abs(s.gap_seconds) > Math.abs(best)))
      best = s.gap_seconds;
  return best === null ? null : gapText(best);
}

/** "Litecoin regtest at height 111 (0 blocks below the node's tip)". */
export const snapshotText = (s: Snapshot): string =>
  `${s.network} at ${s.kind} ${s.height}${s.below_tip === null ? "" : ` (${counted(s.below_tip, "block")} below the node's tip)`}`;
