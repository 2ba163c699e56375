/**
 * What `solvency` (solvency.ts) reads and reports: a proof as a backing, an asset's rule, each asset's
 * judgement, the audit, the snapshots, the report and its verdict.
 */
import type { AssetRule } from "../chains/assets.js";
import type { Proof } from "../proof/document.js";
import type { EvmProof } from "../proof/evm-document.js";
import type { ProofCheck, ReportEntry } from "../reserves/combined.js";
import type { Verdict } from "../reserves/verdict.js";
import type { Commitment } from "./commitment.js";

/** One `--reserves ASSET=PROOF[#ID]`, read (and verified when asked). */
export interface Backing {
  asset: string;
  file: string;
  /** an EVM proof's asset: "native" or the token contract */
  id?: string;
  utxo?: Proof;
  evm?: EvmProof;
  entry: ReportEntry & { verify?: ProofCheck };
}

export type { AssetRule } from "../chains/assets.js";

/** What a reserve proof's check means for solvency. */
export type ReserveStatus = "holds" | "fails" | "cannot-say" | "not-verified";

/** The one mapping from a reserve verifier's answer (or none, without --verify) to solvency's terms. */
export function reserveStatus(b: Backing): ReserveStatus {
  if (!b.entry.digest_ok) return "fails";
  const v = b.entry.verify?.verdict;
  if (v === undefined) return "not-verified";
  return v === "holds" ? "holds" : v === "fails" ? "fails" : "cannot-say";
}

/**
 * covered: proven reserves cover the liabilities; claimed-only: only claimed (unproven) reserves do;
 * not-covered: not even the claimed ones; reserves-fail: a proof backing it does not hold; cannot-say: a node
 * could not say, proven reserves alone do not cover it, and the proofs it could not judge might; unjudged (without --verify): a proof whose
 * addresses do not say which coin it is was not judged, and proven reserves alone do not cover it.
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

export interface SolvencyAsset {
  asset: string;
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
  proofs: {
    file: string;
    id?: string;
    /** what the proof is: its network (and token), as re-derived or, without --verify, as claimed */
    is: string;
    counted: boolean;
    /** why it does not count */
    why?: string;
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
  }[];
  /** per network: the one height the asset's proofs were judged at, its block time and its gap */
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
  /** tokens among its proofs that mirror a native coin, each named: counted as that coin, once */
  mirrors: string[];
  /** the asset's finding in words (judge/words.ts): what the summary, the text and the package say of it */
  why: string;
}

/** One network's snapshot: the height its proofs were judged at, that block's time, and its gap to `created`. */
export interface Snapshot {
  network: string;
  kind: "height" | "block";
  height: number;
  /** how far below the verifying node's tip (null without --verify) */
  below_tip: number | null;
  /** the block's time as the node gives it (RFC 3339); null without --verify */
  block_time: string | null;
  /** seconds from the commitment's `created` to the block's time (negative: the reserves are older) */
  gap_seconds: number | null;
  /** "3 min before the liabilities were counted" */
  gap: string | null;
  within_max_gap: boolean | null;
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
  /** lines that each make the verdict at best NOT PROVEN SOLVENT */
  faults: string[];
}

/**
 * An exchange's liabilities: the totals per coin at the root of its inclusion proof (each in the decimals of
 * the reserve proofs that back it), taken only with the root given from outside; the date the auditor gives
 * for that root (the exchanges' files state none), or null.
 */
export interface ExchangeOwed {
  source: string;
  root: string | null;
  date: string | null;
  totals: { asset: string; decimals: number; base_units: bigint }[];
  /** why the totals do not hold (another root), or why they cannot be relied on (the file's own root) */
  fails?: string;
  cannot_say?: string;
}

/** What solvency is given: the liabilities, the backings (read, verified when asked) and the audit's terms. */
export interface SolvencyInput {
  /** chaingw's commitment, or `exchange`: an exchange's root totals (one of the two) */
  commitment?: Commitment;
  exchange?: ExchangeOwed;
  backings: Backing[];
  verified: boolean;
  rules: Map<string, AssetRule>;
  /** solvency --challenge */
  challenge?: string;
  /** --max-gap, its text and seconds */
  maxGap: { text: string; seconds: number };
  /** the auditor's clock */
  now: Date;
}

export { CREATED_AHEAD_S } from "../util/text.js";

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
  verified: boolean;
  /** which audit was judged: its challenge, the commitment's time, and what keeps it from being proven */
  audit: Audit;
  /** The texts the proofs' signatures are over (null: a proof without one), each with its files. */
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
  };
  /** an exchange's liabilities root, when they are one: its file, the root, the date given, why not relied on */
  exchange_liabilities?: { source: string; root: string | null; date: string | null; note?: string };
  assets: SolvencyAsset[];
}

export const STATUS_RANK: Record<AssetStatus, number> = {
  covered: 0,
  "cannot-say": 1,
  "claimed-only": 2,
  unjudged: 2,
  "not-covered": 3,
  "reserves-fail": 3,
};
