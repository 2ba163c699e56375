import { counted, type Finding, type Verdict, verdictOfFindings } from "../../reserves/verdict.js";
import type { OwnershipFile, OwnershipLayout, SummaryLine } from "./read.js";

/**
 * proven: its key signed and its balance was re-read on chain at the snapshot (a row with no amount: its key
 * signed); signed: its key signed, its amount is as claimed (not read: no node, or the node could not say);
 * failed, unsigned; unsupported: a form chaingw cannot judge; cannot-say: a check could not be made.
 */

export type RowStatus = "proven" | "signed" | "failed" | "unsigned" | "unsupported" | "cannot-say";

export interface OwnerResult {
  address: string;
  proven: boolean;
  reason: string;
}

export interface RowResult {
  line: number;
  coin: string;
  network: string;
  address: string;
  /** the amount as the file claims it (OKX 2022: base units), null where the row has none */
  amount: string | null;
  height: string | null;
  /**
   * true: the signature (and, for a contract wallet, its owners and the chain) shows control, and the
   * balance was re-read at the snapshot (or the row claims none); false: it does not (a failed or missing
   * signature, less on chain than claimed); null: not shown (signed with the amount claimed, a form chaingw
   * cannot judge, a check not made)
   */
  proven: boolean | null;
  /** the key signed (a contract wallet: its owners, who control it): control shown, whatever the balance */
  signed?: boolean;
  status: RowStatus;
  reason: string;
  form?: string;
  /** an owner row under a contract wallet: the wallet row's line */
  wallet?: number;
  /** a contract wallet's owners (OKX eoa1/eoa2; HTX's owner rows) */
  owners?: OwnerResult[];
  /**
   * the balance re-read at the snapshot block, where a node was given; `decimals`: the places the chain gives
   * its amount (a token's decimals() at the block), what a file of base units is counted in
   */
  balance?: {
    value: string | null;
    block: string | null;
    holds: boolean | null;
    detail: string;
    decimals?: number;
    /** a token's balanceOf moving with a native balance (tracking.ts): true, it does; null, the node cannot tell */
    tracking?: { tracks: boolean | null; detail: string };
  };
}

export interface Tally {
  rows: number;
  proven: number;
  /** signed, the amount claimed (not re-read on chain) */
  signed: number;
  failed: number;
  unsigned: number;
  unsupported: number;
  cannot_say: number;
}

export interface OwnershipReport {
  format: OwnershipLayout;
  verdict: Verdict;
  holds: boolean;
  units: OwnershipFile["units"];
  counts: Tally;
  /** per coin: the amounts the rows of each status claim (summed exactly, as written) */
  amounts: Record<string, Record<RowStatus, string>>;
  summary: SummaryLine[];
  rows: RowResult[];
  findings: Finding[];
  summary_text: string;
}

/** A message shown in a reason: quoted, cut at 60 characters. */
/** Exact decimal sums of amounts as written: the widest scale among them. */
export function sumAmounts(xs: readonly string[]): string {
  const scale = Math.max(0, ...xs.map((x) => (x.split(".")[1] ?? "").length));
  let t = 0n;
  for (const x of xs) {
    const [w, f = ""] = x.split(".");
    t += BigInt(w || "0") * 10n ** BigInt(scale) + BigInt(f.padEnd(scale, "0") || "0");
  }
  if (scale === 0) return t.toString();
  const s = t.toString().padStart(scale + 1, "0");
  return `${s.slice(0, -scale)}.${s.slice(-scale)}`.replace(/\.?0+$/, "");
}

const STATUSES: RowStatus[] = ["proven", "signed", "failed", "unsigned", "unsupported", "cannot-say"];

/** The report of the judged rows: counts and amounts per status, the verdict and summary of the findings. */
export function report(file: OwnershipFile, rows: RowResult[], findings: Finding[]): OwnershipReport {
  const counts: Tally = {
    rows: rows.length,
    proven: 0,
    signed: 0,
    failed: 0,
    unsigned: 0,
    unsupported: 0,
    cannot_say: 0,
  };
  const per = new Map<string, Map<RowStatus, string[]>>();
  for (const r of rows) {
    counts[r.status === "cannot-say" ? "cannot_say" : r.status]++;
    if (r.amount !== null) {
      if (!per.has(r.coin)) per.set(r.coin, new Map());
      const m = per.get(r.coin) as Map<RowStatus, string[]>;
      // pushed, not copied: a copy per row made the report quadratic in the file's rows (23 s of 50,000)
      const list = m.get(r.status);
      if (list) list.push(r.amount);
      else m.set(r.status, [r.amount]);
    }
  }
  const amounts: OwnershipReport["amounts"] = {};
  for (const [coin, m] of per) {
    amounts[coin] = {} as Record<RowStatus, string>;
    for (const s of STATUSES) (amounts[coin] as Record<RowStatus, string>)[s] = sumAmounts(m.get(s) ?? []);
  }
  const verdict = verdictOfFindings(findings);
  const open = counts.failed + counts.unsigned;
  const disagree = findings.filter((f) => f.step === "summary" && f.status === "fails").length;
  const why = [
    ...(open
      ? [
          `${open} row${open === 1 ? "" : "s"} failed or unsigned (${counts.failed} failed, ${counts.unsigned} unsigned)`,
        ]
      : []),
    ...(disagree ? [`${counted(disagree, "summary line")} disagreeing with the rows`] : []),
  ];
  const signed = counts.signed
    ? `, ${counts.signed} signed with the amount claimed (not re-read on chain)`
    : "";
  const summary_text =
    verdict === "holds"
      ? `every row${file.units === "none" ? "" : " with a balance"} is proven (${counts.proven} of ${counts.rows} rows${file.units === "none" ? "" : ": signed, and the balance re-read on chain"})`
      : verdict === "fails"
        ? `the file does not hold: ${why.join("; ")}; ${counts.proven} proven of ${counts.rows}${signed}`
        : `cannot say: ${counts.signed + counts.unsupported + counts.cannot_say} row(s) not proven (${counts.signed} signed with the amount claimed, not re-read on chain; ${counts.unsupported} unsupported; ${counts.cannot_say} not checked), ${counts.proven} proven of ${counts.rows}`;
  return {
    format: file.layout,
    verdict,
    holds: verdict === "holds",
    units: file.units,
    counts,
    amounts,
    summary: file.summary,
    rows,
    findings,
    summary_text,
  };
}
