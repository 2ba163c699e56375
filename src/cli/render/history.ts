/**
 * `report history`: several audits' packages side by side in time — per asset the proven and claimed
 * coverage at each audit, as an inline SVG chart (`data-asset` on each) and history.csv, one row per asset
 * per audit. Self-contained like the package's page (no script, no request).
 */
import { csvTable } from "../../util/csv.js";
import { amountOf } from "../../util/units.js";
import { BASE_CSS, CHAR, COLOR, esc, htmlTable, page, svg } from "./html.js";
import type { AssetRow } from "./solvency-rows.js";

/** One audit as its package states it. */
export interface AuditPoint {
  dir: string;
  audit_id: string;
  /** --period, else the liabilities' date, else when the package was made */
  label: string;
  /** whose audit (--entity) and by whom (--auditor), where the package names them */
  entity?: string;
  auditor?: string;
  /** what orders the audits: the liabilities' date, else when the package was made */
  date: string;
  /** whether `date` is the liabilities' own (false: they state none, it is when the package was made) */
  dated: boolean;
  verdict: string;
  assets: AssetRow[];
}

const HEAD = [
  "date",
  "label",
  "audit_id",
  "asset",
  "liabilities",
  "proven",
  "claimed",
  "proven_coverage",
  "claimed_coverage",
  "status",
  "verdict",
  "package",
  "date_is",
  "entity",
  "auditor",
] as const;

export const historyCsv = (audits: AuditPoint[]): string =>
  csvTable(
    [...HEAD],
    audits.flatMap((x) =>
      x.assets.map((a) => [
        x.date,
        x.label,
        x.audit_id,
        a.asset,
        // the one way, at the asset's decimals, whatever the package's solvency.json wrote
        amountOf(a.liabilities, a.decimals),
        amountOf(a.proven, a.decimals),
        amountOf(a.claimed, a.decimals),
        a.proven_coverage,
        a.claimed_coverage,
        a.status,
        x.verdict,
        x.dir,
        // what `date` is: the liabilities' own, or (they state none) when the package was made
        x.dated ? "liabilities" : "package made",
        x.entity ?? "",
        x.auditor ?? "",
      ]),
    ),
  );

/** "82.30%" as a number for drawing (the CSV and the tables keep the text); undefined for "n/a". */
const percent = (t: string | undefined): number | undefined => {
  const m = /^(\d+(?:\.\d+)?)%$/.exec(t ?? "");
  return m ? Number(m[1]) : undefined;
};

/**
 * One asset's proven and claimed coverage across the audits, the 100% line marked. 340 px wide: drawn at its
 * own size in a 390 px window (the page's 12 px padding a side), so its 12 px text is never scaled below 11 px.
 * The chart and each series carry the asset's name (`data-asset`).
 */
function assetChart(asset: string, audits: AuditPoint[]): string {
  const W = 340;
  const H = 220;
  const L = 48;
  const B = 40;
  const pts = audits.map((x) => x.assets.find((a) => a.asset === asset));
  const values = pts.flatMap((a) => [percent(a?.proven_coverage), percent(a?.claimed_coverage)]);
  const top = Math.max(100, ...values.filter((v): v is number => v !== undefined)) * 1.1;
  const xAt = (i: number) =>
    L + (audits.length === 1 ? (W - L) / 2 : (i * (W - L - 20)) / (audits.length - 1) + 10);
  const yAt = (v: number) => H - B - (v / top) * (H - B - 10);
  const line = (kind: "proven" | "claimed", color: string) => {
    const p = pts
      .map((a, i) => [i, percent(kind === "proven" ? a?.proven_coverage : a?.claimed_coverage)] as const)
      .filter((x): x is readonly [number, number] => x[1] !== undefined);
    return `<g class="series" data-kind="${kind}" data-asset="${esc(asset)}"><polyline fill="none" stroke="${color}" stroke-width="2" points="${p
      .map(([i, v]) => `${xAt(i).toFixed(1)},${yAt(v).toFixed(1)}`)
      .join(" ")}"/>${p
      .map(
        ([i, v]) =>
          `<circle cx="${xAt(i).toFixed(1)}" cy="${yAt(v).toFixed(1)}" r="4" fill="${color}" data-audit="${esc(audits[i]?.audit_id ?? "")}" data-value="${v}"><title>${esc(audits[i]?.label ?? "")}: ${kind} ${v}%</title></circle>`,
      )
      .join("")}</g>`;
  };
  // the first label from its point on, the last up to it: neither runs off the chart's edge
  const anchorAt = (i: number) =>
    audits.length === 1 ? "middle" : i === 0 ? "start" : i === audits.length - 1 ? "end" : "middle";
  // an audit's label under every `step`-th point, so no two run into each other (every point's own title
  // names its audit): the widest label and a gap between neighbours
  const widest = Math.max(...audits.map((x) => x.label.length)) * CHAR + 8;
  const gap = audits.length > 1 ? (W - L - 20) / (audits.length - 1) : W;
  const step = Math.max(1, Math.ceil(widest / gap));
  const labels = audits
    .map((x, i) =>
      i % step === 0
        ? `<text x="${xAt(i).toFixed(1)}" y="${H - B + 16}" text-anchor="${anchorAt(i)}" class="lbl">${esc(x.label)}</text>`
        : "",
    )
    .join("");
  return svg(
    { width: W, height: H, label: `${asset}: proven and claimed coverage per audit`, asset },
    `
<line x1="${L}" x2="${W}" y1="${yAt(100).toFixed(1)}" y2="${yAt(100).toFixed(1)}" stroke="${COLOR.muted}" stroke-dasharray="4 3"/><text x="0" y="${(yAt(100) + 4).toFixed(1)}" class="lbl">100%</text>
<line x1="${L}" x2="${W}" y1="${yAt(0).toFixed(1)}" y2="${yAt(0).toFixed(1)}" stroke="${COLOR.rule}"/><text x="0" y="${(yAt(0) + 4).toFixed(1)}" class="lbl">0%</text>
${line("claimed", COLOR.blue)}${line("proven", COLOR.good)}${labels}
`,
  );
}

/** The liabilities' date, or that they state none (the audit placed by when its package was made). */
const dateCell = (x: AuditPoint): string =>
  x.dated
    ? esc(x.date)
    : `not stated <small class="muted">(placed by when the package was made, ${esc(x.date)})</small>`;

export function historyPage(audits: AuditPoint[]): string {
  const assets = [...new Set(audits.flatMap((x) => x.assets.map((a) => a.asset)))];
  const sections = assets
    .map((asset) => {
      const rows = audits.map((x) => {
        const a = x.assets.find((y) => y.asset === asset);
        return {
          attrs: `data-audit="${esc(x.audit_id)}"`,
          cells: [
            esc(x.label),
            dateCell(x),
            esc(a ? amountOf(a.liabilities, a.decimals) : "—"),
            esc(a?.proven_coverage ?? "—"),
            esc(a?.claimed_coverage ?? "—"),
            esc(a?.status ?? "not in this audit"),
          ],
        };
      });
      return `<section class="asset" data-asset="${esc(asset)}"><h2>${esc(asset)}</h2>
<p class="legend"><span style="color:${COLOR.good}">● proven</span> <span style="color:${COLOR.blue}">● claimed</span> coverage of the liabilities, per audit</p>
${assetChart(asset, audits)}
${htmlTable(
  undefined,
  ["audit", "liabilities' date", "liabilities", "proven coverage", "claimed coverage", "status"],
  rows.map((r) => r.cells),
  [2, 3, 4],
  rows.map((r) => r.attrs),
)}</section>`;
    })
    .join("\n");
  const entity = audits.find((x) => x.entity !== undefined)?.entity;
  const title = `Solvency across ${audits.length} audits${entity === undefined ? "" : ` of ${entity}`}`;
  return page({
    title: esc(title),
    css: `body { font: 14px/1.45 system-ui, sans-serif; margin: 16px auto; padding: 0 12px; color: ${COLOR.text}; max-width: 1000px; overflow-wrap: anywhere; }
${BASE_CSS}
th { white-space: nowrap; }
td { overflow-wrap: break-word; }
td small, td code { overflow-wrap: anywhere; }`,
    body: `<h1 id="title">${esc(title)}</h1>
${htmlTable(
  "audits",
  ["audit", "audit id", "entity", "auditor", "liabilities' date", "verdict", "package"],
  audits.map((x) => [
    esc(x.label),
    `<code>${esc(x.audit_id)}</code>`,
    x.entity === undefined ? '<span class="muted">not stated</span>' : esc(x.entity),
    x.auditor === undefined ? '<span class="muted">not stated</span>' : esc(x.auditor),
    dateCell(x),
    esc(x.verdict),
    `<code>${esc(x.dir)}</code>`,
  ]),
)}
${sections}
<p>Every figure is in history.csv, one row per asset per audit. Each package's manifest was verified before it was read.</p>`,
  });
}
