/**
 * Solvency's one renderer (issue 55, item 1): the text and the page of the one report (judge/report.ts),
 * whichever input fed the judge — chaingw's own proofs or an exchange's address file — drawn one way: the
 * verdict in its words, the audit's lines (and the address file's, where the reserves are one), one table of
 * the assets (`assetRows` of solvency-rows.ts, which the CSV and the report package read too), then what each
 * proof or row counted as and why. The verdict's and a status's words are solvency-rows.ts's, once.
 */
import { type SolvencyAsset, type SolvencyReport, snapshotText } from "../../judge/report.js";
import { auditFaultWords, isAuditFault, totalsStatus, totalsWords } from "../../judge/words.js";
import { amountOf } from "../../util/units.js";
import { nodesLine } from "../nodes.js";
import { assetRows, STATUS_WORD, VERDICT_WORD } from "./solvency-rows.js";

const HEAD = ["asset", "liabilities", "proven", "claimed", "proven coverage", "claimed coverage", "status"];

/** The table's rows, from the one per-asset view of both reports. */
const tableRows = (r: SolvencyReport): string[][] =>
  assetRows(r).map((a) => [
    a.asset,
    a.liabilities,
    a.proven,
    a.claimed,
    a.proven_coverage,
    a.claimed_coverage,
    a.shortfall && a.status !== "covered"
      ? `${STATUS_WORD[a.status] ?? a.status}, short ${a.shortfall}`
      : (STATUS_WORD[a.status] ?? a.status),
  ]);

/** The lines under the table: per asset its finding in words, what backs it, each proof (counted or why not), the snapshot, overlaps. */
function* assetLines(a: SolvencyAsset): Generator<string> {
  yield a.why;
  if (a.places) yield a.places;
  yield `${a.asset}: backed by ${a.backing.by.length ? a.backing.by.join(" or ") : "nothing"} (${a.backing.source === "declared" ? "--backing" : a.backing.source === "well-known" ? "well-known asset" : "not a well-known asset: declare it with --backing"})`;
  if (!a.proofs.length && a.rows === undefined) yield `${a.asset}: no reserve proof backs it`;
  for (const p of a.proofs) {
    const name = `${p.file}${p.id ? `#${p.id}` : ""}`;
    yield p.counted
      ? `${a.asset}: ${name}: ${p.is} at ${p.height}: claimed ${amountOf(p.claimed, a.decimals)}, proven ${amountOf(p.proven, a.decimals)} (${p.check})${p.summary ? `: ${p.summary}` : ""}`
      : `${a.asset}: ${name}: NOT COUNTED: ${p.is}, ${p.why}`;
    if (p.not_for_this_audit)
      yield `${a.asset}: ${name}: proves nothing for this audit: ${p.not_for_this_audit}`;
  }
  for (const x of a.rows ?? [])
    yield `${a.asset}: line ${x.line} ${x.coin} ${x.address}: ${amountOf(x.amount, a.decimals)} ${x.proven ? "proven" : "claimed"}${isAuditFault(x.finding) ? ` (not proven for this audit: ${auditFaultWords(x.finding)})` : ""}`;
  for (const x of a.not_counted ?? [])
    yield `${a.asset}: line ${x.line} ${x.coin} ${x.address}: claimed ${amountOf(x.claimed, a.decimals)}, NOT COUNTED (${x.status}): ${x.why}`;
  if (a.snapshots.length)
    yield `${a.asset}: judged at one snapshot per chain: ${a.snapshots.map(snapshotText).join("; ")}`;
  if (a.spent_before_snapshot)
    yield `${a.asset}: ${a.spent_before_snapshot} outputs of lower proofs were spent by the joint height: not counted`;
  for (const x of a.spent_before_commitment.slice(0, SPENT_NAMED))
    yield `${a.asset}: ${x.output} was spent in block ${x.height} (${x.time ?? "its time unknown"}), at or before the liabilities' date: not counted`;
  if (a.spent_before_commitment.length > SPENT_NAMED)
    yield `${a.asset}: and ${a.spent_before_commitment.length - SPENT_NAMED} more outputs spent by then`;
  if (a.moment)
    yield `${a.asset}: one moment across its chains: ${a.moment.time} (${a.moment.network}'s snapshot); each other chain's coins count only if held then`;
  for (const x of a.moved_before_moment.slice(0, SPENT_NAMED))
    yield `${a.asset}: ${x.output} was spent in block ${x.height} (${x.time ?? "its time unknown"}), at or before the ${a.asset} moment: moved before its other chains were read, not counted`;
  if (a.moved_before_moment.length > SPENT_NAMED)
    yield `${a.asset}: and ${a.moved_before_moment.length - SPENT_NAMED} more outputs moved by then`;
  for (const x of a.spent_dated_ahead.slice(0, SPENT_NAMED))
    yield `${a.asset}: ${x.output} was ${auditFaultWords(x.fault)}`;
  if (a.spent_dated_ahead.length > SPENT_NAMED)
    yield `${a.asset}: and ${a.spent_dated_ahead.length - SPENT_NAMED} more outputs whose spend cannot be placed`;
  for (const x of a.overlap) yield `${a.asset}: overlap: ${x}`;
  for (const x of a.mirrors) yield `${a.asset}: native mirror: ${x}; counted once, as the native coin`;
}

const SPENT_NAMED = 5;

/** Which audit was judged: its challenge and whence, the liabilities' created, each snapshot's time and gap. */
function auditLines(r: SolvencyReport): string[] {
  const a = r.audit;
  const out = [
    a.challenge === null
      ? `audit: no challenge (${r.commitment ? "the commitment has none" : "an exchange's root carries none"}; --challenge not given)`
      : `audit: challenge ${JSON.stringify(a.challenge)} (from the ${a.from})`,
    a.created === null
      ? "liabilities dated nowhere (an exchange's root: --liabilities-date gives the date it was published for); no reserves prove for them"
      : `liabilities created ${a.created}; reserves within --max-gap ${a.max_gap} of it prove for them`,
  ];
  const snaps = new Map(r.assets.flatMap((x) => x.snapshots.map((s) => [snapshotText(s), s] as const)));
  for (const s of snaps.values())
    out.push(
      s.block_time === null
        ? `reserves: ${s.network} at ${s.kind} ${s.height}, block time not read${r.reserves_file ? "" : " (--verify reads it from the node)"}`
        : `reserves: ${s.network} at ${s.kind} ${s.height}, block time ${s.block_time}: ${s.gap ?? "the gap not known"}${s.within_max_gap === false ? `, BEYOND --max-gap ${a.max_gap}` : ""}`,
    );
  for (const f of a.faults) out.push(`audit: ${f}`);
  return out;
}

/** An exchange's address file as the reserves: its own verdict, the text its rows sign, where it disagrees with itself. */
function fileLines(r: SolvencyReport): string[] {
  const f = r.reserves_file;
  if (!f) return [];
  const texts = r.challenges.map((c) => JSON.stringify(c.text)).join(", ") || "nothing";
  return [
    `reserves: ${f.format} file, ${f.verdict}: ${f.summary}`,
    r.audit.challenge === null
      ? `reserves: the rows sign ${texts}, the exchange's own text, not an audit's challenge: nothing is proven for the audit until you accept it (--challenge TEXT)`
      : `reserves: the rows sign ${texts}; the audit's text ${JSON.stringify(r.audit.challenge)} (from the ${r.audit.from})`,
    ...f.disagreements.map((d) => `reserves: the file disagrees with itself: ${d}`),
  ];
}

/** Which texts the signatures are over, and whether each is the audit's. */
function challengeLines(r: SolvencyReport): string[] {
  return r.challenges.map(
    (c) =>
      `signatures over ${c.text === null ? "no challenge" : JSON.stringify(c.text)}${c.for_this_audit ? " (the audit's)" : r.audit.challenge === null || c.text === null ? "" : " (NOT the audit's)"}: ${c.files.join(", ")}`,
  );
}

/** The liabilities judged: the commitment's root and digest, or the exchange's root file, its root and date. */
function liabilitiesLine(r: SolvencyReport): string {
  const c = r.commitment;
  if (c)
    return `liabilities: root ${c.root}${c.label ? `, ${c.label}` : ""}, digest ${c.digest_ok ? "matches" : "DOES NOT MATCH"}${!c.totals ? "" : totalsStatus(c.totals) === "bound" ? ", totals bound by the root" : `; ${totalsWords(c.totals)}`}`;
  const x = r.exchange_liabilities!;
  return `liabilities: ${x.source}${x.root ? `, root ${x.root}` : ""}, dated ${x.date ?? "nowhere (--liabilities-date gives it)"}${x.note ? `; ${x.note}` : ""}`;
}

/** The lines above the table (the audit, the address file) and below it (each asset's holdings and why). */
function linesOf(r: SolvencyReport): { head: string[]; tail: Iterable<string> } {
  // each asset's holdings made as they are written (an address file's rows: util/lazy-list.ts)
  const tail = function* () {
    for (const a of r.assets) yield* assetLines(a);
    yield* challengeLines(r);
    yield `proven: held on chain under an address whose signature over the audit's challenge was judged valid, at a block within --max-gap of the liabilities' date${r.verified ? "" : r.reserves_file ? " (nothing is proven without --node)" : " (nothing is proven without --verify)"}; claimed: what the ${r.reserves_file ? "rows" : "proofs"} state`;
    yield liabilitiesLine(r);
  };
  return { head: [...auditLines(r), ...fileLines(r)], tail: tail() };
}

/**
 * Either report as text: the verdict, the audit, the table, each asset's holdings — in pieces of whole lines
 * (an address file's 100,000 rows are never one text), whose concatenation is the text.
 */
export async function renderSolvency(r: SolvencyReport): Promise<Iterable<string>> {
  const { table } = await import("../../output/human.js");
  const { head, tail } = linesOf(r);
  const lines = function* () {
    yield `${VERDICT_WORD[r.verdict]}: ${r.summary}`;
    yield* head;
    yield "";
    yield table(HEAD, tableRows(r), false);
    yield "";
    yield* tail;
    // which node answered for which chain: the line every verdict ends with (cli/nodes.ts)
    yield* nodesLine(r.nodes ?? []);
  };
  return (function* () {
    let block: string[] = [];
    let first = true;
    for (const line of lines()) {
      block.push(line);
      if (block.length >= 1000) {
        yield (first ? "" : "\n") + block.join("\n");
        first = false;
        block = [];
      }
    }
    if (block.length) yield (first ? "" : "\n") + block.join("\n");
  })();
}

/** Either report as a page's section: the verdict, the table (each row's data-asset, data-status), the lines. */
export async function solvencyHtml(r: SolvencyReport): Promise<string> {
  const { esc } = await import("./html.js");
  const { head, tail } = linesOf(r);
  const statuses = assetRows(r).map((a) => a.status);
  const rows = tableRows(r)
    .map(
      (row, k) =>
        `<tr data-asset="${esc(row[0] as string)}" data-status="${esc(statuses[k] as string)}">${row
          .map((x, i) => `<td${i > 0 && i < 6 ? ' class="num"' : ""}>${esc(x)}</td>`)
          .join("")}</tr>`,
    )
    .join("\n");
  return `<h2>Solvency: ${esc(VERDICT_WORD[r.verdict])}</h2>
<p id="solvency-verdict" data-verdict="${esc(r.verdict)}">${esc(VERDICT_WORD[r.verdict])}: ${esc(r.summary)}</p>
<table id="solvency">
<tr>${HEAD.map((h) => `<th>${esc(h)}</th>`).join("")}</tr>
${rows}
</table>
<ul class="muted">${[...head, ...tail].map((l) => `<li>${esc(l)}</li>`).join("")}</ul>
`;
}
