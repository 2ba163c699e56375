/** `reserves verify` of an exchange's address file: the rows as a table, the amounts per coin, the verdict. */

import { basePlacesOf, decimalsOf, rowAmounts } from "../../exchange/ownership/coins.js";
import type { OwnershipReport, RowStatus } from "../../exchange/ownership/verify.js";
import { style, table } from "../../output/human.js";
import { csvTable } from "../../util/csv.js";
import type { JsonArrayText } from "../../util/spool.js";
import { amountOf, amountText } from "../../util/units.js";
import { renderFindings } from "./verdict.js";

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
const amountShown = (r: OwnershipReport, x: Row): string => {
  const a = amountsOf(r.units, x);
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
  const { amount: _, ...row } = x;
  return { ...row, amount: a.amount || null, base_units: a.base_units || null };
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

/** `r` has been through escapeDeep (src/util/escape.ts): every string from the file is shown escaped. */
export function renderOwnership(r: OwnershipReport, color: boolean): string {
  const st = style(color);
  const inCoins = coinSum(r);
  const units =
    r.units === "base"
      ? "amounts in base units, shown in coins"
      : r.units === "none"
        ? "no amounts"
        : "amounts in coins";
  const lines = [`format     ${r.format} (${units})`];
  for (const s of r.summary)
    lines.push(`claim      ${s.coin}: ${s.amount}${s.height ? ` at height ${s.height}` : ""}`);
  const word = (x: RowStatus) =>
    x === "proven" ? st.good(WORD[x]) : x === "failed" || x === "unsigned" ? st.bad(WORD[x]) : WORD[x];
  lines.push(
    table(
      ["line", "coin", "address", "amount", "result", "form"],
      r.rows.map((x) => [
        String(x.line),
        x.coin,
        x.address + (x.wallet ? ` (owner of line ${x.wallet})` : ""),
        (x.amount === null ? "-" : amountShown(r, x)) + (x.balance ? ` (${chainAmount(x.balance)})` : ""),
        word(x.status),
        x.form ?? "",
      ]),
      color,
    ),
  );
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
  const at = (f: { at?: string; text: string }) => `${f.at ? `${f.at}: ` : ""}${f.text}`;
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
