/**
 * Solvency's per-asset rows, read from the one report `solvency --json` prints (judge/report.ts), whichever
 * input fed the judge (chaingw's own proofs, an exchange's address file): the CSV of `--format csv` and the
 * report package's tables and chart read these, so every audit is drawn one way. Amounts stay the report's
 * exact decimal text, in the asset's units.
 */
import type { SolvencyAsset, SolvencyReport } from "../../judge/report.js";
import type { Proof } from "../../proof/document.js";
import type { EvmProof } from "../../proof/evm-document.js";
import { csvTable } from "../../util/csv.js";
import { escapeDeep } from "../../util/escape.js";
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

/**
 * chaingw's own reserve proofs as solvency read them: each document's outputs (UTXO) or balances (EVM), and
 * the addresses a signature was proven to own (the verifier's, with --verify; null: not verified).
 */
export interface OwnDocument {
  file: string;
  utxo?: Proof;
  evm?: EvmProof;
  owned: string[] | null;
  /** each output spent since the proof's height, as the verifying node said */
  spent: Record<string, { height: number }>;
}

type OwnAsset = SolvencyReport["assets"][number];
type OwnProof = OwnAsset["proofs"][number];

/** The joint height a UTXO proof of `a` was judged at: its network's snapshot (one height per network). */
function jointOf(a: OwnAsset, p: OwnProof): number {
  const heights = a.snapshots.filter((s) => s.kind === "height");
  const mine =
    heights.find((s) => p.is.includes(s.network)) ?? (heights.length === 1 ? heights[0] : undefined);
  return mine?.height ?? p.height;
}

/**
 * One holding of a counted proof: proven when its proof proves for this audit and a signature over the
 * audit's challenge was proven for its address; else claimed, and why.
 */
function heldWhy(p: OwnProof, d: OwnDocument, address: string, at: string): Pick<Holding, "status" | "why"> {
  const owned = d.owned?.some((x) => x.toLowerCase() === address.toLowerCase());
  if (p.not_for_this_audit) return { status: "claimed", why: p.not_for_this_audit };
  if (d.owned === null)
    return { status: "claimed", why: `held at ${at} as the document states (not verified: --verify)` };
  if (!owned)
    return {
      status: "claimed",
      why: `held at ${at}; no signature over the audit's challenge proven for this address`,
    };
  if (p.proven === "0" || p.check !== "holds")
    return {
      status: "claimed",
      why: `held at ${at}; the proof ${p.check === "holds" ? "proves nothing for this audit" : `does not hold (${p.check})`}`,
    };
  return {
    status: "proven",
    why: `held at ${at} (re-read on the node); its address signed the audit's challenge`,
  };
}

/**
 * Every output (UTXO) or balance (EVM) of chaingw's own proofs, one row each, per address, with why it counts
 * as it does: the judge's exclusions as its report names them (spent by the joint height, before the
 * liabilities' date, before the asset's moment; counted once when two proofs hold it), the proof's own
 * standing, and the address's signature.
 */
function ownHoldings(a: OwnAsset, docs: OwnDocument[]): Holding[] {
  const out: Holding[] = [];
  {
    const seen = new Map<string, string>();
    const gone = new Map<string, string>();
    for (const x of a.spent_before_commitment)
      gone.set(
        x.output,
        `spent in block ${x.height} (${x.time ?? "its time unknown"}), at or before the liabilities' date`,
      );
    for (const x of a.moved_before_moment)
      gone.set(
        x.output,
        `spent in block ${x.height} (${x.time ?? "its time unknown"}), before the ${a.asset} moment`,
      );
    const amount = (v: string) => amountOf(v, a.decimals);
    for (const p of a.proofs) {
      const d = docs.find((x) => x.file === p.file);
      const rows: { key: string; source: string; address: string; claimed: string }[] = [];
      if (d?.utxo)
        for (const o of d.utxo.outputs)
          rows.push({
            key: `${o.txid}:${o.vout}`,
            source: `${p.file} ${o.txid}:${o.vout}`,
            address: o.matched,
            claimed: o.amount,
          });
      const ev = d?.evm?.assets.find((x) => x.id === (p.id ?? "native"));
      if (ev)
        for (const b of ev.balances)
          if (b.base_units !== "0")
            rows.push({
              key: `${ev.id} ${b.address}`,
              source: `${p.file}${p.id ? `#${p.id}` : ""}`,
              address: b.address,
              claimed: b.amount,
            });
      if (!d || rows.length === 0) {
        out.push(...proofHolding(a, p));
        continue;
      }
      const joint = jointOf(a, p);
      const at = `${d.utxo ? "height" : "block"} ${d.utxo ? joint : p.height}`;
      for (const x of rows) {
        const base = {
          asset: a.asset,
          source: x.source,
          network: p.is,
          address: x.address,
          claimed: amount(x.claimed),
        };
        const spent = d.spent[x.key];
        const why = !p.counted
          ? `the proof is not counted: ${p.why ?? p.is}`
          : spent !== undefined && spent.height <= joint
            ? `spent in block ${spent.height}, at or below the joint height ${joint}`
            : (gone.get(x.key) ??
              (seen.has(x.key) ? `also in ${seen.get(x.key)}: counted once, there` : undefined));
        if (why !== undefined) {
          out.push({ ...base, claimed: amount(x.claimed), proven: amount("0"), status: "not counted", why });
          continue;
        }
        seen.set(x.key, p.file);
        const j = heldWhy(p, d, x.address, at);
        out.push({ ...base, proven: amount(j.status === "proven" ? x.claimed : "0"), ...j });
      }
    }
  }
  return out;
}

/** A proof as one holding, where its document was not given (the proof's own claimed and proven). */
function proofHolding(a: OwnAsset, p: OwnProof): Holding[] {
  return [
    {
      asset: a.asset,
      source: `${p.file}${p.id ? `#${p.id}` : ""}`,
      network: p.is,
      address: "",
      claimed: amountOf(p.counted ? p.claimed : "0", a.decimals),
      proven: amountOf(p.counted ? p.proven : "0", a.decimals),
      status: !p.counted ? "not counted" : p.proven !== "0" ? "proven" : "claimed",
      why: !p.counted
        ? (p.why ?? "not counted")
        : (p.not_for_this_audit ?? `${p.check}${p.summary ? `: ${p.summary}` : ""}`),
    },
  ];
}

/** A row's network as its file names it; a row that names none is on its coin's own chain (HTX's `BTC`, OKX's `LTC`). */
const networkOf = (x: { coin: string; network: string }): string => x.network || `${x.coin} (its own chain)`;

/** An address file's rows of an asset as holdings: those counted (proven or claimed) and those not, with why. */
function rowHoldings(a: SolvencyAsset): Holding[] {
  return [
    ...(a.rows ?? []).map(
      (x): Holding => ({
        asset: a.asset,
        source: `line ${x.line}`,
        network: networkOf(x),
        address: x.address,
        claimed: amountOf(x.amount, a.decimals),
        proven: amountOf(x.proven ? x.amount : "0", a.decimals),
        status: x.proven ? "proven" : "claimed",
        why:
          x.not_for_this_audit ??
          (x.proven
            ? "signed over the audit's text, the balance read at the snapshot"
            : "signed, the amount as the file claims it"),
      }),
    ),
    ...(a.not_counted ?? []).map(
      (x): Holding => ({
        asset: a.asset,
        source: `line ${x.line}`,
        network: networkOf(x),
        address: "",
        claimed: amountOf("0", a.decimals),
        proven: amountOf("0", a.decimals),
        status: "not counted",
        why: `${x.status}: ${x.why}`,
      }),
    ),
  ];
}

/**
 * Every holding the report judged, with why it counts as it does: an address file's rows; chaingw's own
 * proofs' outputs and balances, one per address, when their documents are given (else one line per proof).
 */
export function holdings(r: SolvencyReport, docs?: OwnDocument[]): Holding[] {
  return r.assets.flatMap((a) =>
    a.rows !== undefined
      ? rowHoldings(a)
      : docs
        ? ownHoldings(a, docs)
        : a.proofs.flatMap((p) => proofHolding(a, p)),
  );
}

/** rows.csv: every holding judged, with why. */
export const holdingsCsv = (hs: Holding[]): string =>
  csvTable(
    ["asset", "source", "network", "address", "claimed", "proven", "status", "why"],
    hs.map((h) => [h.asset, h.source, h.network, h.address, h.claimed, h.proven, h.status, h.why]),
  );

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
  if (r.exchange_liabilities?.note) add("liabilities", r.exchange_liabilities.note);
  for (const a of r.assets) {
    if (a.status !== "covered") add(`asset ${a.status}`, a.why);
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
