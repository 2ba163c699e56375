/**
 * Solvency's per-asset rows in one shape, read from either report `solvency --json` prints (chaingw's own
 * proofs' `assets`, an exchange's files' `coins`): the CSV of `--format csv` and the report package's tables
 * and chart read these, so the two judges' reports are drawn one way. Amounts stay the report's exact
 * decimal text, in the asset's units.
 */
import type { ExchangeSolvencyReport } from "../../exchange/ownership/solvency.js";
import type { SolvencyReport } from "../../liabilities/solvency.js";
import { csvTable } from "../../util/csv.js";
import { escapeDeep } from "../../util/escape.js";
import type { Run } from "../run.js";

export type AnySolvencyReport = SolvencyReport | ExchangeSolvencyReport;

/** The verdict in words, once for every renderer (text, page, package). */
export const VERDICT_WORD: Record<AnySolvencyReport["verdict"], string> = {
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
  /** what proven reserves miss, in the asset's units; null when covered */
  shortfall: string | null;
}

export function assetRows(r: AnySolvencyReport): AssetRow[] {
  if ("coins" in r)
    return r.coins.map((c) => ({
      asset: c.asset,
      decimals: c.decimals,
      liabilities: c.liabilities,
      proven: c.proven,
      claimed: c.claimed,
      proven_coverage: c.proven_ratio,
      claimed_coverage: c.claimed_ratio,
      status: c.status,
      shortfall: c.shortfall,
    }));
  return r.assets.map((a) => ({
    asset: a.asset,
    decimals: a.decimals,
    liabilities: a.liabilities.amount,
    proven: a.proven.amount,
    claimed: a.claimed.amount,
    proven_coverage: a.coverage,
    claimed_coverage: a.claimed_coverage,
    status: a.status,
    shortfall: a.shortfall,
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
  "shortfall",
] as const;

/** `solvency --format csv` and the package's solvency.csv: one row per asset, the verdict's words in `status`. */
export const solvencyCsv = (r: AnySolvencyReport): string =>
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
  report: AnySolvencyReport,
  human: () => Promise<string>,
  written: string[],
): Promise<void> {
  if (run.format === "csv") return run.out(solvencyCsv(escapeDeep(report)));
  run.out(run.machine ? run.json(report) : await human());
  if (!run.machine) for (const w of written) run.out(w);
}

/** One holding judged: a proof's share of an asset (chaingw's own), or an address file's row (an exchange's). */
export interface Holding {
  asset: string;
  /** the file (and #id), or the file's line */
  source: string;
  network: string;
  /** the address, where the report names one */
  address: string;
  /** what it states, in the asset's units */
  claimed: string;
  /** what of it is proven for this audit */
  proven: string;
  status: "proven" | "claimed" | "not counted";
  why: string;
}

/** Every holding the report judged, with why it counts as it does. */
export function holdings(r: AnySolvencyReport): Holding[] {
  if ("coins" in r)
    return r.coins.flatMap((c) => [
      ...c.rows.map(
        (x): Holding => ({
          asset: c.asset,
          source: `line ${x.line}`,
          network: x.network,
          address: x.address,
          claimed: x.amount,
          proven: x.proven ? x.amount : "0",
          status: x.proven ? "proven" : "claimed",
          why:
            x.not_for_this_audit ??
            (x.proven
              ? "signed over the audit's text, the balance read at the snapshot"
              : "signed, the amount as the file claims it"),
        }),
      ),
      ...c.not_counted.map(
        (x): Holding => ({
          asset: c.asset,
          source: `line ${x.line}`,
          network: x.network,
          address: "",
          claimed: "0",
          proven: "0",
          status: "not counted",
          why: `${x.status}: ${x.why}`,
        }),
      ),
    ]);
  return r.assets.flatMap((a) =>
    a.proofs.map(
      (p): Holding => ({
        asset: a.asset,
        source: `${p.file}${p.id ? `#${p.id}` : ""}`,
        network: p.is,
        address: "",
        claimed: p.counted ? p.claimed : "0",
        proven: p.counted ? p.proven : "0",
        status: !p.counted ? "not counted" : p.proven !== "0" ? "proven" : "claimed",
        why: !p.counted
          ? (p.why ?? "not counted")
          : (p.not_for_this_audit ?? `${p.check}${p.summary ? `: ${p.summary}` : ""}`),
      }),
    ),
  );
}

/** rows.csv: every holding judged, with why. */
export const holdingsCsv = (r: AnySolvencyReport): string =>
  csvTable(
    ["asset", "source", "network", "address", "claimed", "proven", "status", "why"],
    holdings(r).map((h) => [h.asset, h.source, h.network, h.address, h.claimed, h.proven, h.status, h.why]),
  );

/** A finding the verdict rests on, with its kind (the page groups them). */
export interface Finding {
  kind: string;
  text: string;
}

/** What keeps the verdict from SOLVENT, and what the auditor should know, each of a kind. */
export function findingsOf(r: AnySolvencyReport): Finding[] {
  const out: Finding[] = [];
  const add = (kind: string, text: string) => out.push({ kind, text });
  if ("coins" in r) {
    for (const d of r.reserves.disagreements) add("the file disagrees with itself", d);
    if (r.reserves.challenge === null)
      add(
        "audit",
        "the rows sign the exchange's own text, not an audit's challenge: nothing is proven for the audit",
      );
    if (r.liabilities.note) add("liabilities", r.liabilities.note);
    for (const c of r.coins) {
      if (c.status !== "covered") add(`asset ${c.status}`, `${c.asset}: ${c.why}`);
      for (const x of c.not_counted) add(`not counted: ${x.status}`, `${c.asset} line ${x.line}: ${x.why}`);
      for (const x of c.rows)
        if (x.not_for_this_audit)
          add("proven, but not for this audit", `${c.asset} line ${x.line}: ${x.not_for_this_audit}`);
    }
    return out;
  }
  for (const f of r.audit.faults) add("audit", f);
  if (r.commitment && !r.commitment.digest_ok)
    add("liabilities", "the commitment's digest does not match its content");
  if (r.exchange_liabilities?.note) add("liabilities", r.exchange_liabilities.note);
  for (const a of r.assets) {
    if (a.status !== "covered")
      add(
        `asset ${a.status}`,
        `${a.asset}: proven ${a.proven.amount} of ${a.liabilities.amount} (${a.coverage})`,
      );
    for (const p of a.proofs) {
      const name = `${a.asset}: ${p.file}${p.id ? `#${p.id}` : ""}`;
      if (!p.counted) add("proof not counted", `${name}: ${p.why ?? p.is}`);
      if (p.not_for_this_audit)
        add("proof proves nothing for this audit", `${name}: ${p.not_for_this_audit}`);
      if (p.check === "fails" || p.check === "cannot-say")
        add(`proof ${p.check}`, `${name}${p.summary ? `: ${p.summary}` : ""}`);
    }
    for (const x of a.overlap) add("overlap, counted once", `${a.asset}: ${x}`);
    for (const x of a.mirrors) add("native mirror, counted once", `${a.asset}: ${x}`);
    for (const x of a.spent_before_commitment)
      add("spent before the liabilities' date", `${a.asset}: ${x.output} in block ${x.height}`);
  }
  return out;
}

/** The snapshots the reserves were judged at: network, height, block time, gap to the liabilities' date. */
export function snapshotsOf(r: AnySolvencyReport): {
  network: string;
  height: number;
  block_time: string | null;
  gap: string | null;
  within_max_gap: boolean | null;
}[] {
  const all = "coins" in r ? r.coins.flatMap((c) => c.snapshots) : r.assets.flatMap((a) => a.snapshots);
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
export function auditFacts(r: AnySolvencyReport): {
  challenge: string | null;
  liabilities_date: string | null;
  liabilities_root: string | null;
  liabilities: string;
  max_gap: string;
} {
  if ("coins" in r)
    return {
      challenge: r.reserves.challenge,
      liabilities_date: r.liabilities.date,
      liabilities_root: r.liabilities.root,
      liabilities: r.liabilities.source,
      max_gap: r.max_gap,
    };
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
