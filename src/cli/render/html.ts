/**
 * The combined reserves report as one self-contained HTML page for an audit file: no scripts, no fonts, no
 * images or styles from anywhere (a Content-Security-Policy of `default-src 'none'` says so to the browser
 * too), charts as inline SVG. The verdict comes first, then totals per asset, the distribution of holdings
 * over addresses, the proofs' digests, and the command that verifies them again.
 */

import type { CombinedReport } from "../../reserves/combined.js";
import { ageOf, distribution } from "../../reserves/combined.js";
import { escapeUnprintable } from "../../util/escape.js";
import { amountOf } from "../../util/units.js";
import { type NodeUsed, nodesLine } from "../nodes.js";
import { provenCell } from "./report.js";

/** Text for the page: control characters shown as escapes (util/escape.ts), then HTML's own five. */
export const esc = (s: string) =>
  escapeUnprintable(s)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");

/** The pages' colours: one meaning each, on every page (verdicts, bars, lines). */
export const COLOR = {
  good: "#1a7f37",
  bad: "#cf222e",
  unknown: "#9a6700",
  muted: "#57606a",
  blue: "#0969da",
  rule: "#d0d7de",
  text: "#1f2328",
} as const;

/**
 * What every page's style shares: tables in a box that scrolls sideways (never cut at 390 px), figures
 * right-aligned in tabular digits, a table's code (a file, hash or address) at least 14 characters a line (it
 * breaks anywhere, so a narrow window squeezed it to three), charts that shrink to the window, monospace chart
 * text, printable.
 */
export const BASE_CSS = `.scroll { overflow-x: auto; max-width: 100%; margin: 8px 0 20px; }
table { border-collapse: collapse; }
th, td { border: 1px solid ${COLOR.rule}; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
code { font: 12px ui-monospace, monospace; word-break: break-all; }
td code { display: inline-block; min-width: 14ch; }
svg { max-width: 100%; height: auto; }
.lbl, .val { font: 12px ui-monospace, monospace; fill: ${COLOR.text}; }
.muted { color: ${COLOR.muted}; }
@media print { .scroll { overflow: visible; } section, figure { break-inside: avoid; } }`;

/**
 * A self-contained page: no request of any kind (a Content-Security-Policy of `default-src 'none'`; inline
 * style only; a script only when `scriptHash` names it), readable on a phone (the viewport's width).
 */
export function page(o: {
  title: string;
  css: string;
  body: string;
  scriptHash?: string;
  images?: boolean;
}): string {
  const csp = `default-src 'none'; style-src 'unsafe-inline'${o.images ? "; img-src data:" : ""}${o.scriptHash ? `; script-src 'sha256-${o.scriptHash}'` : ""}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${o.title}</title>
<style>
${o.css}
</style>
</head>
<body>
${o.body}
</body>
</html>
`;
}

/**
 * A table in a box that scrolls sideways: `head` is text (escaped here), `rows` trusted HTML cells; the
 * columns in `nums` are figures (right-aligned). `attrs` go on each row (`data-audit="…"`), trusted.
 */
export function htmlTable(
  id: string | undefined,
  head: string[],
  rows: string[][],
  nums: number[] = [],
  attrs: string[] = [],
): string {
  return `<div class="scroll"><table${id ? ` id="${id}"` : ""}>
<tr>${head.map((h) => `<th>${esc(h)}</th>`).join("")}</tr>
${rows.map((r, k) => `<tr${attrs[k] ? ` ${attrs[k]}` : ""}>${r.map((c, i) => `<td${nums.includes(i) ? ' class="num"' : ""}>${c}</td>`).join("")}</tr>`).join("\n")}
</table></div>`;
}

/** An inline chart's root: an image to assistive tools (`label`), of its own size, that scales down. */
export const svg = (o: { width: number; height: number; label: string; asset?: string }, inner: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" role="img"${o.asset === undefined ? "" : ` data-asset="${esc(o.asset)}"`} aria-label="${esc(o.label)}" width="${o.width}" height="${o.height}" viewBox="0 0 ${o.width} ${o.height}">${inner}</svg>`;

/** A fraction in [0, 1] of `v` over `max`, exact enough to draw (scaled in BigInt, then to a number below 10^6). */
export const fraction = (v: bigint, max: bigint): number =>
  max <= 0n ? 0 : Number((v * 1_000_000n) / max) / 1_000_000;

/**
 * One horizontal bar of a chart: its label, the bar (`w` of `width` px, from `x`), the value after it.
 * `attrs` go on the group (`data-kind="proven"`), trusted; label and value are escaped here.
 */
export function hbar(o: {
  y: number;
  h: number;
  x: number;
  width: number;
  w: number;
  color: string;
  label: string;
  value: string;
  attrs?: string;
  /** the width of one character: label and value held to it (no font pushes them into the bar) */
  fit?: number;
  /** the full label, when the one shown is shortened */
  title?: string;
  /**
   * label and value on a line above the bar (the value from `x`), the bar from 0 under them: a chart narrow
   * enough to be drawn at its own size at 390 px, its text never scaled down
   */
  above?: boolean;
}): string {
  const sized = (t: string) =>
    o.fit ? ` textLength="${(t.length * o.fit).toFixed(1)}" lengthAdjust="spacingAndGlyphs"` : "";
  const title = o.title ? `<title>${esc(o.title)}</title>` : "";
  if (o.above) {
    const line = o.y + Math.round(o.h * 0.42);
    const top = o.y + Math.round(o.h * 0.55);
    return `<g${o.attrs ? ` ${o.attrs}` : ""}>${title}<text x="0" y="${line}" class="lbl"${sized(o.label)}>${esc(o.label)}</text><text x="${o.x}" y="${line}" class="val"${sized(o.value)}>${esc(o.value)}</text><rect x="0" y="${top}" width="${(o.w * o.width).toFixed(1)}" height="${Math.round(o.h * 0.3)}" fill="${o.color}"/></g>`;
  }
  // the text's baseline two thirds down the row, the bar inset a sixth of it
  const line = o.y + Math.round(o.h * 0.68);
  const pad = Math.round(o.h / 6);
  return `<g${o.attrs ? ` ${o.attrs}` : ""}>${title}<text x="0" y="${line}" class="lbl"${sized(o.label)}>${esc(o.label)}</text><rect x="${o.x}" y="${o.y + pad}" width="${(o.w * o.width).toFixed(1)}" height="${o.h - 2 * pad}" fill="${o.color}"/><text x="${(o.x + o.w * o.width + 5).toFixed(1)}" y="${line}" class="val"${sized(o.value)}>${esc(o.value)}</text></g>`;
}

const VERDICT: Record<CombinedReport["verdict"], { text: string; color: string }> = {
  holds: { text: "HOLDS", color: "#1a7f37" },
  fails: { text: "FAILS", color: "#cf222e" },
  "cannot-say": { text: "CANNOT SAY", color: "#9a6700" },
  "not-verified": { text: "NOT VERIFIED", color: "#57606a" },
};

/** Width of one character of the charts' 12 px monospace text (0.6 em, with room to spare). */
export const CHAR = 7.4;
/**
 * The widest a distribution chart is drawn: inside a 390 px window less the page's margins (24 px a side)
 * and a scrollbar, so it is drawn at its own size there and its 12 px text is never scaled below 11 px.
 */
const CHART_MAX = 330;
/** A label longer than `max` characters shortened in the middle (the full text is the row's tooltip). */
const shorten = (s: string, max: number) =>
  s.length <= max ? s : `${s.slice(0, max - 13)}…${s.slice(s.length - 12)}`;

/**
 * Horizontal bars: the largest holdings of one asset and the rest, each under its address and share of the
 * total. As wide as its longest label and share, at most CHART_MAX (a longer address shortened in the middle,
 * whole in its tooltip); each text held to the width it was given (textLength), so no font pushes it out.
 * The chart and each bar carry the asset's name (`data-asset`).
 */
function chart(a: CombinedReport["proofs"][number]["assets"][number]): string {
  const rows = distribution(a);
  if (rows.length === 0) return `<p class="muted">no address holds any ${esc(a.symbol)}</p>`;
  const SHARE = Math.ceil(Math.max(...rows.map((r) => r.share.length)) * CHAR) + 6;
  const fits = Math.floor((CHART_MAX - SHARE - 12) / CHAR);
  const labels = rows.map((r) => shorten(r.label, fits));
  const LABEL = Math.ceil(Math.max(...labels.map((l) => l.length)) * CHAR) + 12;
  const W = Math.max(240, LABEL + SHARE);
  const H = 34;
  let max = 1n;
  for (const r of rows) if (r.base_units > max) max = r.base_units;
  const bars = rows
    .map((r, i) =>
      hbar({
        y: i * H,
        h: H,
        x: LABEL,
        width: W,
        w: fraction(r.base_units, max),
        color: COLOR.blue,
        label: labels[i] as string,
        value: r.share,
        attrs: `class="row" data-asset="${esc(a.symbol)}"`,
        fit: CHAR,
        above: true,
        ...(labels[i] === r.label ? {} : { title: r.label }),
      }),
    )
    .join("\n");
  return svg(
    {
      width: W,
      height: rows.length * H,
      label: `distribution of ${a.symbol} over addresses`,
      asset: a.symbol,
    },
    `\n${bars}\n`,
  );
}

/** The verdict the page leads with, when it is not the reserves report's own (solvency's). */
/** The nodes an audit read, in the one sentence every verdict ends with (cli/nodes.ts), as a line of a page. */
export const nodesHtml = (nodes: readonly NodeUsed[] | undefined): string =>
  nodesLine(nodes ?? [])
    .map((l) => `<p class="muted" id="nodes">${esc(l)}</p>\n`)
    .join("");

export interface Lead {
  text: string;
  verdict: string;
  summary: string;
  tone: "good" | "bad" | "unknown";
}

const TONE: Record<Lead["tone"], string> = { good: "#1a7f37", bad: "#cf222e", unknown: "#9a6700" };

/** At most this many owned addresses listed per proof (the count is always given). */
const OWNED_LISTED = 50;

/**
 * What each proof was judged on: its height and how far below the node's tip, its age, the challenge, the
 * confirmation cutoff, the node that verified it, and the addresses proven owned (or, unverified, claimed).
 */
function judgedTable(r: CombinedReport, at: Date): string {
  const rows = r.proofs.map((p) => {
    const tip = p.verify?.chain.tip;
    const age = ageOf(p.claims.created_at, at);
    const owned = p.verify ? p.verify.owned : p.claims.signed;
    const list = owned
      .slice(0, OWNED_LISTED)
      .map((a) => `<code>${esc(a)}</code>`)
      .join("<br>");
    const more = owned.length > OWNED_LISTED ? `<br>and ${owned.length - OWNED_LISTED} more` : "";
    return `<tr data-file="${esc(p.file)}"><td>${esc(p.file)}</td><td class="num">${p.snapshot === "scan" ? "height" : "block"} ${p.block}${tip === null || tip === undefined ? "" : `<br><small>${tip - p.block} below the node's tip ${tip}</small>`}</td><td>${esc(p.claims.created_at)}${age ? `<br><small>${esc(age)} before this page</small>` : ""}</td><td>${p.claims.challenge === null ? "none" : `<code>${esc(p.claims.challenge)}</code>`}</td><td>${p.claims.min_conf === undefined ? "none" : `${p.claims.min_conf} confirmations`}</td><td>${p.verify ? esc(p.verify.chain.node || "(no answer)") : "not verified"}</td><td class="owned">${owned.length} ${p.verify ? "proven owned" : "signed, as the document claims (not verified)"}${owned.length ? `<br>${list}${more}` : ""}</td></tr>`;
  });
  return `<div class="scroll"><table id="judged">
<tr><th>file</th><th>judged at</th><th>made (the proof's claim)</th><th>challenge</th><th>confirmation cutoff</th><th>verifying node</th><th>addresses</th></tr>
${rows.join("\n")}
</table></div>`;
}

/**
 * The page; `extra` (trusted HTML, e.g. solvency's table) goes right under the verdict; `lead`, when given,
 * is the verdict the page leads with (solvency's), so no reserves "HOLDS" stands above a "NOT SOLVENT".
 */
export function reportHtml(
  r: CombinedReport & { nodes?: readonly NodeUsed[] },
  at: Date,
  extra = "",
  lead?: Lead,
): string {
  const own = VERDICT[r.verdict];
  const v = lead
    ? { text: lead.text, color: TONE[lead.tone], verdict: lead.verdict, summary: lead.summary }
    : { ...own, verdict: r.verdict, summary: r.summary };
  const totals = r.proofs
    .flatMap((p) =>
      p.assets.map(
        (a) =>
          `<tr><td>${esc(p.chain)}</td><td>${esc(a.symbol)}${a.contract ? `<br><small>${esc(a.contract)}</small>` : ""}</td><td class="num">${p.block}${p.snapshot === "latest-only" ? " (head)" : ""}</td><td class="num total" data-symbol="${esc(a.symbol)}" data-base-units="${esc(a.total_base_units)}">${esc(amountOf(a.total, a.decimals ?? 0))}</td><td class="num base">${esc(a.total_base_units)}</td><td class="num">${a.holders} of ${a.addresses}</td><td>${esc(provenCell(a, p.verify !== undefined))}</td><td>${esc(p.verify ? VERDICT[p.verify.verdict].text.toLowerCase() : p.digest_ok ? "digest ok" : "DIGEST FAILS")}</td></tr>`,
      ),
    )
    .join("\n");
  const charts = r.proofs
    .flatMap((p) =>
      p.assets.map(
        (a) =>
          `<section class="chart"><h3>${esc(a.symbol)} on ${esc(p.chain)}: ${esc(amountOf(a.total, a.decimals ?? 0))} over ${a.holders} address${a.holders === 1 ? "" : "es"}</h3>\n${chart(a)}</section>`,
      ),
    )
    .join("\n");
  const digests = r.proofs
    .map(
      (p) =>
        `<tr><td>${esc(p.file)}</td><td>${esc(p.format)}</td><td><code>${esc(p.block_hash)}</code></td><td><code class="digest">${esc(p.digest)}</code></td><td>${p.digest_ok ? "matches" : "<b>DOES NOT MATCH</b>"}</td></tr>${p.verify ? `<tr><td></td><td colspan="4">${esc(p.verify.summary)}</td></tr>` : ""}`,
    )
    .join("\n");
  return page({
    title: `${lead ? "Solvency" : "Reserves report"}: ${esc(v.text)}`,
    images: true,
    css: `body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #1f2328; max-width: 1200px; overflow-wrap: anywhere; }
.verdict { font-size: 22px; font-weight: 700; color: #fff; background: ${v.color}; padding: 12px 16px; border-radius: 6px; }
/* a table wider than the window scrolls sideways in its box, never cut, the page itself never wider */
.scroll { overflow-x: auto; max-width: 100%; margin: 8px 0 20px; }
table { border-collapse: collapse; max-width: 100%; }
th, td { border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
/* a table's words stay whole (narrower than the table, it scrolls); long figures and addresses break where
   they must, so every column stays in a desktop's window */
th { white-space: nowrap; }
td { overflow-wrap: break-word; }
td.total, td.base, td small, code { overflow-wrap: anywhere; word-break: break-all; }
td.base { max-width: 220px; font-size: 12px; }
svg { max-width: 100%; height: auto; }
code { font: 12px ui-monospace, monospace; }
.lbl, .val { font: 12px ui-monospace, monospace; fill: #1f2328; }
.muted { color: #57606a; }
pre { background: #f6f8fa; padding: 8px; white-space: pre-wrap; overflow-wrap: anywhere; }`,
    body: `<p class="verdict" id="verdict" data-verdict="${esc(v.verdict)}">${esc(v.text)}: ${esc(v.summary)}</p>
${lead ? `<p class="muted" id="reserves-verdict" data-verdict="${esc(r.verdict)}">The reserve proofs themselves: ${esc(own.text.toLowerCase())}: ${esc(r.summary)}</p>\n` : ""}
${nodesHtml(r.nodes)}${extra}<h2>Totals per asset</h2>
<div class="scroll"><table id="totals">
<tr><th>chain</th><th>asset</th><th>height / block</th><th>total</th><th>base units</th><th>holders</th><th>proven owned</th><th>verdict</th></tr>
${totals}
</table></div>
<h2>Distribution of holdings</h2>
${charts}
<h2>What each proof was judged on</h2>
${judgedTable(r, at)}
<h2>Proofs and digests</h2>
<div class="scroll"><table id="digests">
<tr><th>file</th><th>format</th><th>block hash</th><th>digest (SHA-256 of the RFC 8785 form)</th><th>digest</th></tr>
${digests}
</table></div>
<h2>Verify again</h2>
<pre id="command">${esc(r.command)}</pre>
<p class="muted">Made by chaingw at ${esc(at.toISOString())}. This page fetches nothing: every figure is in it.</p>`,
  });
}
