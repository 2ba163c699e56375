/**
 * `report history`: several audits' packages side by side in time — per asset the proven and claimed
 * coverage at each audit, as an inline SVG chart (`data-asset` on each) and history.csv, one row per asset
 * per audit. Self-contained like the package's page (no script, no request).
 */
import { csvTable } from "../../util/csv.js";
import { esc } from "./html.js";
import type { AssetRow } from "./solvency-rows.js";

/** One audit as its package states it. */
export interface AuditPoint {
  dir: string;
  audit_id: string;
  /** --period, else the liabilities' date, else when the package was made */
  label: string;
  /** what orders the audits: the liabilities' date, else when the package was made */
  date: string;
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
        a.liabilities,
        a.proven,
        a.claimed,
        a.proven_coverage,
        a.claimed_coverage,
        a.status,
        x.verdict,
        x.dir,
      ]),
    ),
  );

/** "82.30%" as a number for drawing (the CSV and the tables keep the text); undefined for "n/a". */
const percent = (t: string | undefined): number | undefined => {
  const m = /^(\d+(?:\.\d+)?)%$/.exec(t ?? "");
  return m ? Number(m[1]) : undefined;
};

/** One asset's proven and claimed coverage across the audits, the 100% line marked. */
function assetChart(asset: string, audits: AuditPoint[]): string {
  const W = 560;
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
    return `<g class="series" data-kind="${kind}"><polyline fill="none" stroke="${color}" stroke-width="2" points="${p
      .map(([i, v]) => `${xAt(i).toFixed(1)},${yAt(v).toFixed(1)}`)
      .join(" ")}"/>${p
      .map(
        ([i, v]) =>
          `<circle cx="${xAt(i).toFixed(1)}" cy="${yAt(v).toFixed(1)}" r="4" fill="${color}" data-audit="${esc(audits[i]?.audit_id ?? "")}" data-value="${v}"><title>${kind} ${v}%</title></circle>`,
      )
      .join("")}</g>`;
  };
  const labels = audits
    .map(
      (x, i) =>
        `<text x="${xAt(i).toFixed(1)}" y="${H - B + 16}" text-anchor="middle" class="lbl">${esc(x.label)}</text>`,
    )
    .join("");
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" data-asset="${esc(asset)}" aria-label="${esc(asset)}: proven and claimed coverage per audit" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">
<line x1="${L}" x2="${W}" y1="${yAt(100).toFixed(1)}" y2="${yAt(100).toFixed(1)}" stroke="#57606a" stroke-dasharray="4 3"/><text x="0" y="${(yAt(100) + 4).toFixed(1)}" class="lbl">100%</text>
<line x1="${L}" x2="${W}" y1="${yAt(0).toFixed(1)}" y2="${yAt(0).toFixed(1)}" stroke="#d0d7de"/><text x="0" y="${(yAt(0) + 4).toFixed(1)}" class="lbl">0%</text>
${line("claimed", "#0969da")}${line("proven", "#1a7f37")}${labels}
</svg>`;
}

export function historyPage(audits: AuditPoint[]): string {
  const assets = [...new Set(audits.flatMap((x) => x.assets.map((a) => a.asset)))];
  const sections = assets
    .map((asset) => {
      const rows = audits
        .map((x) => {
          const a = x.assets.find((y) => y.asset === asset);
          return `<tr data-audit="${esc(x.audit_id)}"><td>${esc(x.label)}</td><td>${esc(x.date)}</td><td class="num">${esc(a?.liabilities ?? "—")}</td><td class="num">${esc(a?.proven_coverage ?? "—")}</td><td class="num">${esc(a?.claimed_coverage ?? "—")}</td><td>${esc(a?.status ?? "not in this audit")}</td></tr>`;
        })
        .join("\n");
      return `<section class="asset" data-asset="${esc(asset)}"><h2>${esc(asset)}</h2>
<p class="legend"><span style="color:#1a7f37">● proven</span> <span style="color:#0969da">● claimed</span> coverage of the liabilities, per audit</p>
${assetChart(asset, audits)}
<div class="scroll"><table><tr><th>audit</th><th>liabilities' date</th><th>liabilities</th><th>proven coverage</th><th>claimed coverage</th><th>status</th></tr>
${rows}
</table></div></section>`;
    })
    .join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Solvency across ${audits.length} audits</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 16px auto; padding: 0 12px; color: #1f2328; max-width: 1000px; overflow-wrap: anywhere; }
.scroll { overflow-x: auto; max-width: 100%; margin: 8px 0 20px; }
table { border-collapse: collapse; }
th, td { border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; }
th { background: #f6f8fa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
svg { max-width: 100%; height: auto; }
.lbl { font: 11px ui-monospace, monospace; fill: #1f2328; }
@media print { .scroll { overflow: visible; } section { break-inside: avoid; } }
</style>
</head>
<body>
<h1>Solvency across ${audits.length} audits</h1>
<div class="scroll"><table id="audits"><tr><th>audit</th><th>audit id</th><th>liabilities' date</th><th>verdict</th><th>package</th></tr>
${audits.map((x) => `<tr><td>${esc(x.label)}</td><td><code>${esc(x.audit_id)}</code></td><td>${esc(x.date)}</td><td>${esc(x.verdict)}</td><td><code>${esc(x.dir)}</code></td></tr>`).join("\n")}
</table></div>
${sections}
<p>Every figure is in history.csv, one row per asset per audit. Each package's manifest was verified before it was read.</p>
</body>
</html>
`;
}
