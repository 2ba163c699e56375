/**
 * The report package's page (`solvency … --report DIR`, index.html): one template for both judges, drawn
 * from either report's JSON through solvency-rows.ts. Self-contained (no script, no request: its CSP is
 * `default-src 'none'`), readable at 390 px (every table in a box that scrolls sideways, never cut), printable.
 * Amounts in coin units with each asset's decimals; base units only where a column says so.
 */
import type { SolvencyReport } from "../../judge/report.js";
import { type ListOf, takeOf } from "../../util/lazy-list.js";
import { amountOf, amountText, parseUnits } from "../../util/units.js";
import { nodeWords } from "../nodes.js";
import { BASE_CSS, CHAR, COLOR, esc, fraction, hbar, htmlTable, page, svg } from "./html.js";
import {
  type AssetRow,
  auditFacts,
  findingsOf,
  type Holding,
  STATUS_WORD,
  snapshotsOf,
  VERDICT_WORD,
} from "./solvency-rows.js";

/** Who the audit is by and for, and which: given by the auditor (--auditor, --entity, --period), and derived. */
export interface Scope {
  auditor?: string;
  entity?: string;
  period?: string;
  /** the first 16 hex digits of SHA-256 over the inputs' digests: the same documents, the same id */
  audit_id: string;
  made_at: string;
}

/** A document the audit read: its path as given, its name in the package, its SHA-256, and its own digest if it states one. */
export interface InputFile {
  given: string;
  name: string;
  sha256: string;
  role: string;
  /** a chaingw proof's or commitment's `digest` member (SHA-256 of its RFC 8785 form) */
  digest?: string;
}

const WORD: Record<string, { text: string; color: string }> = {
  solvent: { text: VERDICT_WORD.solvent, color: COLOR.good },
  unproven: { text: VERDICT_WORD.unproven, color: COLOR.unknown },
  "not-solvent": { text: VERDICT_WORD["not-solvent"], color: COLOR.bad },
  "cannot-say": { text: VERDICT_WORD["cannot-say"], color: COLOR.muted },
};

/** An amount in base units of its asset, or undefined when the text is not one (the chart then leaves it out). */
function base(amount: string, decimals: number): bigint | undefined {
  try {
    return parseUnits(amount, decimals);
  } catch {
    return undefined;
  }
}

/**
 * Liabilities, proven and claimed of one asset as three bars, each under its name and amount. As narrow as
 * its longest amount (an amount of up to 40 characters: at most 390 px), so at 390 px it is drawn at its own
 * size and its 12 px text stays 11 px or more; each text held to its width (textLength), so no font cuts it.
 */
function coverageChart(a: AssetRow): string {
  const bars = [
    ["liabilities", a.liabilities, COLOR.muted],
    ["proven", a.proven, COLOR.good],
    ["claimed", a.claimed, COLOR.blue],
  ] as const;
  const values = bars.map(([, v]) => base(v, a.decimals) ?? 0n);
  const shown = bars.map(([, v]) => amountOf(v, a.decimals));
  let max = 1n;
  for (const v of values) if (v > max) max = v;
  const H = 34;
  // the value after the longest name ("liabilities") and a space
  const X = Math.ceil(12 * CHAR);
  const W = Math.max(240, Math.ceil(X + Math.max(...shown.map((s) => s.length)) * CHAR + 2));
  const rows = bars
    .map(([name, , color], i) =>
      hbar({
        y: i * H,
        h: H,
        x: X,
        width: W,
        w: fraction(values[i] as bigint, max),
        color,
        label: name,
        value: shown[i] as string,
        attrs: `class="bar" data-kind="${name}"`,
        fit: CHAR,
        above: true,
      }),
    )
    .join("");
  return `<figure class="chart"><figcaption>${esc(a.asset)}: proven ${esc(a.proven_coverage)}, claimed ${esc(a.claimed_coverage)} of the liabilities</figcaption>
${svg({ width: W, height: 3 * H, label: `${a.asset}: liabilities, proven and claimed`, asset: a.asset }, rows)}</figure>`;
}

/**
 * Holdings per network and asset: how many, claimed and proven of those counted, and what those not counted
 * claim, summed exactly. A claim whose places chaingw cannot tell ("132513768 base units") is added as written,
 * never as 0: OKX's USDT-OPTIMISM row read "claimed 0.00000000" here.
 */
function perChain(hs: ListOf<Holding>, decimalsOf: Map<string, number>): string[][] {
  type Sum = { units: bigint; other: string[] };
  const groups = new Map<
    string,
    { network: string; asset: string; n: number; claimed: Sum; proven: Sum; aside: Sum }
  >();
  const add = (s: Sum, text: string, d: number) => {
    const v = base(text, d);
    if (v === undefined) s.other.push(text);
    else s.units += v;
  };
  const zero = (): Sum => ({ units: 0n, other: [] });
  for (const h of hs) {
    const k = `${h.network}\u0000${h.asset}`;
    const g = groups.get(k) ?? {
      network: h.network,
      asset: h.asset,
      n: 0,
      claimed: zero(),
      proven: zero(),
      aside: zero(),
    };
    const d = decimalsOf.get(h.asset) ?? 0;
    g.n++;
    if (h.status === "not counted") add(g.aside, h.claimed, d);
    else {
      add(g.claimed, h.claimed, d);
      add(g.proven, h.proven, d);
    }
    groups.set(k, g);
  }
  return [...groups.values()].map((g) => {
    const d = decimalsOf.get(g.asset) ?? 0;
    const text = (s: Sum) =>
      esc([...(s.units > 0n || !s.other.length ? [amountText(s.units, d)] : []), ...s.other].join(" + "));
    return [esc(g.network), esc(g.asset), String(g.n), text(g.claimed), text(g.proven), text(g.aside)];
  });
}

/**
 * Text for a table's cell whose long tokens (an outpoint, a digest) may wrap anywhere, as code, while its
 * words stay whole: a cell is never squeezed into "reserve / s.json" (td breaks at words only; the table
 * scrolls sideways where the words do not fit).
 */
const breakable = (text: string): string => esc(text).replace(/\S{24,}/g, (t) => `<code>${t}</code>`);

/** At most this many holdings listed on the page (every one is in rows.csv). */
const HOLDINGS_LISTED = 200;
/** At most this many findings of one kind listed (the count is always given). */
const FINDINGS_LISTED = 20;

/** The scope table's rows: what the auditor gave (a package's), and what the report says of the audit. */
function scopeOf(r: SolvencyReport, scope: Scope, standalone: boolean): [string, string][] {
  const facts = auditFacts(r);
  return [
    ...(standalone
      ? []
      : ([
          ["auditor", scope.auditor ?? "not given (--auditor)"],
          ["entity", scope.entity ?? "not given (--entity)"],
          ["period", scope.period ?? "not given (--period)"],
        ] as [string, string][])),
    ["audit id", scope.audit_id],
    ["challenge", facts.challenge ?? "none: nothing is proven for an audit"],
    ["liabilities", facts.liabilities],
    ["liabilities root", facts.liabilities_root ?? "not known"],
    ["liabilities date", facts.liabilities_date ?? "not known"],
    ["reserves within", `--max-gap ${facts.max_gap} of the liabilities' date`],
    ...snapshotsOf(r).map((s): [string, string] => [
      "snapshot",
      `${s.network} at height ${s.height}, block time ${s.block_time ?? "not read"}${s.gap ? `: ${s.gap}` : ""}${s.within_max_gap === false ? " (BEYOND --max-gap)" : ""}`,
    ]),
    // which node answered for which chain, in the words of every verdict
    ...(r.nodes?.length ? [["nodes", r.nodes.map(nodeWords).join("; ")] as [string, string]] : []),
  ];
}

/** The findings, grouped by kind: each kind's count and its first texts. */
function findingsHtml(r: SolvencyReport): string {
  const groups = new Map<string, string[]>();
  for (const f of findingsOf(r)) groups.set(f.kind, [...(groups.get(f.kind) ?? []), f.text]);
  return groups.size
    ? [...groups]
        .map(
          ([kind, texts]) =>
            `<section class="finding" data-kind="${esc(kind)}"><h3>${esc(kind)} (${texts.length})</h3><ul>${texts
              .slice(0, FINDINGS_LISTED)
              .map((t) => `<li>${esc(t)}</li>`)
              .join(
                "",
              )}${texts.length > FINDINGS_LISTED ? `<li>and ${texts.length - FINDINGS_LISTED} more (rows.csv)</li>` : ""}</ul></section>`,
        )
        .join("\n")
    : "<p>None: every asset is covered by proven reserves.</p>";
}

/** `standalone`: the page `--html FILE` writes alone, its documents named where they were read (no inputs/, no manifest). */
export interface PageOptions {
  standalone?: boolean;
}

/**
 * The one solvency page, for both judges: a report package's index.html, and (standalone) the page of
 * `solvency --html FILE` of an exchange's address file.
 */
export function packagePage(
  r: SolvencyReport,
  rows: AssetRow[],
  scope: Scope,
  inputs: InputFile[],
  hs: ListOf<Holding>,
  o: PageOptions = {},
): string {
  // the first holdings listed (every one is in rows.csv): an address file's rows are made as they are read
  const listed = takeOf(hs, HOLDINGS_LISTED);
  const v = WORD[r.verdict] ?? { text: r.verdict, color: "#57606a" };
  const decimalsOf = new Map(rows.map((a) => [a.asset, a.decimals]));
  const scopeRows = scopeOf(r, scope, o.standalone === true);
  const findings = findingsHtml(r);
  return page({
    title: `Solvency: ${esc(v.text)}${scope.entity ? ` — ${esc(scope.entity)}` : ""}`,
    css: `body { font: 14px/1.45 system-ui, sans-serif; margin: 16px auto; padding: 0 12px; color: ${COLOR.text}; max-width: 1100px; overflow-wrap: anywhere; }
.verdict { font-size: 21px; font-weight: 700; color: #fff; background: ${v.color}; padding: 12px 16px; border-radius: 6px; }
${BASE_CSS}
th { white-space: nowrap; }
td { overflow-wrap: break-word; }
#scope td, td small { overflow-wrap: anywhere; }
.charts { display: flex; flex-wrap: wrap; gap: 8px 24px; }
figure.chart { margin: 0; max-width: 100%; }
@media print {
  body { max-width: none; margin: 0; padding: 0; }
  .verdict { color: #000; background: none; border: 3px solid ${v.color}; }
  table { font-size: 11px; }
  th, td, td.num { white-space: normal; overflow-wrap: anywhere; padding: 2px 4px; }
}
@page { size: A4; margin: 12mm; }`,
    body: `<p class="verdict" id="verdict" data-verdict="${esc(r.verdict)}">${esc(v.text)}: ${esc(r.summary)}</p>
<h2>Scope</h2>
<div class="scroll"><table id="scope">${scopeRows.map(([k, x]) => `<tr data-field="${esc(k)}"><th>${esc(k)}</th><td>${esc(x)}</td></tr>`).join("\n")}</table></div>
<h2>Coverage per asset</h2>
<div class="charts" id="coverage">
${rows.map(coverageChart).join("\n")}
</div>
${htmlTable(
  "assets",
  ["asset", "liabilities", "proven", "claimed", "proven coverage", "claimed coverage", "status", "short by"],
  rows.map((a) => [
    esc(a.asset),
    esc(amountOf(a.liabilities, a.decimals)),
    esc(amountOf(a.proven, a.decimals)),
    esc(amountOf(a.claimed, a.decimals)),
    esc(a.proven_coverage),
    esc(a.claimed_coverage),
    esc(STATUS_WORD[a.status] ?? a.status),
    a.shortfall ? esc(amountOf(a.shortfall, a.decimals)) : "",
  ]),
  [1, 2, 3, 4, 5, 7],
  rows.map((a) => `data-asset="${esc(a.asset)}" data-status="${esc(a.status)}"`),
)}
<h2>Per chain</h2>
${htmlTable("chains", ["network", "asset", "holdings", "claimed", "proven", "not counted (claimed)"], perChain(hs, decimalsOf), [2, 3, 4, 5])}
<h2>Findings, by kind</h2>
<div id="findings">
${findings}
</div>
<h2>Holdings judged</h2>
<p class="muted">${hs.length} holding${hs.length === 1 ? "" : "s"}${hs.length > HOLDINGS_LISTED ? `, the first ${HOLDINGS_LISTED} here` : ""}; every one, with why, in rows.csv.</p>
${htmlTable(
  "holdings",
  ["asset", "source", "network", "address", "claimed", "proven", "status", "why"],
  listed.map((h) => [
    esc(h.asset),
    breakable(h.source),
    esc(h.network),
    h.address ? `<code>${esc(h.address)}</code>` : "",
    esc(amountOf(h.claimed, decimalsOf.get(h.asset) ?? 0)),
    esc(amountOf(h.proven, decimalsOf.get(h.asset) ?? 0)),
    esc(h.status),
    esc(h.why),
  ]),
  [4, 5],
  listed.map((h) => `data-code="${esc(h.code)}"`),
)}
<h2>Documents read, with their digests</h2>
${htmlTable(
  "inputs",
  ["role", "file", "SHA-256 of the file", "digest (SHA-256 of its RFC 8785 form)"],
  inputs.map((f) => [
    esc(f.role),
    `<code>${esc(f.name)}</code>${f.given === f.name ? "" : `<br><small class="muted">${esc(f.given)}</small>`}`,
    `<code>${esc(f.sha256)}</code>`,
    f.digest ? `<code>${esc(f.digest)}</code>` : "none stated",
  ]),
)}
<p class="muted">Made by chaingw at ${esc(scope.made_at)}. ${
      o.standalone
        ? "Each document read is named above with its SHA-256. <code>solvency … --report DIR</code> writes them beside this page, with MANIFEST.sha256 over every file."
        : "Every document read is in inputs/; MANIFEST.sha256 lists every file of this package with its SHA-256 (<code>sha256sum -c MANIFEST.sha256</code>, or <code>chaingw report verify DIR</code>)."
    } This page fetches nothing.</p>`,
  });
}
