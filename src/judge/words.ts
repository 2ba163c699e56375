/**
 * Solvency's finding about each asset owed, typed — a code, the asset, its numbers — and turned into words
 * here, once, for both paths (chaingw's own proofs, an exchange's address file): the verdict's summary, the
 * report's `why` (--json), the text under the table, the page and the report package all read these words,
 * so they cannot disagree.
 */

import { amountOf } from "../util/units.js";

/**
 * covered: proven reserves cover it; claimed-only: only claims do; not-covered: not even they; reserves-fail:
 * a proof backing it does not hold; cannot-say: a node could not say; unknown-for-audit: holdings proven on
 * chain whose time (or moment) for this audit cannot be told could cover it; unjudged: a proof not placed.
 */
export type AssetCode =
  | "covered"
  | "claimed-only"
  | "not-covered"
  | "reserves-fail"
  | "cannot-say"
  | "unknown-for-audit"
  | "owed-unknown"
  | "unjudged";

export interface AssetFinding {
  code: AssetCode;
  /** the subject: the asset owed */
  asset: string;
  /** the places its amounts are written at, every one (the table's, util/units.ts amountText) */
  decimals: number;
  /** its numbers, as exact decimals of the asset (coverage: proven ÷ liabilities, "66.67%") */
  numbers: {
    liabilities: string;
    proven: string;
    claimed: string;
    shortfall: string | null;
    coverage: string;
  };
  /** no holding counts for it */
  none: boolean;
  /** why holdings proven on chain prove nothing for this audit, each once, named by where they are stated */
  notFor: string[];
  /** why nothing could be proven at all (no --verify, no --challenge), or undefined */
  unprovable?: string;
}

/** The finding in words: "LTC not covered: short 1 LTC (claimed reserves 2 of 3)". */
export function assetWords(f: AssetFinding): string {
  const { asset: a } = f;
  // amounts written the one way, as the table writes them (every place of the asset)
  const q = (t: string) => amountOf(t, f.decimals);
  const n = {
    ...f.numbers,
    liabilities: q(f.numbers.liabilities),
    proven: q(f.numbers.proven),
    claimed: q(f.numbers.claimed),
    shortfall: f.numbers.shortfall === null ? null : q(f.numbers.shortfall),
  };
  const notFor = f.notFor.length ? `; not proven for this audit: ${f.notFor.join("; ")}` : "";
  switch (f.code) {
    case "not-covered":
      return `${a} not covered: short ${n.shortfall} ${a}${f.none ? " (no reserves count for it)" : ` (claimed reserves ${n.claimed} of ${n.liabilities})`}${notFor}`;
    case "reserves-fail":
      return `${a}: a reserve proof does not hold`;
    case "cannot-say":
      return `${a}: a node could not say whether its reserves hold; proven ${n.proven} of ${n.liabilities} ${a}`;
    case "unknown-for-audit":
      return `${a}: whether its reserves proven on chain are for this audit cannot be said; proven ${n.proven} of ${n.liabilities} ${a}${notFor}`;
    case "owed-unknown":
      return `${a}: what is owed cannot be said (the liabilities' totals are not relied on); proven ${n.proven} ${a} against the ${n.liabilities} they state`;
    case "unjudged":
      return `${a}: a proof whose addresses do not say which coin it is was not judged (--verify asks its node); proven ${n.proven} of ${n.liabilities} ${a}`;
    case "claimed-only":
      return `${a} covered only by claimed reserves: proven ${n.proven} of ${n.liabilities} ${a} (${n.coverage})${f.unprovable ? `; ${f.unprovable}` : ""}${notFor}`;
    default:
      return `${a} covered: proven ${n.proven} of ${n.liabilities} ${a}`;
  }
}

/**
 * Why one holding counts as it does (a proof's output or balance, an address file's row), typed: a code, its
 * subject (where it is stated) and its numbers; `holdingWords` turns it into the words rows.csv, the package,
 * the text and `--json` (`why`) read.
 */
export type HoldingFinding =
  /** signed over the audit's challenge, re-read on chain at the snapshot (`at`: "height 111", "block 5") */
  | { code: "proven"; at: string }
  /** a row of an address file: signed over the audit's text, its balance read at the snapshot */
  | { code: "row-proven" }
  /** a row signed, its amount as the file claims it (not re-read, or no audit's text accepted) */
  | { code: "row-claimed" }
  /** held as the document states: nothing re-read (no --verify) */
  | { code: "not-verified"; at: string }
  /** no signature over the audit's challenge proven for its address */
  | { code: "unsigned"; at: string }
  /** its proof proves nothing for this audit (another text, none), or does not hold (`check`) */
  | { code: "proof-not-proving"; at: string; check: string }
  /** proven on chain, but not for this audit: the judge's reason (time, moment, snapshot), already in words */
  | { code: "not-for-audit"; why: string }
  /** its proof is not counted for the asset: the proof's reason */
  | { code: "proof-not-counted"; why: string }
  /** an output spent at or below its chain's joint height */
  | { code: "spent-by-snapshot"; block: number; joint: number }
  /** an output spent at or before the liabilities' date, or by the audit's moment across chains */
  | { code: "spent-before-liabilities"; block: number; time: string | null }
  | { code: "moved-before-moment"; block: number; time: string | null }
  /** the same output or balance as one counted before (`first`: where), counted once there */
  | { code: "counted-once"; first: string };

/** The holding's finding in words: "held at height 111 (re-read on the node); its address signed the audit's challenge". */
export function holdingWords(f: HoldingFinding): string {
  switch (f.code) {
    case "proven":
      return `held at ${f.at} (re-read on the node); its address signed the audit's challenge`;
    case "row-proven":
      return "signed over the audit's text, the balance read at the snapshot";
    case "row-claimed":
      return "signed, the amount as the file claims it";
    case "not-verified":
      return `held at ${f.at} as the document states (not verified: --verify)`;
    case "unsigned":
      return `held at ${f.at}; no signature over the audit's challenge proven for this address`;
    case "proof-not-proving":
      return `held at ${f.at}; the proof ${f.check === "holds" ? "proves nothing for this audit" : `does not hold (${f.check})`}`;
    case "not-for-audit":
      return f.why;
    case "proof-not-counted":
      return `the proof is not counted: ${f.why}`;
    case "spent-by-snapshot":
      return `spent in block ${f.block}, at or below the joint height ${f.joint}`;
    case "spent-before-liabilities":
      return `spent in block ${f.block} (${f.time ?? "its time unknown"}), at or before the liabilities' date`;
    case "moved-before-moment":
      return `spent in block ${f.block} (${f.time ?? "its time unknown"}), before the audit's moment`;
    case "counted-once":
      return `also in ${f.first}: counted once, there`;
  }
}
