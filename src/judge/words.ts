/**
 * Solvency's finding about each asset owed, typed — a code, the asset, its numbers — and turned into words
 * here, once, for both paths (chaingw's own proofs, an exchange's address file): the verdict's summary, the
 * report's `why` (--json), the text under the table, the page and the report package all read these words,
 * so they cannot disagree.
 */

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
  const { asset: a, numbers: n } = f;
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
