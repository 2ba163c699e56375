import type { TokenReads } from "../../judge/reads.js";
import type { RowWhy } from "../../judge/words-rows.js";
import { counted, type Finding, type Verdict, verdictOfFindings } from "../../reserves/verdict.js";
import type { OwnershipFile, OwnershipLayout, SummaryLine } from "./read.js";

/**
 * proven: its key signed and its balance was re-read on chain at the snapshot (a row with no amount: its key
 * signed); signed: its key signed, its amount is as claimed (not read: no node, or not at the snapshot);
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
  /** the stable code of the row's finding, the last step's that judged it: "balances-fails", "signatures-ok" */
  code?: string;
  /** why the row stands as it does, in words (judge/words-rows.ts rowWords of `why`) */
  reason: string;
  /** why, typed: each part a code, its subject, its numbers (not in --json's rows: `reason` words it) */
  why: RowWhy[];
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
    tracking?: { tracks: boolean | null; detail: string; why?: string; reads?: TokenReads };
  };
}

/** What a verifier step changes of a row's judgment: its why, typed (its `reason` their words, made once). */
export type RowPatch = Partial<Omit<RowResult, "reason" | "why">> & { why: RowWhy[] };

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

/** An exact decimal sum kept as an integer at the widest scale of the amounts added so far. */
class DecimalSum {
  private scale = 0;
  private total = 0n;

  add(x: string): void {
    const [w, f = ""] = x.split(".");
    if (f.length > this.scale) {
      this.total *= 10n ** BigInt(f.length - this.scale);
      this.scale = f.length;
    }
    this.total += BigInt(w || "0") * 10n ** BigInt(this.scale) + BigInt(f.padEnd(this.scale, "0") || "0");
  }

  /** The sum as a plain decimal, trailing zeros of the fraction dropped. */
  text(): string {
    if (this.scale === 0) return this.total.toString();
    const s = this.total.toString().padStart(this.scale + 1, "0");
    return `${s.slice(0, -this.scale)}.${s.slice(-this.scale)}`.replace(/\.?0+$/, "");
  }
}

/** Exact decimal sums of amounts as written: the widest scale among them. */
export function sumAmounts(xs: readonly string[]): string {
  const sum = new DecimalSum();
  for (const x of xs) sum.add(x);
  return sum.text();
}

const STATUSES: RowStatus[] = ["proven", "signed", "failed", "unsigned", "unsupported", "cannot-say"];

/**
 * What the report says of every row, gathered as the rows are judged (a window at a time): the count of each
 * status, each coin's amounts summed per status, whether any finding fails or cannot say, the file's own
 * summary lines that disagree with its rows.
 */
export class RowTally {
  readonly counts: Tally = {
    rows: 0,
    proven: 0,
    signed: 0,
    failed: 0,
    unsigned: 0,
    unsupported: 0,
    cannot_say: 0,
  };
  private readonly per = new Map<string, Map<RowStatus, DecimalSum>>();
  /** one finding of each status that decides a verdict (fails, cannot say), the first seen */
  private readonly deciding = new Map<Finding["status"], Finding>();
  disagree = 0;

  add(rows: readonly RowResult[], findings: readonly Finding[]): void {
    for (const r of rows) {
      this.counts.rows++;
      this.counts[r.status === "cannot-say" ? "cannot_say" : r.status]++;
      if (r.amount !== null) {
        const m = this.per.get(r.coin) ?? new Map<RowStatus, DecimalSum>();
        this.per.set(r.coin, m);
        const sum = m.get(r.status) ?? new DecimalSum();
        m.set(r.status, sum);
        sum.add(r.amount);
      }
    }
    for (const f of findings) {
      if ((f.status === "fails" || f.status === "cannot-say") && !this.deciding.has(f.status))
        this.deciding.set(f.status, f);
      if (f.step === "summary" && f.status === "fails") this.disagree++;
    }
  }

  /** per coin, in the order first met: the amounts the rows of each status claim */
  amounts(): OwnershipReport["amounts"] {
    const out: OwnershipReport["amounts"] = {};
    for (const [coin, m] of this.per) {
      const a = {} as Record<RowStatus, string>;
      for (const s of STATUSES) a[s] = m.get(s)?.text() ?? "0";
      out[coin] = a;
    }
    return out;
  }

  verdict(): Verdict {
    return verdictOfFindings([...this.deciding.values()]);
  }
}

/**
 * The report of the judged rows (`tally`: every row's counts and sums, and every finding's part in the
 * verdict): counts and amounts per status, the verdict and summary. `rows` and `findings` are what the report
 * lists: every row and finding, or (the rows written out as they were judged) none of the rows' and the
 * file's own findings.
 */
export function report(
  file: OwnershipFile,
  tally: RowTally,
  rows: RowResult[],
  findings: Finding[],
): OwnershipReport {
  const counts = tally.counts;
  const amounts = tally.amounts();
  const verdict = tally.verdict();
  const open = counts.failed + counts.unsigned;
  const disagree = tally.disagree;
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
