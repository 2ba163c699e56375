/**
 * `solvency` over an exchange's package (issue 47): its address/signature file, judged row by row by the
 * ownership verifier (`verify.ts`, with the nodes `reserves verify` takes), held against liabilities totals
 * per coin — a chaingw commitment's, or the root node of an exchange's inclusion proof (taken only from a root
 * given from outside). The same rules as for chaingw's own files:
 *  - a row counts as **proven** only when its key signed and its balance was re-read on chain at the file's
 *    snapshot (status `proven`); a signed row whose amount was not read is **claimed**; failed, unsigned,
 *    unsupported and not-checked rows are named and not counted;
 *  - a coin is the asset it is: a row backs a liabilities coin only when its ticker is the coin's (whatever
 *    the spelling: `USDT-ERC20`, `ERC20-USDT`, `USDT-ETH`) **and** its network is one where chaingw's tables
 *    know that coin (the coin's own chain, or a well-known token's contract chain: `decimalsOf`); USDT on a
 *    chain the table does not name, or ETH relabelled onto BSC, is named and not counted;
 *  - the exchange's fixed signed text ("I am an OKX address") is no audit's challenge: without `--challenge`
 *    accepting it nothing is proven for the audit, and SOLVENT needs it;
 *  - a coin owed that no row backs is NOT SOLVENT for it.
 * Data in, data out: the face reads the files, runs the verifier and reads the snapshots' block times.
 */
import {
  type BackingRef,
  type NetworkId,
  networkLabel,
  networkNamed,
  tokenHex,
  wellKnownBackings,
} from "../../chains/assets.js";
import { COINS, type NetworkName } from "../../chains/coins.js";
import { share } from "../../reserves/claims.js";
import { formatUnits } from "../../util/units.js";
import { isTronRow, networkOf, nodeOfRow } from "./balances.js";
import { decimalsOf, nativeOn } from "./coins.js";
import type { OwnershipFile, OwnershipRow } from "./read.js";
import type { OwnershipReport, RowResult } from "./verify.js";

/** One coin the liabilities owe, in its own base units. */
export interface LiabilityTotal {
  asset: string;
  decimals: number;
  base_units: bigint;
}

export interface ExchangeLiabilities {
  /** "commitment.json (chaingw)" or "okx-v1 inclusion proof x.json" */
  source: string;
  totals: LiabilityTotal[];
  /** the liabilities' date (a commitment's created), null where the file states none */
  date: string | null;
  /** the root the totals stand under, and whether it came from outside (--root, a commitment) */
  root: string | null;
  /** the audit's challenge the commitment carries (`liabilities build --challenge`) */
  challenge?: string;
  /** why the totals cannot be relied on (a root from the file itself), or why they do not hold */
  cannot_say?: string;
  fails?: string;
}

/** The block time of a snapshot height on a network of the file, read from its node (null: not read). */
export interface SnapshotTime {
  network: string;
  height: number;
  /** Unix seconds */
  time: number | null;
  detail?: string;
}

/**
 * What the auditor declared with `--backing ASSET=NETWORK[:TOKEN]` (the asset names of the liabilities), and
 * what tells a row's chain and contract: each `--node`'s network as its node answers (`getblockhash 0`,
 * `eth_chainId`; null: not read), the contracts its balances were read at (`--token`), the Bitcoin-family
 * addresses' network (`--network`).
 */
export interface RowBackings {
  declared: Map<string, BackingRef[]>;
  nodes: { network: string; id: NetworkId | null }[];
  tokens: Map<string, string>;
  tronTokens: Map<string, string>;
  network: NetworkName;
}

/**
 * A row's chain and contract: the network its node answers for (without a node, the one its name claims:
 * a Bitcoin-family coin's on `--network`, TRON's names tron-mainnet, ETH/ERC20 ethereum, else the table's
 * name), and the contract its balance is read at (`--token SYMBOL=…`, else the well-known one there; none:
 * the network's own coin). null: not told.
 */
export function rowIdentity(
  row: OwnershipRow,
  b: RowBackings,
): { network: NetworkId | null; token: string | undefined | null } {
  const name = networkOf(row);
  const symbol = (row.coin.split("-")[0] as string).toUpperCase();
  const utxo = COINS.find((c) => c.ticker === name);
  const node = nodeOfRow(b.nodes, row);
  const genesis = utxo?.networks[b.network]?.genesis;
  const named = isTronRow(row)
    ? networkNamed("tron-mainnet")?.id
    : name === "ETH" || name === "ERC20"
      ? networkNamed("ethereum")?.id
      : networkNamed(name.toLowerCase())?.id;
  const network = node ? node.id : utxo ? (genesis ? `utxo:${genesis}` : null) : (named ?? null);
  const known = (n: NetworkId | null) =>
    wellKnownBackings(symbol)?.backings.find((x) => x.network === n && x.token)?.token ?? null;
  if (utxo) return { network, token: symbol === utxo.ticker ? undefined : null };
  if (isTronRow(row)) {
    const t = b.tronTokens.get(symbol);
    return { network, token: symbol === "TRX" ? undefined : t ? tokenHex(t) : known(network) };
  }
  const t = b.tokens.get(symbol);
  return { network, token: t ? t.toLowerCase() : nativeOn(symbol, name) ? undefined : known(network) };
}

const sameRef = (r: BackingRef, id: ReturnType<typeof rowIdentity>) =>
  id.network !== null && r.network === id.network && r.token === (id.token ?? undefined) && id.token !== null;

/** "LTC on Litecoin regtest", "the token at 0x… on anvil (chain id 31337)", or why it is not told. */
function identityText(id: ReturnType<typeof rowIdentity>): string {
  if (id.network === null)
    return "a network not told (no --node answered for it, and its name is no network's)";
  const on = networkLabel(id.network);
  return id.token === null
    ? `a token whose contract is not named on ${on} (--token SYMBOL=ADDRESS)`
    : id.token === undefined
      ? `the own coin of ${on}`
      : `the token at ${id.token} on ${on}`;
}

export type CoinStatus = "covered" | "claimed-only" | "not-covered" | "cannot-say";

export interface CoinVerdict {
  asset: string;
  decimals: number;
  liabilities: string;
  proven: string;
  claimed: string;
  /** proven ÷ liabilities */
  proven_ratio: string;
  /** claimed ÷ liabilities (proven included) */
  claimed_ratio: string;
  shortfall: string | null;
  status: CoinStatus;
  why: string;
  /** the rows counted: proven or signed with the amount claimed */
  rows: { line: number; coin: string; network: string; address: string; amount: string; proven: boolean }[];
  /** the rows of the coin not counted, and why */
  not_counted: { line: number; coin: string; network: string; status: string; why: string }[];
  /** the reserves' snapshots of the coin's rows: network, height, block time */
  snapshots: { network: string; height: number; block_time: string | null }[];
}

export type ExchangeSolvencyVerdict = "solvent" | "unproven" | "not-solvent" | "cannot-say";

export interface ExchangeSolvencyReport {
  verdict: ExchangeSolvencyVerdict;
  summary: string;
  reserves: {
    format: string;
    verdict: OwnershipReport["verdict"];
    summary: string;
    /** the texts the rows signed */
    messages: string[];
    /** the text the auditor accepted (--challenge), or null: nothing is proven for the audit */
    challenge: string | null;
    /** summary lines that disagree with the rows, as the verifier found them */
    disagreements: string[];
  };
  liabilities: { source: string; date: string | null; root: string | null; note?: string };
  /** the reserves' latest block time against the liabilities' date, where both are known */
  gap: string | null;
  coins: CoinVerdict[];
}

const CHAIN_NAMES = new Set([
  "ETH",
  "ERC20",
  "TRC20",
  "TRON",
  "TRX",
  "BEP20",
  "BSC",
  "BNB",
  "POLY",
  "POLYGON",
  "MATIC",
  "AVAXC",
  "ARBITRUM",
  "OPTIMISM",
  "BASE",
  "OMNI",
  "SOL",
  "ALGO",
]);

/**
 * The coin a row's amount is of, whatever the spelling: the first part of its coin that is not a chain's or
 * a token standard's name ("USDT-ERC20", "ERC20-USDT", "USDT-ETH" → USDT), else its first part ("ETH-ARBITRUM"
 * → ETH, "TRX" → TRX).
 */
export function tickerOf(row: Pick<OwnershipRow, "coin">): string {
  const parts = row.coin.split("-").map((p) => p.trim().toUpperCase());
  return parts.find((p) => !CHAIN_NAMES.has(p)) ?? (parts[0] as string);
}

/** A row's amount as base units of `decimals` (OKX 2022's are base units of the coin's own places), floored. */
function baseUnits(file: OwnershipFile, row: RowResult, rowDecimals: number, decimals: number): bigint {
  const text =
    file.units === "base" ? formatUnits(BigInt(row.amount as string), rowDecimals) : (row.amount as string);
  const [w, f = ""] = text.split(".");
  return (
    BigInt(w || "0") * 10n ** BigInt(decimals) + BigInt(f.slice(0, decimals).padEnd(decimals, "0") || "0")
  );
}

const iso = (s: number) => new Date(s * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");

function gapText(seconds: number): string {
  const a = Math.abs(seconds);
  const [n, unit] = a >= 86400 ? [a / 86400, "day"] : a >= 3600 ? [a / 3600, "hour"] : [a / 60, "minute"];
  const v = Math.round(n * 10) / 10;
  return `${v} ${unit}${v === 1 ? "" : "s"} ${seconds >= 0 ? "after" : "before"} the liabilities' date`;
}

/**
 * How a row stands to `asset` under `--backing`: "declared" (its chain and contract are one the auditor
 * declared for the asset), "other" (declared for another asset), its identity (the asset is declared and the
 * row, named as it, is something else: not counted), or "name" (nothing declared touches it: the tables'
 * names decide, as without --backing).
 */
function backingOf(
  row: OwnershipRow,
  asset: string,
  b: RowBackings | undefined,
): "declared" | "other" | "name" | ReturnType<typeof rowIdentity> {
  if (!b?.declared.size) return "name";
  const id = rowIdentity(row, b);
  for (const [a, refs] of b.declared)
    if (refs.some((r) => sameRef(r, id))) return a === asset ? "declared" : "other";
  return b.declared.has(asset) && tickerOf(row) === asset.toUpperCase() ? id : "name";
}

const RANK: Record<CoinStatus, number> = { covered: 0, "cannot-say": 1, "claimed-only": 2, "not-covered": 3 };

/** One coin owed: the rows that back it (proven, claimed), those that do not (named), the ratios, the status. */
function judgeCoin(
  file: OwnershipFile,
  report: OwnershipReport,
  owed: LiabilityTotal,
  challenge: string | null,
  times: SnapshotTime[],
  backings: RowBackings | undefined,
): CoinVerdict {
  const fmt = (v: bigint) => formatUnits(v, owed.decimals);
  const rows: CoinVerdict["rows"] = [];
  const notCounted: CoinVerdict["not_counted"] = [];
  let proven = 0n;
  let claimed = 0n;
  const heights = new Map<string, number>();
  for (const [i, r] of report.rows.entries()) {
    const row = file.rows[i] as OwnershipRow;
    if (r.amount === null) continue;
    const mine = backingOf(row, owed.asset, backings);
    if (mine === "other" || (mine === "name" && tickerOf(row) !== owed.asset.toUpperCase())) continue;
    const base = { line: r.line, coin: r.coin, network: r.network };
    if (typeof mine === "object") {
      notCounted.push({
        ...base,
        status: r.status,
        why: `${r.coin} is ${identityText(mine)}, not ${backings?.declared
          .get(owed.asset)
          ?.map((x) => x.label)
          .join(" or ")} (--backing ${owed.asset}): not counted as ${owed.asset}`,
      });
      continue;
    }
    // a declared row's places matter only for a file of base units: the coin's, where the tables know them
    const d =
      decimalsOf(row.coin, row.network) ?? (mine === "declared" && file.units !== "base" ? 0 : undefined);
    if (d === undefined) {
      notCounted.push({
        ...base,
        status: r.status,
        why: `${r.coin}${r.network && !r.coin.includes("-") ? ` on ${r.network}` : ""} is not ${owed.asset} on a chain chaingw's tables know (its coin's own chain, or a well-known token's contract chain): not counted as ${owed.asset}`,
      });
      continue;
    }
    if (r.status !== "proven" && r.status !== "signed") {
      notCounted.push({ ...base, status: r.status, why: r.reason });
      continue;
    }
    const amount = baseUnits(file, r, d, owed.decimals);
    // the exchange's fixed text is no audit's challenge: proven for the audit only when the auditor accepts it
    const isProven = r.status === "proven" && challenge !== null;
    claimed += amount;
    if (isProven) proven += amount;
    rows.push({ ...base, address: r.address, amount: fmt(amount), proven: isProven });
    const h = row.height ?? file.summary.find((s) => s.coin === row.coin)?.height;
    if (h && /^\d+$/.test(h)) heights.set(r.network || r.coin, Number(h));
  }
  const liab = owed.base_units;
  const status: CoinStatus = proven >= liab ? "covered" : claimed >= liab ? "claimed-only" : "not-covered";
  const why =
    status === "covered"
      ? `proven ${fmt(proven)} of ${fmt(liab)} ${owed.asset}: signed, and re-read on chain at the snapshot`
      : rows.length === 0
        ? `no reserve row backs ${owed.asset}: short ${fmt(liab)}`
        : status === "claimed-only"
          ? `covered only by claims: proven ${fmt(proven)} of ${fmt(liab)} ${owed.asset}${challenge === null ? " (nothing is proven for the audit without --challenge)" : ""}`
          : `not covered: short ${fmt(liab - proven)} ${owed.asset} (claimed ${fmt(claimed)}, proven ${fmt(proven)})`;
  return {
    asset: owed.asset,
    decimals: owed.decimals,
    liabilities: fmt(liab),
    proven: fmt(proven),
    claimed: fmt(claimed),
    proven_ratio: share(proven, liab),
    claimed_ratio: share(claimed, liab),
    shortfall: proven >= liab ? null : fmt(liab - proven),
    status,
    why,
    rows,
    not_counted: notCounted,
    snapshots: [...heights].map(([network, height]) => {
      const t = times.find((x) => x.network.toUpperCase() === network.toUpperCase() && x.height === height);
      return { network, height, block_time: t?.time == null ? null : iso(t.time) };
    }),
  };
}

export function exchangeSolvency(i: {
  file: OwnershipFile;
  report: OwnershipReport;
  liabilities: ExchangeLiabilities;
  /** the signed text the auditor accepts as the audit's (--challenge), or undefined */
  challenge?: string;
  times: SnapshotTime[];
  /** --backing: what the auditor declared the liabilities' asset names to be */
  backings?: RowBackings;
}): ExchangeSolvencyReport {
  const challenge = i.challenge ?? null;
  const coins = i.liabilities.totals.map((t) =>
    judgeCoin(i.file, i.report, t, challenge, i.times, i.backings),
  );
  const worst = Math.max(0, ...coins.map((c) => RANK[c.status]));
  let verdict: ExchangeSolvencyVerdict = (["solvent", "cannot-say", "unproven", "not-solvent"] as const)[
    worst
  ] as ExchangeSolvencyVerdict;
  if (i.liabilities.fails) verdict = "not-solvent";
  else if (i.liabilities.cannot_say) verdict = "cannot-say";
  const messages = [...new Set(i.file.rows.map((r) => r.message).filter((m) => m.trim() !== ""))];
  const open = coins.filter((c) => c.status !== "covered");
  const summary = i.liabilities.fails
    ? `the liabilities do not hold: ${i.liabilities.fails}`
    : i.liabilities.cannot_say
      ? `the liabilities cannot be relied on: ${i.liabilities.cannot_say}`
      : verdict === "solvent"
        ? `every coin owed (${coins.length}) covered by proven reserves: signed over the accepted text, re-read on chain at the snapshot`
        : open.map((c) => `${c.asset} ${c.why}`).join("; ");
  const times = i.times.flatMap((t) => (t.time === null ? [] : [t.time]));
  const date = i.liabilities.date === null ? null : Date.parse(i.liabilities.date) / 1000;
  const gap =
    date === null || !times.length
      ? null
      : gapText(Math.max(...times.map((t) => Math.abs(t - date))) * (Math.max(...times) >= date ? 1 : -1));
  return {
    verdict,
    summary,
    reserves: {
      format: i.report.format,
      verdict: i.report.verdict,
      summary: i.report.summary_text,
      messages,
      challenge,
      disagreements: i.report.findings
        .filter((f) => f.step === "summary" && f.status === "fails")
        .map((f) => `${f.at ? `${f.at}: ` : ""}${f.text}`),
    },
    liabilities: {
      source: i.liabilities.source,
      date: i.liabilities.date,
      root: i.liabilities.root,
      ...(i.liabilities.cannot_say || i.liabilities.fails
        ? { note: (i.liabilities.fails ?? i.liabilities.cannot_say) as string }
        : {}),
    },
    gap,
    coins,
  };
}
