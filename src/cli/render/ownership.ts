/** `reserves verify` of an exchange's address file: the rows as a table, the amounts per coin, the verdict. */

import { basePlacesOf, decimalsOf, rowAmounts } from "../../exchange/ownership/coins.js";
import { summaryAmountText } from "../../exchange/ownership/places.js";
import type { OwnershipReport, RowStatus } from "../../exchange/ownership/verify.js";
import {
  BOXED_ROWS_MAX,
  columnWidths,
  plainLayout,
  type Style,
  style,
  table,
  widenColumns,
} from "../../output/human.js";
import type { Finding } from "../../reserves/verdict.js";
import { csvTable } from "../../util/csv.js";
import { escapeDeep, escapeTerminal } from "../../util/escape.js";
import { type JsonArrayText, TextSpool } from "../../util/spool.js";
import { amountOf, amountText } from "../../util/units.js";
import { cannotSayLine, failsLine, renderFindings } from "./verdict.js";

const WORD: Record<RowStatus, string> = {
  proven: "proven",
  signed: "signed, amount claimed",
  failed: "FAILS",
  unsigned: "unsigned",
  unsupported: "not supported",
  "cannot-say": "not checked",
};

/**
 * What the chain said of a row's balance: at the snapshot's block, or (a value that judges nothing: TRON's
 * head-only reads) the head's, which is never shown as the snapshot's.
 */
function chainAmount(b: NonNullable<OwnershipReport["rows"][number]["balance"]>): string {
  if (b.value === null) return "not read";
  if (b.holds === null) return `head: ${b.value}, not the snapshot's`;
  return `chain: ${b.value}${b.block ? ` at ${b.block}` : ""}`;
}

type Row = OwnershipReport["rows"][number];

type Units = OwnershipReport["units"];

/**
 * A row's amount the one way (exchange/ownership/coins.ts rowAmounts): coin units with the coin's decimals —
 * a file of base units (OKX 2022) counted in the places the chain gave its re-read balance, else the coin's —
 * and the integer of base units; each "" where it cannot be told.
 */
const amountsOf = (units: Units, x: Row) =>
  x.amount === null
    ? { amount: "", base_units: "" }
    : rowAmounts(x.amount, units, x.coin, x.network, units === "base" ? basePlacesOf(x, x) : undefined);

/** A row's amount for a person: in coin units, or said to be base units where the places are not known. */
const amountShown = (units: Units, x: Row): string => {
  const a = amountsOf(units, x);
  return a.amount || `${x.amount} base units`;
};

/** Each coin's places, by its rows: the one they all share, else none (undefined). */
export type CoinPlaces = Map<string, number | undefined>;

/**
 * `rows` added to the places of each coin's sums (`places`): the one its rows all share (a coin whose rows
 * are counted in different places, or in none known, has none: its sums stay in base units, said so).
 */
export function addPlaces(places: CoinPlaces, units: Units, rows: readonly Row[]): void {
  for (const x of rows) {
    const d = units === "base" ? basePlacesOf(x, x) : decimalsOf(x.coin, x.network);
    places.set(x.coin, places.has(x.coin) && places.get(x.coin) !== d ? undefined : d);
  }
}

function placesByCoin(r: OwnershipReport): CoinPlaces {
  const places: CoinPlaces = new Map();
  addPlaces(places, r.units, r.rows);
  return places;
}

/** A coin's sum in coin units: a file of base units converted (or said to be base units), a file of coins padded. */
function coinSum(
  r: OwnershipReport,
  places = placesByCoin(r),
): (amount: string, coin: string) => string | undefined {
  return (a, coin) => {
    const d = places.get(coin);
    if (d === undefined) return r.units === "base" ? undefined : a;
    return r.units === "base" ? amountText(BigInt(a), d) : amountOf(a, d);
  };
}

/** A row of `reserves verify --json`: as judged, its amount the one way (`amount` in coins, `base_units`). */
export function ownershipJsonRow(units: Units, x: Row): unknown {
  const a = amountsOf(units, x);
  // the row's members in its order, `amount` moved last: copied one by one (a rest pattern made each row a
  // dictionary-mode object, ~1.9 KB of garbage a row at 50,000 rows); `why` is worded in `reason`
  const row: Record<string, unknown> = {};
  for (const k in x) if (k !== "amount" && k !== "why") row[k] = x[k as keyof Row];
  row.amount = a.amount || null;
  row.base_units = a.base_units || null;
  return row;
}

/**
 * A report's rows and findings written out as the rows were judged (`reserves verify --json` of a large file):
 * their JSON arrays' text (src/util/spool.ts), and each coin's places by every row (`addPlaces`).
 */
export interface SpooledRows {
  rows: JsonArrayText;
  findings: JsonArrayText;
  places: CoinPlaces;
}

/**
 * `reserves verify --json` of an exchange's address file: the report with every amount the one way — `amount`
 * in coin units with the asset's decimals, base units only in fields named so (`base_units`,
 * `amounts_base_units`); `file_units` says how the file writes them. A coin of a file of base units whose
 * places chaingw cannot tell has `amount` null and appears in `amounts_base_units` only. `spooled`: the rows
 * and findings as they were written out (the report lists none of its rows then), the same text.
 */
export function ownershipJson(r: OwnershipReport, spooled?: SpooledRows): unknown {
  const { format, verdict, holds, units, counts, amounts, summary, rows, findings, summary_text, ...rest } =
    r;
  const places = spooled?.places ?? placesByCoin(r);
  const inCoins = coinSum(r, places);
  const coinAmounts: Record<string, Record<string, string>> = {};
  const baseAmounts: Record<string, Record<string, string>> = {};
  for (const [coin, per] of Object.entries(amounts)) {
    const d = places.get(coin);
    const shown = Object.entries(per).map(([k, v]) => [k, inCoins(v, coin)] as const);
    if (shown.every(([, v]) => v !== undefined))
      coinAmounts[coin] = Object.fromEntries(shown) as Record<string, string>;
    if (units === "base") baseAmounts[coin] = per;
    else if (d !== undefined)
      baseAmounts[coin] = Object.fromEntries(
        Object.entries(per).map(([k, v]) => [k, rowAmounts(v, units, coin, "", d).base_units]),
      );
  }
  return {
    format,
    verdict,
    holds,
    file_units: units,
    counts,
    amounts: coinAmounts,
    amounts_base_units: baseAmounts,
    summary,
    rows: spooled?.rows ?? rows.map((x) => ownershipJsonRow(units, x)),
    findings: spooled?.findings ?? findings,
    summary_text,
    // the nodes a verdict names, when given
    ...rest,
  };
}

/** The columns of the rows' table a person reads. */
const ROW_HEAD = ["line", "coin", "address", "amount", "result", "form"];

/** A row's word, coloured: proven green, failed and unsigned red. */
const wordOf =
  (st: Style) =>
  (x: RowStatus): string =>
    x === "proven" ? st.good(WORD[x]) : x === "failed" || x === "unsigned" ? st.bad(WORD[x]) : WORD[x];

/** A row as the cells of the table a person reads (`x` escaped: escapeDeep). */
const rowCells = (units: Units, x: Row, word: (x: RowStatus) => string): string[] => [
  String(x.line),
  x.coin,
  x.address + (x.wallet ? ` (owner of line ${x.wallet})` : ""),
  (x.amount === null ? "-" : amountShown(units, x)) + (x.balance ? ` (${chainAmount(x.balance)})` : ""),
  word(x.status),
  x.form ?? "",
];

const at = (f: { at?: string; text: string }) => `${f.at ? `${f.at}: ` : ""}${f.text}`;

/** What heads the rows' table: the file's layout and units, its own claims. */
function headLines(r: OwnershipReport): string[] {
  const units =
    r.units === "base"
      ? "amounts in base units, shown in coins"
      : r.units === "none"
        ? "no amounts"
        : "amounts in coins";
  const lines = [`format     ${r.format} (${units})`];
  for (const s of r.summary)
    lines.push(
      `claim      ${s.coin}: ${summaryAmountText(s.coin, s.amount)}${s.height ? ` at height ${s.height}` : ""}`,
    );
  return lines;
}

/** What follows the rows' table: the amounts per coin and status, the counts. */
function sumLines(r: OwnershipReport, color: boolean, places = placesByCoin(r)): string[] {
  const inCoins = coinSum(r, places);
  const lines: string[] = [];
  const coins = Object.entries(r.amounts);
  if (coins.length)
    lines.push(
      table(
        ["coin", "proven", "signed, claimed", "failed", "unsigned", "not supported", "not checked"],
        coins.map(([c, a]) => [
          c,
          ...[a.proven, a.signed, a.failed, a.unsigned, a.unsupported, a["cannot-say"]].map(
            (v) => inCoins(v, c) ?? `${v} base units`,
          ),
        ]),
        color,
      ),
    );
  const c = r.counts;
  lines.push(
    `rows       ${c.rows}: ${c.proven} proven (signed; a claimed balance re-read), ${c.signed} signed with the amount claimed, ${c.failed} failed, ${c.unsigned} unsigned, ${c.unsupported} not supported, ${c.cannot_say} not checked`,
  );
  return lines;
}

/** `r` has been through escapeDeep (src/util/escape.ts): every string from the file is shown escaped. */
export function renderOwnership(r: OwnershipReport, color: boolean): string {
  const st = style(color);
  const word = wordOf(st);
  const lines = headLines(r);
  lines.push(
    table(
      ROW_HEAD,
      r.rows.map((x) => rowCells(r.units, x, word)),
      color,
    ),
  );
  lines.push(...sumLines(r, color));
  // a declared token that reads the native coin, or whose node could not tell (the tracking probe)
  for (const f of r.findings) if (f.step === "tracking") lines.push(`tracking   ${at(f)}`);
  lines.push(
    ...renderFindings(
      {
        verdict: r.verdict,
        failures: r.findings.filter((f) => f.status === "fails").map(at),
        cannot_say: r.findings.filter((f) => f.status === "cannot-say").map(at),
        summary: r.summary_text,
      },
      color,
    ),
  );
  return lines.join("\n");
}

/**
 * The table a person reads of a large file, its rows written out as they were judged (`reserves verify` of an
 * address file): each window's rows as their cells (escaped), the columns' widths, and the lines of their
 * findings, in temporary spools (src/util/spool.ts); then `pieces` — the same text as `renderOwnership` of
 * the report that kept every row, which never exists at once.
 */
export class OwnershipTable {
  private readonly st: Style;
  private readonly word: (x: RowStatus) => string;
  private readonly widths = columnWidths(ROW_HEAD);
  private readonly rows = new TextSpool("chaingw-table-");
  private n = 0;
  /** each coin's places, by every row (`addPlaces`) */
  private readonly places: CoinPlaces = new Map();
  /** the lines of the rows' own findings and of the others (a token's tracking), each kind apart */
  private readonly lines = {
    rowFails: new TextSpool("chaingw-table-"),
    rowCannot: new TextSpool("chaingw-table-"),
    tracking: new TextSpool("chaingw-table-"),
    otherFails: new TextSpool("chaingw-table-"),
    otherCannot: new TextSpool("chaingw-table-"),
  };

  constructor(private readonly color: boolean) {
    this.st = style(color);
    this.word = wordOf(this.st);
  }

  /** A window of judged rows (a RowSink's): their cells and their findings' lines spooled. */
  add(units: Units, rows: readonly Row[], findings: readonly Finding[], others: readonly Finding[]): void {
    addPlaces(this.places, units, rows);
    for (const x of rows) {
      const cells = rowCells(units, escapeDeep(x), this.word);
      widenColumns(this.widths, cells);
      this.rows.append(`${JSON.stringify(cells)}\n`);
      this.n++;
    }
    const line = (spool: TextSpool, text: string) => spool.append(`${escapeTerminal(text)}\n`);
    for (const f of findings.map(escapeDeep)) {
      if (f.status === "fails") line(this.lines.rowFails, failsLine(at(f), this.st));
      if (f.status === "cannot-say") line(this.lines.rowCannot, cannotSayLine(at(f)));
    }
    for (const f of others.map(escapeDeep)) {
      if (f.step === "tracking") line(this.lines.tracking, `tracking   ${at(f)}`);
      if (f.status === "fails") line(this.lines.otherFails, failsLine(at(f), this.st));
      if (f.status === "cannot-say") line(this.lines.otherCannot, cannotSayLine(at(f)));
    }
  }

  /**
   * The report as a person reads it (`r` escaped, its rows and findings but the file's own spooled here),
   * then `tail` (the nodes line): strings to escape for a terminal, and lines escaped when spooled.
   */
  *pieces(r: OwnershipReport, tail: readonly string[]): Generator<string | Uint8Array> {
    const nl = (lines: string[]) => lines.map((l) => `${l}\n`).join("");
    yield nl(headLines(r));
    const cells = () => [...this.rows.lines()].map((l) => JSON.parse(l) as string[]);
    if (this.n <= BOXED_ROWS_MAX) yield `${table(ROW_HEAD, cells(), this.color)}\n`;
    else {
      const lay = plainLayout(this.widths);
      yield `${lay.head(ROW_HEAD)}\n`;
      let block: string[] = [];
      for (const l of this.rows.lines()) {
        block.push(lay.row(JSON.parse(l) as string[]));
        if (block.length === 1000) {
          yield `${block.join("\n")}\n`;
          block = [];
        }
      }
      if (block.length) yield `${block.join("\n")}\n`;
    }
    yield nl(sumLines(r, this.color, this.places));
    const own = r.findings;
    yield* this.lines.tracking.bytes();
    yield nl(own.filter((f) => f.step === "tracking").map((f) => `tracking   ${at(f)}`));
    // the file's own findings and the verdict line, as renderFindings writes them: each kind after the rows'
    const failures = own.filter((f) => f.status === "fails").map(at);
    const ownLines = renderFindings(
      {
        verdict: r.verdict,
        failures,
        cannot_say: own.filter((f) => f.status === "cannot-say").map(at),
        summary: r.summary_text,
      },
      this.color,
    );
    yield* this.lines.rowFails.bytes();
    yield* this.lines.otherFails.bytes();
    yield nl(ownLines.slice(0, failures.length));
    yield* this.lines.rowCannot.bytes();
    yield* this.lines.otherCannot.bytes();
    yield [...ownLines.slice(failures.length), ...tail].join("\n");
  }

  close(): void {
    for (const s of [this.rows, ...Object.values(this.lines)]) s.close();
  }
}

/** The head of `reserves verify --format csv` of an exchange's address file. */
export const OWNERSHIP_CSV_HEAD = [
  "line",
  "coin",
  "network",
  "address",
  "amount",
  "base_units",
  "result",
  "form",
  "chain_balance",
  "chain_block",
  "reason",
];

/** One row of the file as judged, as `reserves verify --format csv` writes it (its strings escaped). */
export function ownershipCsvRow(units: Units, x: Row): (string | number)[] {
  const a = amountsOf(units, x);
  return [
    x.line,
    x.coin,
    x.network,
    x.address,
    a.amount,
    a.base_units,
    x.status,
    x.form ?? "",
    x.balance?.value ?? "",
    x.balance?.block ?? "",
    x.reason,
  ];
}

/** `reserves verify --format csv` of an exchange's address file: one row per row of the file, as judged. */
export const ownershipCsv = (r: OwnershipReport): string =>
  csvTable(
    OWNERSHIP_CSV_HEAD,
    r.rows.map((x) => ownershipCsvRow(r.units, x)),
  );
