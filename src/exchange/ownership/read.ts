/**
 * The readers of exchanges' address/signature files: OKX (the 2022 layout, the 2024-26 layout with network,
 * snapshot height and contract-wallet owners eoa1/eoa2, the 2025 audit layout) and HTX (a summary block,
 * then rows; `-` for unsigned) and Poloniex (HTX's columns, its own texts). Every layout is told by its header line; the columns are found by name, so a
 * reordered column reads the same, and a column no layout has (or one given twice) is refused by name. Nothing is judged here: `verify.ts` judges the rows.
 */
import { UsageError } from "../../errors/index.js";
import { quoted } from "../../util/escape.js";
import { decimalsOf } from "./coins.js";

/** The layouts, by the name `--proof-format` takes. */
export type OwnershipLayout = "okx-2022" | "okx-2024" | "okx-audit-2025" | "htx" | "poloniex";

/**
 * The publishers of HTX's columns (`coin,address,snapshot height,balance,message,signature`, a summary block
 * before): HTX and Poloniex (poloniex/tools-nodejs-address-verify, HTX's tool renamed), told apart only by the
 * texts their rows sign — each publisher's, as its real files sign them. A file whose rows sign neither's
 * text, or both's, is neither's (`--proof-format` names it).
 */
export const HTX_COLUMNS_TEXTS: Record<"htx" | "poloniex", readonly string[]> = {
  htx: ["huobi", "htx", "King will be back!"],
  poloniex: ["poloniex", "Poloniex"],
};
const HTX_COLUMNS = Object.keys(HTX_COLUMNS_TEXTS) as ("htx" | "poloniex")[];
/** Whether the layout has HTX's columns (HTX, Poloniex): its contract wallets' owner rows, `-` unsigned. */
export const hasHtxColumns = (l: OwnershipLayout): l is "htx" | "poloniex" =>
  (HTX_COLUMNS as string[]).includes(l);

/** One line of the file's address table, as written (empty, "-" and "null" cells read as absent). */
export interface OwnershipRow {
  /** the line of the file, 1-based */
  line: number;
  coin: string;
  /** the network column, or the part of the coin after its first "-" ("USDT-TRC20" → "TRC20") */
  network: string;
  address: string;
  /** the amount as written (trimmed); absent in the audit layout and on HTX owner rows ("-") */
  amount?: string;
  height?: string;
  /** OKX's staking file: "Non Staking", "Native ETH Staking", … */
  type?: string;
  message: string;
  /** signature1 / signedMessage / signature, then signature2 / signedMessage2: the present ones, in order */
  signatures: string[];
  /** OKX's "redeem script/ public key" / "publicKey" column */
  script?: string;
  /** a contract wallet's owners (OKX eoa1/eoa2, owner1/owner2) */
  owners: string[];
  /** HTX: an owner row (no balance, a signature) under the wallet row at this line */
  ownerOf?: number;
}

export interface SummaryLine {
  line: number;
  coin: string;
  height?: string;
  /** the amount as written; "none stated" on a variants total (`BTC(ALL)`) whose cell is empty */
  amount: string;
}

export interface OwnershipFile {
  layout: OwnershipLayout;
  /** whether the layout's amounts are in base units (OKX 2022: satoshis, wei, …) or whole coins */
  units: "base" | "coin" | "none";
  /** the file's own totals per coin (the block before the address table), as claimed */
  summary: SummaryLine[];
  rows: OwnershipRow[];
}

/** The header names each field may take, lower-cased, spaces collapsed. */
const COLUMNS: Record<string, readonly string[]> = {
  coin: ["coin", "digitalasset"],
  network: ["network"],
  height: ["snapshot height"],
  address: ["address"],
  amount: ["amount", "balance"],
  message: ["message"],
  sig1: ["signature1", "signedmessage", "signature"],
  sig2: ["signature2", "signedmessage2"],
  script: ["redeem script/ public key", "redeem script/public key", "publickey", "public key"],
  owner1: ["eoa1", "owner1"],
  owner2: ["eoa2", "owner2"],
  type: ["type"],
};

const norm = (h: string) => h.trim().toLowerCase().replace(/\s+/g, " ");

/** A CSV line's cells: commas split, double quotes honoured (none of the published files use them). */
export function cells(line: string): string[] {
  if (!line.includes('"')) return line.split(",");
  const out: string[] = [];
  let cur = "";
  let q = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (q) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') q = false;
      else cur += c;
    } else if (c === '"') q = true;
    else if (c === ",") {
      out.push(cur);
      cur = "";
    } else cur += c;
  }
  out.push(cur);
  return out;
}

const absent = (v: string | undefined): boolean => v === undefined || v === "" || v === "-" || v === "null";
const cell = (v: string | undefined): string | undefined => {
  const t = v?.trim();
  return absent(t) ? undefined : t;
};

/** The layout of an address table's header line, or undefined. */
export function layoutOfHeader(header: string): OwnershipLayout | undefined {
  const h = cells(header.replace(/^\uFEFF/, "")).map(norm);
  const has = (n: string) => h.includes(n);
  if (has("digitalasset") && has("signedmessage") && has("address")) return "okx-audit-2025";
  if (has("coin") && has("address") && has("balance") && has("signature") && has("snapshot height"))
    return "htx";
  if (has("coin") && has("address") && has("signature1") && has("network")) return "okx-2024";
  if (has("coin") && has("address") && has("signature1") && has("amount")) return "okx-2022";
  return undefined;
}

const SUMMARY = /^coin,snapshot height,(amount|balance)$/;

/** The layout its header line names (HTX's columns: "htx"), and the lines after it; undefined: no header. */
function headerOf(text: string): { layout: OwnershipLayout; at: number; lines: string[] } | undefined {
  // the header is within the first lines: a summary block is a few dozen lines at most
  const lines = text.slice(0, 20000).split(/\r?\n/, 200);
  for (const [at, l] of lines.entries()) {
    const layout = layoutOfHeader(l);
    if (layout) return { layout, at, lines };
  }
  return undefined;
}

/**
 * The publishers of HTX's columns whose texts the rows sign (the message column's cells), in HTX_COLUMNS'
 * order: one when the file is that publisher's, none or two when it is neither's.
 */
export function htxColumnsSigners(text: string): ("htx" | "poloniex")[] {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const at = lines.findIndex((l) => layoutOfHeader(l) === "htx");
  if (at < 0) return [];
  const m = cells(lines[at] as string)
    .map(norm)
    .indexOf("message");
  const texts = new Set(lines.slice(at + 1).map((l) => cells(l)[m]?.trim() ?? ""));
  return HTX_COLUMNS.filter((p) => HTX_COLUMNS_TEXTS[p].some((t) => texts.has(t)));
}

/**
 * The layout of a file's text (the first header line any layout knows; HTX's columns the publisher whose
 * texts its rows sign, and only one's), or undefined; cheap, never throws.
 */
export function detectLayout(text: string): OwnershipLayout | undefined {
  const h = headerOf(text);
  if (h?.layout !== "htx") return h?.layout;
  const signers = htxColumnsSigners(text);
  return signers.length === 1 ? signers[0] : undefined;
}

/** Whether the text has an address table header with HTX's columns (whoever's texts its rows sign). */
export const hasHtxHeader = (text: string): boolean => headerOf(text)?.layout === "htx";

/** Amounts as the layouts write them: whole base units (OKX 2022), or a plain decimal of coins. */
const AMOUNT = { base: /^\d+$/, coin: /^\d+(\.\d+)?$/ } as const;

/**
 * The amount cell, refused unless plain: a sign, an exponent, hex or (in base units) a fraction would be read
 * as another number than the one an auditor sees, or not at all.
 */
function plainAmount(amount: string, units: "base" | "coin", line: number): string {
  if (!AMOUNT[units].test(amount))
    bad(
      line,
      `the amount ${quoted(amount)} is not ${units === "base" ? "a whole number of base units" : "a plain decimal"} (no sign, exponent, hex${units === "base" ? " or fraction" : ""})`,
    );
  return amount;
}

const bad = (line: number, why: string): never => {
  throw new UsageError(`line ${line}: ${why}; nothing was checked`);
};

/** The summary block at the top ("coin,snapshot height,amount" and its lines, up to a blank line), if any. */
function readSummary(lines: string[]): { summary: SummaryLine[]; next: number } {
  const summary: SummaryLine[] = [];
  let i = 0;
  if (SUMMARY.test(norm(lines[0] ?? "").replace(/ ?, ?/g, ","))) {
    for (i = 1; i < lines.length && (lines[i] as string).trim() !== ""; i++) {
      const [coin, height, amount] = cells(lines[i] as string).map((c) => c.trim());
      if (!coin || amount === undefined) bad(i + 1, "a summary line is coin,snapshot height,amount");
      summary.push({
        line: i + 1,
        coin: coin as string,
        height: cell(height),
        // a total over a coin's variants with no amount (Poloniex's 2025-10 and 2026-02 `BTC(ALL),-,`) states
        // none: it is compared with nothing anyway; any other line's amount must be there
        amount:
          absent(amount) && /\(all\)$/i.test(coin as string)
            ? "none stated"
            : plainAmount(amount as string, "coin", i + 1),
      });
    }
  }
  return { summary, next: i };
}

/**
 * The header's columns: every column one the layouts have, each once — an unknown or repeated column is
 * refused by name, never skipped (a renamed amount column read as absent would leave the rows unjudged, or
 * judged on another); `col`: each field's column.
 */
function columnsOf(header: string, line: number): { head: string[]; col: Record<string, number> } {
  const head = cells(header).map(norm);
  const known = Object.values(COLUMNS).flat();
  for (const [k, h] of head.entries()) {
    if (!known.includes(h))
      bad(
        line,
        `column ${k + 1} ${JSON.stringify(h)} is not a column of the exchanges' address files (${known.join(", ")})`,
      );
    if (head.indexOf(h) !== k)
      bad(line, `column ${JSON.stringify(h)} twice (columns ${head.indexOf(h) + 1} and ${k + 1})`);
  }
  const col: Record<string, number> = {};
  for (const [field, names] of Object.entries(COLUMNS)) {
    const at = head.map((h, k) => (names.includes(h) ? k : -1)).filter((k) => k >= 0);
    if (at.length > 1)
      bad(
        line,
        `columns ${at.map((k) => `${k + 1} ${JSON.stringify(head[k])}`).join(" and ")} are one field (${field}): give one`,
      );
    if (at.length === 1) col[field] = at[0] as number;
  }
  return { head, col };
}

/**
 * One string per distinct signed text: the rows of a file sign one message, or a few (OKX's "I am an OKX
 * address" on every row of 100,000), and each row's cell would otherwise be its own string — a slice keeping
 * its whole line alive. Every row (and the judge's holding records, judge/holding.ts) refers to the one.
 */
function textOf(texts: Map<string, string>, cell: string): string {
  const had = texts.get(cell);
  if (had !== undefined) return had;
  // a fresh string, not a slice of the row's line (the first row's line is not kept for it)
  const own = JSON.parse(JSON.stringify(cell)) as string;
  texts.set(own, own);
  return own;
}

/** A header's "address" cell (`norm`): a row holding one may be a header line again. */
const ADDRESS_CELL = /^\s*address\s*$/i;
/** what sums and decodes is plain text: an invisible or control character would make two coins look one */
function printable(line: number, field: string, v: string | undefined): void {
  if (v !== undefined && !/^[\x20-\x7e]+$/.test(v))
    bad(line, `the ${field} ${quoted(v)} holds a character other than printable ASCII`);
}

/** The cell of column `k` (undefined: the layout has none), as `cell` reads it. */
const cellAt = (c: readonly string[], k: number | undefined): string | undefined =>
  k === undefined ? undefined : cell(c[k]);

/**
 * One string per distinct short cell (a coin, a network, a snapshot height): the rows as read are kept to the
 * end of the file's judging, and 100,000 rows' "ETH" would otherwise be 200,000 strings. Bounded: a file of
 * distinct values keeps its own.
 */
function shared(kept: Map<string, string>, v: string): string {
  const had = kept.get(v);
  if (had !== undefined) return had;
  if (kept.size < 4096) kept.set(v, v);
  return v;
}

/** The places after the point of a plain decimal, its trailing zeros left out ("1.2500" → 2). */
function placesOf(amount: string): number {
  const dot = amount.indexOf(".");
  if (dot < 0) return 0;
  let end = amount.length;
  while (end > dot + 1 && amount.charCodeAt(end - 1) === 48) end--;
  return end - dot - 1;
}

/**
 * One row of the address table, read under the header's columns (refused, never re-aligned). A row's cells
 * are read once each, with no closure or array a cell (50,000 rows: 100 MB of garbage before, 1.4 KB a row).
 */
function readRow(
  raw: string,
  line: number,
  { head, col }: { head: string[]; col: Record<string, number> },
  use: OwnershipLayout,
  texts: Map<string, string>,
  short: Map<string, string>,
): OwnershipRow {
  const c = cells(raw);
  // every layout's header has a cell that reads "address" (norm): a row without one is no header, not read
  // as one again (the rows' messages say "address": a test of the text would not spare them)
  let addressCell = false;
  for (const x of c)
    if (ADDRESS_CELL.test(x)) {
      addressCell = true;
      break;
    }
  if (addressCell && layoutOfHeader(raw)) bad(line, "a header line again inside the address table");
  if (raw.includes('"') && (raw.match(/"/g)?.length ?? 0) % 2 === 1)
    bad(line, "a quote left open (a quoted field cannot hold a line break here)");
  if (c.length > head.length) bad(line, `${c.length} cells, more than the header's ${head.length}`);
  const coin = cellAt(c, col.coin);
  const address = cellAt(c, col.address);
  if (!coin) return bad(line, "no coin");
  if (!address) return bad(line, "no address");
  if (c.length < (col.address as number) + 1) bad(line, `${c.length} cells, fewer than the header's`);
  const networkCell = cellAt(c, col.network);
  printable(line, "coin", coin);
  printable(line, "network", networkCell);
  printable(line, "address", address);
  const network = shared(short, networkCell ?? coin.split("-").slice(1).join("-"));
  const sig1 = cellAt(c, col.sig1);
  const sig2 = cellAt(c, col.sig2);
  const owner1 = cellAt(c, col.owner1);
  const owner2 = cellAt(c, col.owner2);
  const message = col.message === undefined ? undefined : c[col.message];
  const row: OwnershipRow = {
    line,
    coin: shared(short, coin),
    network,
    address,
    message: textOf(texts, message?.trim() ?? ""),
    signatures: present(sig1, sig2),
    owners: present(owner1, owner2),
  };
  const amount = cellAt(c, col.amount);
  if (amount !== undefined) row.amount = plainAmount(amount, use === "okx-2022" ? "base" : "coin", line);
  // finer than the coin's smallest unit: no chain holds that amount (a coin chaingw's tables do not know is
  // kept as written, said in the report)
  const places = use === "okx-2022" || row.amount === undefined ? 0 : placesOf(row.amount);
  const decimals = places > 0 ? decimalsOf(row.coin, network) : undefined;
  if (decimals !== undefined && places > decimals)
    bad(
      line,
      `the amount ${row.amount} has ${places} decimal places; ${row.coin}${network && !row.coin.includes("-") ? ` on ${network}` : ""} has ${decimals}`,
    );
  const height = cellAt(c, col.height);
  if (height !== undefined) row.height = shared(short, height);
  const script = cellAt(c, col.script);
  if (script !== undefined) row.script = script;
  const type = cellAt(c, col.type);
  if (type !== undefined) row.type = type;
  return row;
}

/** The present ones of two cells, in order. */
const present = (a: string | undefined, b: string | undefined): string[] =>
  a === undefined ? (b === undefined ? [] : [b]) : b === undefined ? [a] : [a, b];

/**
 * Reads a file of `layout` (detected when not given). Throws UsageError naming the line for a file that is
 * not of the layout (no header, a row with too few cells, a row without an address).
 */
export function readOwnershipFile(text: string, layout?: OwnershipLayout): OwnershipFile {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const { summary, next } = readSummary(lines);
  let i = next;
  while (i < lines.length && (lines[i] as string).trim() === "") i++;
  const headerAt = i;
  const found = layoutOfHeader(lines[headerAt] ?? "");
  if (!found)
    return bad(
      headerAt + 1,
      "no address table header (OKX: coin,address,amount,…; OKX 2024-26: coin,Network,Snapshot Height,address,…; OKX 2025 audit: digitalAsset,network,address,…; HTX: coin,address,snapshot height,balance,message,signature)",
    );
  const use = layout ?? (found === "htx" ? (detectLayout(text) ?? found) : found);
  if (layout && layout !== found && !(hasHtxColumns(layout) && found === "htx"))
    bad(headerAt + 1, `the header is ${found}'s, not ${layout}'s (--proof-format ${layout})`);
  const columns = columnsOf(lines[headerAt] as string, headerAt + 1);
  const rows: OwnershipRow[] = [];
  const texts = new Map<string, string>();
  const short = new Map<string, string>();
  let wallet: OwnershipRow | undefined;
  for (let j = headerAt + 1; j < lines.length; j++) {
    const raw = lines[j] as string;
    if (raw.trim() === "") continue;
    const row = readRow(raw, j + 1, columns, use, texts, short);
    if (hasHtxColumns(use)) {
      // HTX's contract wallets: the wallet's row (a balance, no signature), then its owners' rows (no
      // balance, a signature), same coin; HTX's own tool does not link them
      if (row.amount !== undefined) wallet = row.signatures.length === 0 ? row : undefined;
      else if (wallet && wallet.coin === row.coin && row.signatures.length) row.ownerOf = wallet.line;
      if (row.message === "-") row.message = "";
    }
    rows.push(row);
  }
  if (rows.length === 0) bad(headerAt + 1, "the address table has no rows");
  return {
    layout: use,
    units: use === "okx-2022" ? "base" : use === "okx-audit-2025" ? "none" : "coin",
    summary,
    rows,
  };
}
