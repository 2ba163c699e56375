/**
 * Solvency's per-asset rows, read from the one report `solvency --json` prints (judge/report.ts), whichever
 * input fed the judge (chaingw's own proofs, an exchange's address file): the CSV of `--format csv` and the
 * report package's tables and chart read these, so every audit is drawn one way. Amounts stay the report's
 * exact decimal text, in the asset's units.
 */
import type { HoldingLine, RowLine, SolvencyAsset, SolvencyReport } from "../../judge/report.js";
import { type HoldingFinding, holdingWords, totalsStatus, totalsWords } from "../../judge/words.js";
import { csvRow, csvTable } from "../../util/csv.js";
import { escapeDeep } from "../../util/escape.js";
import { lazyJsonPieces } from "../../util/json-pieces.js";
import { LazyList, type ListOf } from "../../util/lazy-list.js";
import { amountOf } from "../../util/units.js";
import type { Run } from "../run.js";

/** The verdict in words, once for every renderer (text, page, package). */
export const VERDICT_WORD: Record<SolvencyReport["verdict"], string> = {
  solvent: "SOLVENT",
  unproven: "NOT PROVEN SOLVENT",
  "not-solvent": "NOT SOLVENT",
  "cannot-say": "CANNOT SAY",
};

/** An asset's status in words (an exchange's coin's statuses are among them), once for every renderer. */
export const STATUS_WORD: Record<string, string> = {
  covered: "covered (proven)",
  "claimed-only": "covered only by claims",
  "not-covered": "not covered",
  "reserves-fail": "a proof does not hold",
  "cannot-say": "cannot say",
  unjudged: "not judged",
};

export interface AssetRow {
  asset: string;
  decimals: number;
  liabilities: string;
  proven: string;
  claimed: string;
  /** proven ÷ liabilities, claimed ÷ liabilities: "112.50%", or "n/a" */
  proven_coverage: string;
  claimed_coverage: string;
  status: string;
  /** the asset's finding's code (judge/words.ts AssetCode; docs/finding-codes.md) */
  code: string;
  /** what proven reserves miss, in the asset's units; null when covered */
  shortfall: string | null;
}

/** Every amount written the one way (util/units.ts amountOf): coin units with the asset's decimals. */
export function assetRows(r: SolvencyReport): AssetRow[] {
  return r.assets.map((a) => ({
    asset: a.asset,
    decimals: a.decimals,
    liabilities: amountOf(a.liabilities.amount, a.decimals),
    proven: amountOf(a.proven.amount, a.decimals),
    claimed: amountOf(a.claimed.amount, a.decimals),
    proven_coverage: a.coverage,
    claimed_coverage: a.claimed_coverage,
    status: a.status,
    code: a.code,
    shortfall: a.shortfall === null ? null : amountOf(a.shortfall, a.decimals),
  }));
}

const HEAD = [
  "asset",
  "decimals",
  "liabilities",
  "proven",
  "claimed",
  "proven_coverage",
  "claimed_coverage",
  "status",
  "code",
  "shortfall",
] as const;

/** `solvency --format csv` and the package's solvency.csv: one row per asset, the verdict's words in `status`. */
export const solvencyCsv = (r: SolvencyReport): string =>
  csvTable(
    [...HEAD],
    assetRows(r).map((a) => HEAD.map((h) => a[h])),
  );

/**
 * Either judge's report in the run's format: its JSON, the per-asset CSV (`--format csv`), or the text; what
 * was written (the page, the package) said after the text.
 */
export async function printSolvency(
  run: Run,
  report: SolvencyReport,
  human: () => Promise<string | Iterable<string>>,
  written: string[],
): Promise<void> {
  if (run.format === "csv") return run.out(solvencyCsv(escapeDeep(report)));
  if (run.machine) {
    // an address file's rows are made as they are written (util/lazy-list.ts): the JSON in pieces, the same bytes
    const pieces = lazyJsonPieces(report, run.pretty ? 2 : 0);
    return pieces ? run.outPieces(pieces) : run.out(run.json(report));
  }
  const text = await human();
  if (typeof text === "string") run.out(text);
  else run.outPieces(text);
  for (const w of written) run.out(w);
}

/** One holding judged: a proof's output or balance (chaingw's own), or an address file's row (an exchange's). */
export type Holding = HoldingLine;

/** A proof as one holding, where the judge's lines are not given (the proof's own claimed and proven). */
function proofHolding(a: SolvencyAsset, p: SolvencyAsset["proofs"][number]): Holding[] {
  // the judge's finding where it gave one (a proof not counted, or counted and not for this audit); else its check
  const f: HoldingFinding | undefined = !p.counted
    ? undefined
    : (p.finding ?? { code: "proof-check", check: p.check, ...(p.summary ? { summary: p.summary } : {}) });
  return [
    {
      asset: a.asset,
      source: `${p.file}${p.id ? `#${p.id}` : ""}`,
      network: p.is,
      address: "",
      claimed: amountOf(p.counted ? p.claimed : "0", a.decimals),
      proven: amountOf(p.counted ? p.proven : "0", a.decimals),
      status: !p.counted ? "not counted" : /[1-9]/.test(p.proven) ? "proven" : "claimed",
      code: f ? f.code : (p.code ?? "proof-not-counted"),
      why: f ? holdingWords(f) : (p.why ?? "not counted"),
    },
  ];
}

/** A row's network as its file names it; a row that names none is on its coin's own chain (HTX's `BTC`, OKX's `LTC`). */
const networkOf = (x: { coin: string; network: string }): string => x.network || `${x.coin} (its own chain)`;

/** An address file's rows of an asset as holdings: those counted (proven or claimed) and those not, with the judge's why. */
function rowHoldings(a: SolvencyAsset): ListOf<Holding> {
  const counted = (x: RowLine): Holding => ({
    asset: a.asset,
    source: `line ${x.line}`,
    network: networkOf(x),
    address: x.address,
    claimed: amountOf(x.amount, a.decimals),
    proven: amountOf(x.proven ? x.amount : "0", a.decimals),
    status: x.proven ? "proven" : "claimed",
    code: x.code,
    why: x.why,
  });
  const notCounted = (a.not_counted ?? []).map(
    (x): Holding => ({
      asset: a.asset,
      source: `line ${x.line}`,
      network: networkOf(x),
      address: x.address,
      claimed: amountOf(x.claimed, a.decimals),
      proven: amountOf("0", a.decimals),
      status: "not counted",
      code: x.code,
      why: `${x.status}: ${x.why}`,
    }),
  );
  const rows = a.rows ?? [];
  // the rows counted made as they are read (a lazy list's): never every one at once
  return rows instanceof LazyList
    ? LazyList.concat([rows.map(counted), notCounted])
    : [...rows.map(counted), ...notCounted];
}

/**
 * Every holding the report judged, with why, as the judge decided it: an address file's rows (the report's);
 * chaingw's own proofs' outputs and balances, one per address, the judge's lines (`lines`: judgeSolvency's),
 * else one line per proof.
 */
export function holdings(r: SolvencyReport, lines?: HoldingLine[]): ListOf<Holding> {
  const parts = r.assets.map((a) =>
    a.rows !== undefined
      ? rowHoldings(a)
      : lines
        ? lines.filter((l) => l.asset === a.asset)
        : a.proofs.flatMap((p) => proofHolding(a, p)),
  );
  return parts.some((p) => p instanceof LazyList) ? LazyList.concat(parts) : parts.flatMap((p) => [...p]);
}

const HOLDINGS_HEAD = ["asset", "source", "network", "address", "claimed", "proven", "status", "why", "code"];
const holdingCells = (h: Holding) => [
  h.asset,
  h.source,
  h.network,
  h.address,
  h.claimed,
  h.proven,
  h.status,
  h.why,
  h.code,
];

/** rows.csv: every holding judged, with why — its finding's words and code (judge/words.ts). */
export const holdingsCsv = (hs: readonly Holding[]): string => csvTable(HOLDINGS_HEAD, hs.map(holdingCells));

/** rows.csv in pieces, a block of lines at a time, ending in a line end: `holdingsCsv(hs)` and "\n", the same bytes. */
export function* holdingsCsvPieces(hs: ListOf<Holding>): Generator<string> {
  let block: string[] = [csvRow(HOLDINGS_HEAD)];
  for (const h of hs) {
    block.push(csvRow(holdingCells(h)));
    if (block.length >= 1000) {
      yield `${block.join("\n")}\n`;
      block = [];
    }
  }
  if (block.length) yield `${block.join("\n")}\n`;
}

/** A finding the verdict rests on, with its kind (the page groups them). */
export interface Finding {
  kind: string;
  text: string;
}

/** What keeps the verdict from SOLVENT, and what the auditor should know, each of a kind. */
export function findingsOf(r: SolvencyReport): Finding[] {
  const out: Finding[] = [];
  const add = (kind: string, text: string) => out.push({ kind, text });
  for (const d of r.reserves_file?.disagreements ?? []) add("the file disagrees with itself", d);
  if (r.reserves_file && r.audit.challenge === null)
    add(
      "audit",
      "the rows sign the exchange's own text, not an audit's challenge: nothing is proven for the audit",
    );
  for (const f of r.audit.faults) add("audit", f);
  if (r.commitment && !r.commitment.digest_ok)
    add("liabilities", "the commitment's digest does not match its content");
  const totals = r.commitment?.totals;
  if (totals && totalsStatus(totals) !== "bound") add("liabilities", totalsWords(totals));
  if (r.exchange_liabilities?.note) add("liabilities", r.exchange_liabilities.note);
  for (const a of r.assets) {
    if (a.status !== "covered") add(`asset ${a.status}`, a.why);
    if (a.places) add("more places than the asset has", a.places);
    for (const p of a.proofs) {
      const name = `${a.asset}: ${p.file}${p.id ? `#${p.id}` : ""}`;
      if (!p.counted) add("proof not counted", `${name}: ${p.why ?? p.is}`);
      if (p.not_for_this_audit)
        add("proof proves nothing for this audit", `${name}: ${p.not_for_this_audit}`);
      if (p.check === "fails" || p.check === "cannot-say")
        add(`proof ${p.check}`, `${name}${p.summary ? `: ${p.summary}` : ""}`);
    }
    for (const x of a.not_counted ?? [])
      add(`not counted: ${x.status}`, `${a.asset} line ${x.line}: ${x.why}`);
    for (const x of a.rows ?? [])
      if (x.not_for_this_audit)
        add("proven, but not for this audit", `${a.asset} line ${x.line}: ${x.not_for_this_audit}`);
    for (const x of a.overlap) add("overlap, counted once", `${a.asset}: ${x}`);
    for (const x of a.mirrors) add("native mirror, counted once", `${a.asset}: ${x}`);
    for (const x of a.spent_before_commitment)
      add("spent before the liabilities' date", `${a.asset}: ${x.output} in block ${x.height}`);
  }
  return out;
}

/** The snapshots the reserves were judged at: network, height, block time, gap to the liabilities' date. */
export function snapshotsOf(r: SolvencyReport): {
  network: string;
  height: number;
  block_time: string | null;
  gap: string | null;
  within_max_gap: boolean | null;
}[] {
  const all = r.assets.flatMap((a) => a.snapshots);
  const seen = new Map<string, (typeof all)[number]>();
  for (const s of all) seen.set(`${s.network}@${s.height}`, s);
  return [...seen.values()].map((s) => ({
    network: s.network,
    height: s.height,
    block_time: s.block_time,
    gap: s.gap,
    within_max_gap: s.within_max_gap,
  }));
}

/** The audit's facts as the page and solvency.json's scope state them. */
export function auditFacts(r: SolvencyReport): {
  challenge: string | null;
  liabilities_date: string | null;
  liabilities_root: string | null;
  liabilities: string;
  max_gap: string;
} {
  return {
    challenge: r.audit.challenge,
    liabilities_date: r.audit.created,
    liabilities_root: r.commitment?.root ?? r.exchange_liabilities?.root ?? null,
    liabilities: r.commitment
      ? `chaingw commitment${r.commitment.label ? ` "${r.commitment.label}"` : ""}, digest ${r.commitment.digest}`
      : (r.exchange_liabilities?.source ?? ""),
    max_gap: r.audit.max_gap,
  };
}
