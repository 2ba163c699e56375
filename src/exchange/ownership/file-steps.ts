/**
 * The address file's own steps (`verify.ts` runs them after every row): the coins whose decimal places chaingw
 * does not know, and the file's summary lines each against the rows of its asset. Each reads the file as read,
 * not the rows' judgments; and what a row's amount is of (`assetKey`), which the repeats step reads too.
 */
import { type FileFinding, fileWords, type SummaryTotal } from "../../judge/words-rows.js";
import type { Finding } from "../../reserves/verdict.js";
import { claim, fails, ok, type VerifyStep } from "../../reserves/verifier.js";
import { basePlacesOf, decimalsOf, exchangeChainOf } from "./coins.js";
import { summaryDecimals } from "./places.js";
import type { OwnershipFile, OwnershipRow, SummaryLine } from "./read.js";

/**
 * What the file's steps read: the file as read, and the places the chain gave each re-read amount, by the
 * row's index (a token's decimals() at the block: what a file of base units is counted in).
 */
interface FileContext {
  file: OwnershipFile;
  chainPlaces: ReadonlyMap<number, number>;
  signal?: AbortSignal;
}

type FileStep = VerifyStep<FileContext, unknown>;

/** An amount of nothing ("0", "0.00", ".0"). */
export const isZero = (a: string) => /^0*(\.0*)?$/.test(a);

/** One chain's names in the files, as one: HTX's USDT-ETH and USDT-ERC20 are one token on one chain. */
const chainKey = (name: string): string => exchangeChainOf(name)?.key ?? name;

/**
 * What a row's amount is of, whatever its spelling: the coin's and the network's names, each chain's aliases
 * as one, in any order ("USDT-ETH", "USDT-ERC20", "ERC20-USDT" and USDT on network ERC20 are one asset).
 */
export function assetKey(row: Pick<OwnershipRow, "coin" | "network">): string {
  // each coin and network spelled once a file, not once a row (split, set, sort and join: 0.8 KB a row)
  const key = `${row.coin}\u0000${row.network}`;
  const kept = assetKept.get(key);
  if (kept !== undefined) return kept;
  if (assetKept.size >= 4096) assetKept.clear();
  const k = assetKeyOf(row);
  assetKept.set(key, k);
  return k;
}

const assetKept = new Map<string, string>();

const assetKeyOf = (row: Pick<OwnershipRow, "coin" | "network">): string =>
  [
    ...new Set(
      [...row.coin.split("-"), row.network]
        .map((x) => x.trim().toUpperCase())
        .filter((x) => x !== "")
        .map(chainKey),
    ),
  ]
    .sort()
    .join("+");

/** The coins whose decimal places no table of chaingw's gives: their amounts are kept as written (a claim). */
const decimals: FileStep = {
  name: "decimals",
  run(ctx) {
    const unknown = new Map<string, number[]>();
    for (const r of ctx.file.rows)
      if (r.amount !== undefined && ctx.file.units === "coin" && decimalsOf(r.coin, r.network) === undefined)
        (unknown.get(r.coin) ?? unknown.set(r.coin, []).get(r.coin))?.push(r.line);
    if (!unknown.size) return [];
    const f: FileFinding = {
      code: "places-unchecked",
      coins: [...unknown].map(([coin, lines]) => ({ coin, lines })),
    };
    return [claim("decimals", fileWords(f))];
  },
};

/** A plain decimal's digits after the point. */
const placesOf = (x: string): number => (x.split(".")[1] ?? "").length;

/** A plain decimal (or base units, `shift` places) as an integer at `scale` places. */
const atScale = (x: string, scale: number, shift = 0): bigint => {
  const [w, f = ""] = x.split(".");
  const places = f.length + shift;
  return BigInt(`${w}${f}` || "0") * 10n ** BigInt(scale - places);
};

/** An integer at `scale` places as a plain decimal. */
const decimalText = (v: bigint, scale: number): string => {
  if (scale === 0) return v.toString();
  const t = v.toString().padStart(scale + 1, "0");
  return `${t.slice(0, -scale)}.${t.slice(-scale)}`.replace(/\.?0+$/, "");
};

/**
 * One summary line of the file against its own rows: the rows of its asset (whatever their spelling: the
 * summary's USDT-ERC20 is the rows' ERC20-USDT) summed exactly, and equal to the line within the places the
 * line and the rows are written to (9185.95 against eight rows of two places each summing to 9185.94 agrees;
 * 12124.63 against 12119.81 does not). A total over a coin's variants ("BTC(ALL)") is shown, not compared:
 * which rows it covers the file does not say.
 */
function summaryFinding(
  file: OwnershipFile,
  s: SummaryLine,
  chainPlaces: FileContext["chainPlaces"],
): Finding {
  const at = `line ${s.line}`;
  const line: SummaryTotal = {
    coin: s.coin,
    amount: s.amount,
    height: s.height ?? null,
    decimals: summaryDecimals(s.coin) ?? null,
  };
  if (/\(all\)$/i.test(s.coin)) return claim("summary", fileWords({ code: "summary-variants", line }), at);
  // the summary's coin read as the reader reads a row's: its network the part after its first "-"
  const key = assetKey({ coin: s.coin, network: s.coin.split("-").slice(1).join("-") });
  const idx = file.rows.flatMap((r, i) => (r.amount !== undefined && assetKey(r) === key ? [i] : []));
  const rows = idx.map((i) => file.rows[i] as OwnershipRow);
  // base units in the places the chain gave the amount it re-read, else the coin's in chaingw's tables
  const shifts = idx.map((i) =>
    file.units === "base"
      ? basePlacesOf(file.rows[i] as OwnershipRow, { balance: { decimals: chainPlaces.get(i) } })
      : 0,
  );
  if (shifts.some((d) => d === undefined))
    return claim("summary", fileWords({ code: "summary-unplaced", line }), at);
  if (rows.length === 0 && !isZero(s.amount))
    return claim("summary", fileWords({ code: "summary-unbacked", line }), at);
  // one place more than any written, so that half a unit of a row's last place is whole
  const scale =
    1 +
    Math.max(placesOf(s.amount), ...rows.map((r, i) => placesOf(r.amount as string) + (shifts[i] as number)));
  let sum = 0n;
  // within one unit of the summary's last place, and half a unit of each row's (base units are exact)
  let slack = 10n ** BigInt(scale - placesOf(s.amount));
  for (const [i, r] of rows.entries()) {
    sum += atScale(r.amount as string, scale, shifts[i] as number);
    if (file.units !== "base") slack += 10n ** BigInt(scale - placesOf(r.amount as string)) / 2n;
  }
  const stated = atScale(s.amount, scale);
  const diff = sum > stated ? sum - stated : stated - sum;
  const total = { line, rows: rows.length, sum: decimalText(sum, scale) };
  if (diff < slack)
    return ok("summary", fileWords({ code: "summary-agrees", ...total, base: file.units === "base" }), at);
  return fails(
    "summary",
    fileWords({
      code: "summary-disagrees",
      ...total,
      more: sum > stated ? "rows" : "summary",
      by: decimalText(diff, scale),
    }),
    at,
  );
}

/** The file's own totals per coin (the block before the address table), each against the rows that make it. */
const summary: FileStep = {
  name: "summary",
  run: (ctx) => ctx.file.summary.map((s) => summaryFinding(ctx.file, s, ctx.chainPlaces)),
};

/** The file's own steps, after every row. */
export const FILE_STEPS: readonly FileStep[] = [decimals, summary];
