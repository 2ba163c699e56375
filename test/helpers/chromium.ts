/**
 * Pages opened in real headless Chromium (Debian's, installed by scripts/setup.sh): the DOM after the page's
 * own script ran, and a page's layout measured in a frame of a given width (a headless window is at least
 * 500 px wide, so 390 px is a frame's width, measured from outside it).
 */
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { expect } from "vitest";
import { HANG_GUARD_MS, trackDir } from "./procs.js";

export const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find(existsSync);
export const ARTEFACT_DIR = join(tmpdir(), "chaingw-test-artefacts");

function args(width: number, extra: string[]): string[] {
  expect(
    CHROMIUM,
    "chromium is missing: run scripts/setup.sh as root (apt-get install -y chromium)",
  ).toBeTruthy();
  const profile = mkdtempSync(join(tmpdir(), "chaingw-chromium-"));
  trackDir(profile);
  return [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    `--user-data-dir=${profile}`,
    `--window-size=${width},1600`,
    ...extra,
  ];
}

/** The page's DOM after its script ran (`hash`: a URL fragment, `#root=…`). */
export async function domOf(
  file: string,
  o: { width?: number; hash?: string; extra?: string[] } = {},
): Promise<string> {
  const r = await execa(
    CHROMIUM as string,
    [
      ...args(o.width ?? 1280, o.extra ?? []),
      "--dump-dom",
      "--virtual-time-budget=5000",
      `file://${file}${o.hash ?? ""}`,
    ],
    { timeout: HANG_GUARD_MS, reject: false },
  );
  return String(r.stdout);
}

/** A screenshot of the page at `width`, under ARTEFACT_DIR, to look at; its path. */
export async function screenshot(file: string, width: number, name: string): Promise<string> {
  const { mkdirSync, statSync } = await import("node:fs");
  mkdirSync(ARTEFACT_DIR, { recursive: true });
  const shot = join(ARTEFACT_DIR, `${name}-${width}px.png`);
  await execa(
    CHROMIUM as string,
    [...args(width, []), "--virtual-time-budget=3000", `--screenshot=${shot}`, `file://${file}`],
    {
      timeout: HANG_GUARD_MS,
      reject: false,
    },
  );
  expect(statSync(shot).size).toBeGreaterThan(5_000);
  return shot;
}

/**
 * The page in a frame `width` px wide, measured from outside once its script had time: the frame's
 * viewport and scroll width, and `more` (a JS expression over the frame's document `d`).
 */
export async function layoutIn(
  page: string,
  width: number,
  more = "null",
): Promise<{ viewport: number; scroll: number; more: unknown }> {
  const frame = page.replace(/\.html$/, `.frame-${width}.html`);
  writeFileSync(
    frame,
    `<!doctype html><body style="margin:0"><iframe id="f" src="file://${page}" style="border:0;width:${width}px;height:1600px"></iframe><script>setTimeout(() => {
const d = document.getElementById("f").contentDocument;
const pre = document.createElement("pre"); pre.id = "layout";
pre.textContent = JSON.stringify({ viewport: d.documentElement.clientWidth, scroll: d.documentElement.scrollWidth, more: (${more}) });
document.body.appendChild(pre); }, 1500);</script></body>`,
  );
  const d = await domOf(frame, { width: 1400, extra: ["--allow-file-access-from-files"] });
  const m = /<pre id="layout">([^<]*)<\/pre>/.exec(d);
  expect(m, d.slice(-400)).toBeTruthy();
  return JSON.parse(
    (m?.[1] ?? "")
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, "&")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">"),
  );
}

/**
 * A `layoutIn` expression: the words of the page's table cells (not the scope table's, nor code or small
 * text, which may wrap anywhere) that the layout broke across lines — "reserve|s.json", "ARBITRU|M" (a break
 * after a hyphen, the browser's own, is none).
 */
export const BROKEN_WORDS = `[...d.querySelectorAll("table:not(#scope) td")].flatMap((td) => {
  const out = [];
  const walk = d.createTreeWalker(td, 4);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    if (n.parentElement.closest("code, small")) continue;
    for (const m of n.data.matchAll(/[^\\s-]+/g)) {
      const r = d.createRange();
      r.setStart(n, m.index);
      r.setEnd(n, m.index + m[0].length);
      const tops = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top)));
      if (tops.size > 1) out.push(m[0]);
    }
  }
  return out;
})`;

/**
 * The page printed by Chromium (`--print-to-pdf`, no header or footer) to `pdf`: its pages' sizes in points
 * as the PDF states them (each page's MediaBox), one per page.
 */
export async function printToPdf(file: string, pdf: string): Promise<string[]> {
  const { readFileSync } = await import("node:fs");
  await execa(
    CHROMIUM as string,
    [...args(1280, []), "--no-pdf-header-footer", `--print-to-pdf=${pdf}`, `file://${file}`],
    { timeout: HANG_GUARD_MS, reject: false },
  );
  const text = readFileSync(pdf).toString("latin1");
  expect(text.startsWith("%PDF-"), `${pdf} is no PDF`).toBe(true);
  return [...text.matchAll(/\/MediaBox \[([^\]]*)\]/g)].map((m) => (m[1] as string).trim());
}

/**
 * `layoutIn` under the page's print style: a copy whose `@media print` rules apply on screen, measured in a
 * frame as wide as the printed page's content (A4, 210 mm less its margins: `width` px at 96 px per inch).
 */
export async function printLayoutIn(
  page: string,
  width: number,
  more = "null",
): Promise<{ viewport: number; scroll: number; more: unknown }> {
  const { readFileSync } = await import("node:fs");
  const copy = page.replace(/\.html$/, ".print.html");
  writeFileSync(copy, readFileSync(page, "utf8").replace(/@media print \{/g, "@media all {"));
  return layoutIn(copy, width, more);
}

/** One text of a page's charts as drawn: its size in CSS px (font size × the chart's scale), and whether it is inside its chart. */
export interface ChartText {
  text: string;
  px: number;
  inside: boolean;
}

/** A `layoutIn` expression: every text of the charts that carry `data-asset`, as `ChartText`. */
export const CHART_TEXT = `[...d.querySelectorAll("svg[data-asset] text")].map((t) => {
  const r = t.getBoundingClientRect();
  const s = t.ownerSVGElement.getBoundingClientRect();
  return { text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a, inside: r.left >= s.left - 0.5 && r.right <= s.right + 0.5 };
})`;

/**
 * A `layoutIn` expression: the code of table cells (file names, hashes, addresses) that the layout squeezed
 * to fewer than 12 characters a line (its last line aside) — at 390 px the package's `inputs/commitment.json` read
 * "inp|ut|s/c|omm|itm|…", three letters a line, in a table that scrolls anyway.
 */
export const SQUEEZED_CODE = `[...d.querySelectorAll("td code")].filter((c) => {
  const r = d.createRange();
  r.selectNodeContents(c);
  const lines = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top))).size;
  return lines > Math.ceil(c.textContent.length / 12);
}).map((c) => c.textContent)`;
