/**
 * What `solvency` (solvency.ts) reads and reports: a proof as a backing, an asset's rule, each asset's
 * judgement, the audit, the snapshots, the report and its verdict.
 */
import type { AssetRule } from "../chains/assets.js";
import type { ReserveStatus } from "../judge/report.js";
import type { TotalsFinding } from "../judge/words.js";
import type { Proof } from "../proof/document.js";
import type { EvmProof } from "../proof/evm-document.js";
import type { ProofCheck, ReportEntry } from "../reserves/combined.js";
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
export type {
  Amount,
  AssetStatus,
  Audit,
  ReserveStatus,
  Snapshot,
  SolvencyAsset,
  SolvencyReport,
  SolvencyVerdict,
} from "../judge/report.js";
export { SOLVENCY_VERDICT, STATUS_RANK } from "../judge/report.js";

/** The one mapping from a reserve verifier's answer (or none, without --verify) to solvency's terms. */
export function reserveStatus(b: Backing): ReserveStatus {
  if (!b.entry.digest_ok) return "fails";
  const v = b.entry.verify?.verdict;
  if (v === undefined) return "not-verified";
  return v === "holds" ? "holds" : v === "fails" ? "fails" : "cannot-say";
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
  /**
   * whether the commitment's totals are its root's, read by the face (commitment-totals.ts: v2's root, v1's
   * children it carries, or the tree.bin beside it); absent: not read (nothing relied on then but the digest)
   */
  commitmentTotals?: TotalsFinding;
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
