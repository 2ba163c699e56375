/**
 * The places an exchange's coin owed is written at (issue 59 item 6, one way to write an amount): the coin's
 * own decimals where they are known — chaingw's commitment states them; else the chain's word for a row that
 * backs it (a token's decimals() read at the block), else chaingw's tables (BTC 8, ETH 18, a well-known
 * token's) — never fewer than the data needs: a total or row written with more places than the coin has is
 * written at its own places, not rounded, and the finding says which (judge/words.ts `placesWords`).
 * Where nothing tells the coin's decimals, the places the liabilities and the rows need.
 */
import { wellKnownBackings } from "../../chains/assets.js";
import type { PlacesFinding } from "../../judge/words.js";
import { amountAtLeast } from "../../util/units.js";
import { decimalsOf } from "./coins.js";
import type { OwnershipRow } from "./read.js";
import type { RowResult } from "./report.js";

/** The coin's decimals as the commitment, the chain or the tables give them (the most of those told), or undefined. */
function knownDecimals(
  asset: string,
  commitment: number | undefined,
  rows: readonly { row: OwnershipRow; r: RowResult }[],
): number | undefined {
  if (commitment !== undefined) return commitment;
  // the most any row tells, by loop: Math.max(...rows) overflows the stack past ~120,000 rows of one coin
  let told: number | undefined;
  for (const { row, r } of rows) {
    const d = r.balance?.decimals ?? decimalsOf(row.coin, row.network);
    if (d !== undefined && (told === undefined || d > told)) told = d;
  }
  if (told !== undefined) return told;
  return tableDecimals(asset);
}

/**
 * A coin's decimals in chaingw's tables (BTC 8, ETH 18, Tether's USDT 6) by the name an exchange gives it, as
 * written ("ltc" beside "LTC" is another asset: not LTC's places), or undefined.
 */
export function tableDecimals(asset: string): number | undefined {
  return (
    wellKnownBackings(asset)?.decimals ?? (asset === asset.toUpperCase() ? decimalsOf(asset, "") : undefined)
  );
}

/**
 * An amount an exchange's file states in coin units, written the one way: at its coin's decimals from the
 * tables ("0.00005" BTC is 0.00005000), never fewer places than the text states (not rounded); a coin the
 * tables do not know, or text that is no amount, as written. `coin`: the asset's name ("BTC"; a zk file's
 * "BTC equity" is BTC's).
 */
export function coinAmountText(coin: string, text: string): string {
  const d = tableDecimals(coin.split(" ")[0] as string);
  return d === undefined ? text : amountAtLeast(text, d);
}

/**
 * The decimals a total of an address file's summary block is written at, the way its rows are: its coin's,
 * the summary's coin read as the reader reads a row's ("USDT-TRC20" is USDT on TRC20: 6 places; a variants
 * total "BTC(ALL)" BTC's 8), or undefined where chaingw's tables do not know it (the total as written).
 */
export function summaryDecimals(coin: string): number | undefined {
  const c = coin.replace(/\(all\)$/i, "");
  return decimalsOf(c, c.split("-").slice(1).join("-")) ?? tableDecimals(c);
}

/**
 * A summary's total written the one way (its rows' sum and their difference are, judge/words-rows.ts): at
 * its coin's decimals, never fewer places than the text states ("5.2834" ETH is 5.283400000000000000; 19
 * places of ETH stay 19, not rounded); a coin the tables do not know, or "none stated", as written.
 */
export function summaryAmountText(coin: string, text: string): string {
  const d = summaryDecimals(coin);
  return d === undefined ? text : amountAtLeast(text, d);
}

/**
 * The places every amount of `asset` is written at, and where the data states more than its decimals, that
 * finding (typed): `owed` the liabilities' total (its places; `commitment`: they are the coin's, chaingw's
 * commitment states them), `rows` the rows that back it, `counted` each counted row's line and places.
 */
export function assetPlaces(
  asset: string,
  owed: { places: number; commitment: boolean },
  rows: readonly { row: OwnershipRow; r: RowResult }[],
  counted: readonly { line: number; places: number }[],
): { decimals: number; finding?: PlacesFinding } {
  const known = knownDecimals(asset, owed.commitment ? owed.places : undefined, rows);
  let needed = owed.places;
  for (const c of counted) if (c.places > needed) needed = c.places;
  if (known === undefined) return { decimals: needed };
  if (needed <= known) return { decimals: known };
  const over = [
    ...(owed.places > known ? [{ at: "the liabilities' total", places: owed.places }] : []),
    ...counted.filter((c) => c.places > known).map((c) => ({ at: `line ${c.line}`, places: c.places })),
  ];
  return { decimals: needed, finding: { asset, decimals: known, written: needed, over } };
}
