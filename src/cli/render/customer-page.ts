/**
 * `liabilities proof ID --html FILE`: the customer's own page. One self-contained file, no request of any
 * kind (a Content-Security-Policy of `default-src 'none'` lets only its own script run, by its hash): it
 * holds the customer's inclusion proof and checks it in the browser, offline, with Web Crypto — the tag
 * HMAC-SHA256(secret, id), each leaf SHA-256(0x00 ‖ tag ‖ part ‖ parts ‖ amounts), each parent SHA-256(0x01 ‖
 * left record ‖ right record) with its sums added (docs/liabilities.md) — up to the tree's top, and
 * (merkle-sum-sha256/v1.1) the announced root SHA-256(0x03 ‖ u32 count ‖ per asset: u8 length ‖ name ‖ u8
 * decimals ‖ the top hash) over the asset table the proof carries, then shows that root for the customer to
 * compare with the one the exchange announced. Words: the root is the tree's top
 * hash; a digest is the SHA-256 of a document (the commitment's).
 */
import { createHash } from "node:crypto";
import type { Asset } from "../../liabilities/input.js";
import type { ProofDocument } from "../../liabilities/proof.js";
import { amountOf } from "../../util/units.js";
import { COLOR, esc, page } from "./html.js";

/**
 * The check, run by the browser on load. It trusts nothing the proof says about hashes: the leaves are
 * recomputed from the secret, the id and the amounts; a leaf that does not reach the proof's root, a
 * balance that is not what the leaves add up to, a part missing or given twice, an amount that is negative
 * or past 128 bits: it does not hold, each named.
 */
const CHECK = `(async () => {
const $ = (id) => document.getElementById(id);
const data = JSON.parse($("proof-data").textContent);
const p = data.proof;
const say = (verdict, title, lines) => {
  const v = $("verdict");
  v.dataset.verdict = verdict;
  v.textContent = title;
  const ul = $("why");
  ul.textContent = "";
  for (const l of lines) { const li = document.createElement("li"); li.textContent = l; ul.appendChild(li); }
};
if (!globalThis.crypto || !crypto.subtle) {
  say("cannot-say", "CANNOT SAY: this browser gives this page no Web Crypto (SHA-256): open it in a current browser", []);
  return;
}
const enc = new TextEncoder();
const hexOf = (b) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, "0")).join("");
const bytesOf = (h) => Uint8Array.from(h.match(/../g) || [], (x) => parseInt(x, 16));
const sha = async (b) => new Uint8Array(await crypto.subtle.digest("SHA-256", b));
const MAX = (1n << 128n) - 1n;
const put = (out, at, v) => { for (let i = 15; i >= 0; i--) { out[at + i] = Number(v & 255n); v >>= 8n; } };
const units = (base, d) => {
  if (d === 0) return base.toString();
  const s = base.toString().padStart(d + 1, "0");
  return s.slice(0, -d) + "." + s.slice(-d);
};
const faults = [];
const A = p.balances.length;
// v1.1: the asset table the root hashes (each name and decimals); v1's root binds amounts by position only
const table = p.construction === "merkle-sum-sha256/v1.1" ? p.assets : null;
if (table && (!Array.isArray(table) || table.length !== A || table.some((t, a) => !t || t.asset !== p.balances[a].asset || !Number.isInteger(t.decimals) || t.decimals < 0 || t.decimals > 255)))
  faults.push("the proof's asset table does not list its balances' assets, in order, with their decimals");
const decimals = table && !faults.length ? table.map((t) => t.decimals) : data.decimals;
const rootOver = async (top) => {
  if (!table || faults.length) return hexOf(top);
  const names = table.map((t) => enc.encode(t.asset));
  const b = new Uint8Array(5 + names.reduce((n, x) => n + 2 + x.length, 0) + 32);
  b[0] = 3;
  new DataView(b.buffer).setUint32(1, A);
  let at = 5;
  names.forEach((x, a) => { b[at++] = x.length; b.set(x, at); at += x.length; b[at++] = table[a].decimals; });
  b.set(top, at);
  return hexOf(await sha(b));
};
const amount = (t, what) => {
  if (typeof t !== "string" || !/^\\d{1,40}$/.test(t)) { faults.push(what + " is not a whole number of base units: " + t); return null; }
  const v = BigInt(t);
  if (v > MAX) { faults.push(what + " is past 128 bits"); return null; }
  return v;
};
const record = (hash, sums) => { const r = new Uint8Array(32 + 16 * A); r.set(hash, 0); sums.forEach((s, a) => put(r, 32 + 16 * a, s)); return r; };
const sumsOf = (r) => Array.from({ length: A }, (_, a) => { let v = 0n; for (let i = 0; i < 16; i++) v = (v << 8n) | BigInt(r[32 + 16 * a + i]); return v; });
let tag;
if (!/^[0-9a-f]{64}$/.test(p.secret)) faults.push("the secret is not 64 hex digits");
else {
  const key = await crypto.subtle.importKey("raw", bytesOf(p.secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  tag = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(p.customer)));
}
const total = Array(A).fill(0n);
// the root's sums as a path reached it: the totals the root binds (its hash covers both its children's sums)
let rootSums = null;
const parts = p.leaves.length ? p.leaves[0].parts : 0;
const seen = new Set();
if (!p.leaves.length) faults.push("the proof carries no leaf: you are not shown in the tree");
for (const l of p.leaves) {
  const at = "leaf " + l.index;
  if (l.parts !== parts || l.part < 0 || l.part >= parts || seen.has(l.part)) faults.push(at + ": part " + l.part + " of " + l.parts + " is out of place or given twice");
  seen.add(l.part);
  if (!tag) continue;
  const own = (l.amounts || []).map((t, a) => amount(t, at + ": the " + p.balances[a].asset + " amount"));
  if (own.length !== A || own.includes(null)) continue;
  own.forEach((v, a) => { total[a] += v; });
  const input = new Uint8Array(41 + 16 * A);
  input[0] = 0;
  input.set(tag, 1);
  new DataView(input.buffer).setUint32(33, l.part);
  new DataView(input.buffer).setUint32(37, l.parts);
  own.forEach((v, a) => put(input, 41 + 16 * a, v));
  let node = record(await sha(input), own);
  let i = l.index;
  let broken = false;
  for (const [level, step] of l.path.entries()) {
    const sums = step.sums.map((t, a) => amount(t, at + ": the sibling's " + p.balances[a].asset + " sum at level " + level));
    if (!/^[0-9a-f]{64}$/.test(step.hash) || sums.length !== A || sums.includes(null)) { broken = true; faults.push(at + ": step " + level + " of its path is not a hash with its sums"); break; }
    const sib = record(bytesOf(step.hash), sums);
    const [left, right] = i & 1 ? [sib, node] : [node, sib];
    const both = new Uint8Array(1 + 2 * left.length);
    both[0] = 1;
    both.set(left, 1);
    both.set(right, 1 + left.length);
    const added = sumsOf(left).map((s, a) => s + sumsOf(right)[a]);
    if (added.some((s) => s > MAX)) { broken = true; faults.push(at + ": a sum overflows 128 bits at level " + (level + 1)); break; }
    node = record(await sha(both), added);
    i >>= 1;
  }
  if (broken) continue;
  const reached = await rootOver(node.subarray(0, 32));
  if (reached === p.root) rootSums = sumsOf(node);
  if (reached !== p.root) faults.push(at + ": its amounts and path lead to the root " + reached + ", not to the root " + p.root + " this proof names: an amount, the id or the path was changed");
}
for (let k = 0; k < parts; k++) if (!seen.has(k)) faults.push("part " + k + " of " + parts + " is missing");
p.balances.forEach((b, a) => {
  if (b.base_units !== total[a].toString()) faults.push("the " + b.asset + " balance says " + b.amount + ", the leaves add up to " + units(total[a], decimals[a]) + ": an amount was changed");
});
const rows = $("balances").querySelectorAll("td.amount");
p.balances.forEach((b, a) => { if (rows[a]) rows[a].textContent = units(total[a], decimals[a]); });
if (faults.length) say("fails", "DOES NOT HOLD: these balances are not shown to be in the liabilities with this root", faults);
else say("holds", "HOLDS: your balances are included in the liabilities whose root is below", ["every leaf recomputed here, in this browser, from your id, your secret and your amounts, reaches the root " + p.root + " with its sums added at every level", "the root binds the liabilities' totals, which your path reaches it with: " + p.balances.map((b, a) => units(rootSums[a], decimals[a]) + " " + b.asset).join(", ") + " (compare them with the totals the exchange published)", table ? "the root binds the asset table: " + table.map((t) => t.asset + " at " + t.decimals + " decimals").join(", ") + ": every amount is of the asset named" : "the root does not bind the assets' names or decimals (" + p.construction + "): it binds each amount by its asset's position, so the same root stands under a relabelled table"]);
const cmp = () => {
  const given = $("announced").value.trim().toLowerCase().replace(/^0x/, "");
  const out = $("compare");
  out.dataset.match = given === "" ? "" : String(given === p.root && !faults.length);
  out.textContent = given === "" ? "" : given === p.root ? (faults.length ? "the same root, but the check above does not hold" : "the same root: your balances are in the liabilities the exchange announced") : "NOT the same root: these balances are not shown to be in the liabilities the exchange announced";
};
// a link may carry the announced root: page.html#root=HEX
const fromLink = /(?:^#|&)root=(?:0x)?([0-9a-fA-F]{64})(?:&|$)/.exec(location.hash);
if (fromLink) $("announced").value = fromLink[1];
$("announced").addEventListener("input", cmp);
cmp();
})();`;

/** The constructions whose proofs the page checks: one tree whose records carry every asset's sum. */
export const PAGE_CONSTRUCTIONS = ["merkle-sum-sha256/v1.1", "merkle-sum-sha256/v1"] as const;

/** The page for one customer's proof; `assets`: the commitment's, for each asset's decimals. */
export function customerPage(p: ProofDocument, assets: readonly Asset[], created: string): string {
  const hash = createHash("sha256").update(CHECK).digest("base64");
  // the data block is read as text by the script, never run: "<" written as \u003c so no tag can end it
  const data = JSON.stringify({ proof: p, decimals: assets.map((a) => a.decimals) }).replace(/</g, "\\u003c");
  const rows = p.balances
    .map(
      (b, a) =>
        `<tr data-asset="${esc(b.asset)}"><td>${esc(b.asset)}</td><td class="num amount">${esc(amountOf(b.amount, assets[a]?.decimals ?? 0))}</td><td class="num base">${esc(b.base_units)}</td></tr>`,
    )
    .join("\n");
  return page({
    title: `Your balance in the liabilities${p.label ? `: ${esc(p.label)}` : ""}`,
    scriptHash: hash,
    css: `body { font: 15px/1.5 system-ui, sans-serif; margin: 16px auto; padding: 0 12px; color: #1f2328; max-width: 760px; overflow-wrap: anywhere; }
#verdict { font-size: 19px; font-weight: 700; color: #fff; background: #57606a; padding: 12px 14px; border-radius: 6px; }
#verdict[data-verdict="holds"] { background: ${COLOR.good}; }
#verdict[data-verdict="fails"] { background: ${COLOR.bad}; }
#verdict[data-verdict="cannot-say"] { background: ${COLOR.unknown}; }
table { border-collapse: collapse; margin: 8px 0 16px; width: 100%; }
th, td { border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.base { font-size: 12px; color: #57606a; }
code, td, input { overflow-wrap: anywhere; word-break: break-all; }
code.root { font: 14px ui-monospace, monospace; display: block; background: #f6f8fa; padding: 8px; }
input { font: 14px ui-monospace, monospace; width: 100%; box-sizing: border-box; padding: 6px; }
#compare[data-match="true"] { color: ${COLOR.good}; font-weight: 700; }
#compare[data-match="false"] { color: ${COLOR.bad}; font-weight: 700; }
.muted { color: #57606a; font-size: 13px; }`,
    body: `<h1>Your balance in the liabilities</h1>
<p id="verdict" data-verdict="not-checked">NOT CHECKED: this page's check did not run (it needs JavaScript)</p>
<ul id="why"></ul>
<table id="balances">
<tr><th>asset</th><th>amount</th><th>base units</th></tr>
${rows}
</table>
<h2>The root to compare</h2>
<p>Your balances reach this root. Compare it, every character, with the root the exchange announced for ${p.label ? `<b>${esc(p.label)}</b>, ` : "the liabilities "}created ${esc(created)}:</p>
<code class="root" id="root">${esc(p.root)}</code>
<p><label for="announced">The root the exchange announced:</label><br><input id="announced" autocomplete="off" spellcheck="false" placeholder="paste it here"></p>
<p id="compare" data-match=""></p>
<h2>What was checked</h2>
<ul class="muted">
<li>Customer id: <code>${esc(p.customer)}</code>. Your secret is in this page: keep it private.</li>
<li>Your tag is HMAC-SHA256(secret, id); each of your ${p.leaves.length} lea${p.leaves.length === 1 ? "f" : "ves"} is SHA-256 of 0x00, the tag, its part and the amounts; each level up hashes both children's hashes and sums and adds the sums (no sum below zero or past 128 bits).</li>
<li>The commitment document's digest (SHA-256 of its RFC 8785 form) is <code>${esc(p.commitment)}</code>; the root above is inside it.</li>
<li>Nothing is fetched: this page works offline, and the check runs in your browser (Web Crypto).</li>
</ul>
<script type="application/json" id="proof-data">${data}</script>
<script>${CHECK}</script>`,
  });
}
