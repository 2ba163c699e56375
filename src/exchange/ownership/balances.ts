/**
 * What the chain says about an exchange's rows where a node is given (`--node NET=URL`): each EVM row's
 * balance re-read at its snapshot block (eth_getBalance for the network's own coin, balanceOf for a token
 * named by `--token SYMBOL=ADDRESS`), and a contract wallet's owners and threshold (a Safe's getOwners() and
 * getThreshold()) at that block. TRON rows are read at the head (java-tron's JSON-RPC serves no other
 * block): a balance at the snapshot only when the head is the snapshot's block, else the head's, shown and
 * never taken for the snapshot's. Rows of networks without a node keep their amounts as claimed.
 */

import { bytesToHex } from "@noble/hashes/utils.js";
import { networkNamed, tokenHex, wellKnownBackings } from "../../chains/assets.js";
import type { NetworkName } from "../../chains/coins.js";
import { tronToHex20 } from "../../chains/tron.js";
import { ChaingwError, TransportError } from "../../errors/index.js";
import { JsonNumber } from "../../json/lossless.js";
import { DEFAULT_ABORT_WAIT_S } from "../../reserves/defaults.js";
import {
  readBalanceOutcomes,
  readBlock,
  readTokenMeta,
  type TokenMeta,
} from "../../reserves/evm/balances-read.js";
import { abortTimedOut, startScan } from "../../reserves/utxo/scan.js";
import { amountText, parseUnits } from "../../util/units.js";
import {
  EXCHANGE_CHAINS,
  exchangeChainOf,
  isTronNetwork,
  nativeOn,
  type UtxoCoin,
  utxoCoinOf,
} from "./coins.js";
import { contractOwners, type OwnersCheck } from "./owners.js";
import type { OwnershipFile, OwnershipRow } from "./read.js";
import { decodeUtxoAddress, isEvmAddress, isTronAddress, scriptOf } from "./signatures.js";
import { probeRows, type TokenTracking } from "./tracking.js";

export { answeredLabel, askNetworks, type ChainNode, nodeName } from "./node-networks.js";
export type { OwnersCheck } from "./owners.js";

import { type ChainNode, nodeName } from "./node-networks.js";

/** A read its node did not answer (refused, failed, an error for an answer): cannot say, the node named. */
const unansweredRead = (n: ChainNode, e: Error): BalanceCheck => ({
  holds: null,
  detail: `the node given for ${nodeName(n)} did not answer the read (${e.message}): its balance is not read`,
  unanswered: true,
});

export interface ChainOptions {
  nodes: ChainNode[];
  /** the network of the file's Bitcoin-family addresses */
  network?: NetworkName;
  /** token contracts by symbol ("USDT" → 0x…), for the EVM rows of that coin */
  tokens: Map<string, string>;
  /** TRC-20 contracts by symbol ("USDT" → T…), for the TRON rows of that coin; else the well-known ones */
  tronTokens?: Map<string, string>;
  signal?: AbortSignal;
}

/** The native coins of EVM networks (coins.ts `EXCHANGE_CHAINS`), read with eth_getBalance (18 decimals). */
const NATIVE = new Set(
  EXCHANGE_CHAINS.filter((c) => c.kind === "hex").flatMap((c) => c.natives.map((n) => n.symbol)),
);

/** The network a row is on, as `--node` names it: its network column, else the part after its coin's "-". */
export const networkOf = (row: OwnershipRow): string =>
  (row.network || (row.coin.split("-").at(-1) as string)).toUpperCase();

/** TRON's names in the files ("TRX", "USDT-TRC20", a network column "TRON") are one network for `--node`. */
export const isTronRow = (row: OwnershipRow): boolean =>
  isTronNetwork(networkOf(row)) || isTronAddress(row.address);
/**
 * The chain `--node NET` names: one chain's spellings in the files as one (`EXCHANGE_CHAINS`: ETH and ERC20,
 * BSC and BEP20, TRON's three), else the name itself.
 */
export const nodeKey = (net: string): string => exchangeChainOf(net)?.key ?? net.toUpperCase();

/** The node (`--node NET=URL`) that reads a row: the one named for its network's chain, by any spelling. */
export const nodeOfRow = <N extends { network: string }>(
  nodes: readonly N[],
  row: OwnershipRow,
): N | undefined => {
  const want = nodeKey(isTronRow(row) ? "TRON" : networkOf(row));
  return nodes.find((n) => nodeKey(n.network) === want);
};

export interface BalanceCheck {
  /** the chain's balance in the row's units, as text */
  value?: string;
  block?: string;
  /** the places of the amount the chain answered: the token's decimals() at the block, else its coin's */
  decimals?: number;
  /**
   * true: at least the claimed amount; false: less; null: not judged at the snapshot (why in detail) — not
   * read, or (`value` given) read at a head that is not the snapshot's block
   */
  holds: boolean | null;
  detail: string;
  /** the node given for the row did not answer (which chain it is on, or the read itself): cannot say */
  unanswered?: true;
  /**
   * a token row's: its balanceOf moves with a native balance (tracks true: the native coin again, it backs
   * nothing twice), or whether it does the node cannot tell (null) — tracking.ts; absent: it does not, or not
   * a token
   */
  tracking?: TokenTracking;
}

export interface ChainChecks {
  balance(row: OwnershipRow): Promise<BalanceCheck | undefined>;
  owners(row: OwnershipRow, signers: string[]): Promise<OwnersCheck>;
}

/** The snapshot block of a row: its own height, else the summary's for its coin. */
export function blockOf(file: OwnershipFile, row: OwnershipRow): string | undefined {
  const h = row.height ?? file.summary.find((s) => s.coin === row.coin)?.height;
  return h && /^\d+$/.test(h) ? `0x${BigInt(h).toString(16)}` : undefined;
}

/** A node's UTXO set as one scantxoutset answered it: its height and each script's total (base units). */
interface UtxoSet {
  height: number;
  by: Map<string, bigint>;
}

/** Rows' balance reads of one asset at one block on one node, gathered to go out as one batch. */
interface Gathered {
  node: ChainNode;
  asset: string;
  block: string;
  waiting: { address: string; done: (v: bigint | Error) => void }[];
  /** `c.headsStarted` when the node's answer came back: head reads started later were sent after it */
  answered?: number;
}

/**
 * What the checks of one file share: the file, the options, each node's one scan (started once), and the
 * reads rows ask at once gathered into batches (`gathered`), a token's metadata read once per block
 * (`metas`), a head read in flight joined by every row that asks for one then (`heads`, each with the count of
 * head reads started when it was, `headsStarted`).
 */
interface ChainContext {
  file: OwnershipFile;
  o: ChainOptions;
  scans: Map<ChainNode, Promise<UtxoSet | string>>;
  gathered: Map<string, Gathered>;
  metas: Map<string, Promise<TokenMeta[]>>;
  heads: Map<ChainNode, { read: ReturnType<typeof readBlock>; started: number }>;
  headsStarted: number;
  /** the tracking probe's answer per node and block, asked once for every token read there (tracking.ts) */
  probes: Map<string, Promise<Map<string, TokenTracking>>>;
}

/**
 * One address's balance of `asset` ("native" or a contract) at `block`: gathered with every other row's
 * that asks in the same turn, and read with them in batch arrays (`readBalanceOutcomes`: arrays the node's
 * size, a few in flight), each address's own outcome back to it.
 */
function gatheredBalance(
  c: ChainContext,
  node: ChainNode,
  asset: string,
  address: string,
  block: string,
): Promise<{ value: bigint; answered: number }> {
  const key = `${c.o.nodes.indexOf(node)}|${asset}|${block}`;
  let g = c.gathered.get(key);
  if (!g) {
    const fresh: Gathered = { node, asset, block, waiting: [] };
    c.gathered.set(key, fresh);
    setImmediate(() => void readGathered(c, key, fresh));
    g = fresh;
  }
  const gathered = g;
  return new Promise((resolve, reject) =>
    gathered.waiting.push({
      address,
      done: (v) => (v instanceof Error ? reject(v) : resolve({ value: v, answered: gathered.answered ?? 0 })),
    }),
  );
}

async function readGathered(c: ChainContext, key: string, g: Gathered): Promise<void> {
  c.gathered.delete(key);
  const addresses = [...new Set(g.waiting.map((w) => w.address))];
  let by: Map<string, bigint | Error>;
  try {
    const [out] = await readBalanceOutcomes(
      g.node.client,
      g.node.chain,
      [g.asset],
      addresses,
      g.block,
      undefined,
      c.o.signal,
    );
    by = new Map(addresses.map((a, k) => [a, (out as (bigint | Error)[])[k] as bigint | Error]));
    g.answered = c.headsStarted;
  } catch (e) {
    for (const w of g.waiting) w.done(e instanceof Error ? e : new Error(String(e)));
    return;
  }
  for (const w of g.waiting) w.done(by.get(w.address) as bigint | Error);
}

/** A token's metadata at `block`, read once for every row of it. */
function tokenMeta(c: ChainContext, node: ChainNode, token: string, block: string): Promise<TokenMeta[]> {
  const key = `${c.o.nodes.indexOf(node)}|${token}|${block}`;
  let p = c.metas.get(key);
  if (!p) {
    p = readTokenMeta(node.client, node.chain, [token], block, c.o.signal);
    c.metas.set(key, p);
  }
  return p;
}

/**
 * The node's head, as a read in flight answers it to every row that asks while it is (each later ask: a new
 * read). `since` (the `c.headsStarted` when the row's balance was answered, `Gathered.answered`): only a read
 * started after that is joined; one sent earlier may have been answered by the node before the balance was, so
 * its head says nothing of the block the balance was read at.
 */
function headOf(c: ChainContext, node: ChainNode, since = -1): ReturnType<typeof readBlock> {
  const inFlight = c.heads.get(node);
  if (inFlight && inFlight.started > since) return inFlight.read;
  const read = readBlock(node.client, node.chain, "latest");
  const entry = { read, started: ++c.headsStarted };
  const clear = () => void (c.heads.get(node) === entry && c.heads.delete(node));
  read.then(clear, clear);
  c.heads.set(node, entry);
  return read;
}

/**
 * The balance re-read against the row's claim: at least the claimed amount holds, less does not. `how` is
 * the detail's note after the block (" (scantxoutset)").
 */
function judgedBalance(
  value: bigint,
  claimed: bigint,
  decimals: number,
  at: string,
  how: string,
): BalanceCheck {
  // both in base units; written the one way, in coin units with the coin's decimals (util/units.ts)
  const shown = amountText(value, decimals);
  return value >= claimed
    ? { value: shown, block: at, decimals, holds: true, detail: `holds ${shown} at ${at}${how}` }
    : {
        value: shown,
        block: at,
        decimals,
        holds: false,
        detail: `holds ${shown} at ${at}${how}, less than the ${amountText(claimed, decimals)} claimed`,
      };
}

/** One scantxoutset on `node` for every address of its rows: the UTXO set's height and each script's total. */
async function scanUtxoSet(c: ChainContext, node: ChainNode, coin: UtxoCoin): Promise<UtxoSet | string> {
  const addresses = new Set<string>();
  for (const r of c.file.rows) {
    if (nodeOfRow(c.o.nodes, r) !== node) continue;
    if (typeof decodeUtxoAddress(coin, r.address) !== "string") addresses.add(r.address);
  }
  const endpoint = node.client.endpoints[0] as (typeof node.client.endpoints)[number];
  const bound = { scanTimeoutMs: node.scanTimeoutMs ?? 0, abortWaitMs: DEFAULT_ABORT_WAIT_S * 1000 };
  try {
    const { result } = await startScan({
      client: node.client,
      endpoint,
      objects: [...addresses].map((a) => `addr(${a})`),
      // the node's one pass over its UTXO set, bounded by --scan-timeout as reserves scan's is
      scanTimeoutMs: bound.scanTimeoutMs,
      wait: false,
      pollMs: 1000,
      signal: c.o.signal,
    });
    const r = result as { height?: unknown; unspents?: { scriptPubKey?: unknown; amount?: unknown }[] };
    const by = new Map<string, bigint>();
    for (const u of r.unspents ?? []) {
      const raw = u.amount instanceof JsonNumber ? u.amount.raw : String(u.amount);
      const sats = parseUnits(raw, coin.decimals) ?? 0n;
      const key = String(u.scriptPubKey).toLowerCase();
      by.set(key, (by.get(key) ?? 0n) + sats);
    }
    return { height: Number(r.height instanceof JsonNumber ? r.height.raw : r.height), by };
  } catch (e) {
    // cut off by --scan-timeout: the node's scan slot freed by an abort, as reserves scan does
    if (e instanceof TransportError) await abortTimedOut(node.client.withoutSignal(), endpoint, e, bound);
    if (e instanceof ChaingwError) return e.message;
    throw e;
  }
}

/** The node's one scan for all its rows (started by the first row that asks). */
function utxoSetOf(c: ChainContext, node: ChainNode, coin: UtxoCoin): Promise<UtxoSet | string> {
  let p = c.scans.get(node);
  if (!p) {
    p = scanUtxoSet(c, node, coin);
    c.scans.set(node, p);
  }
  return p;
}

/** A Bitcoin-family row: its address's total in the node's UTXO set, when that set is at the snapshot. */
async function utxoBalance(
  c: ChainContext,
  node: ChainNode,
  row: OwnershipRow,
  coin: UtxoCoin,
): Promise<BalanceCheck> {
  const addr = decodeUtxoAddress(coin, row.address);
  const block = blockOf(c.file, row);
  if (typeof addr === "string" || !block)
    return { holds: null, detail: "no address or snapshot height to scan" };
  const s = await utxoSetOf(c, node, coin);
  if (typeof s === "string")
    return {
      holds: null,
      detail: `the node given for ${nodeName(node)} did not answer scantxoutset (${s}): its balance is not read`,
      unanswered: true,
    };
  const want = Number(BigInt(block));
  if (s.height !== want)
    return {
      holds: null,
      detail: `the node's UTXO set is at height ${s.height}, the snapshot's is ${want}: scantxoutset answers for the tip only`,
    };
  const value = s.by.get(bytesToHex(scriptOf(addr))) ?? 0n;
  const claimed = parseUnits(row.amount as string, c.file.units === "base" ? 0 : coin.decimals);
  if (claimed === undefined)
    return { holds: null, detail: `the claimed amount ${row.amount} has more places than ${coin.decimals}` };
  return judgedBalance(value, claimed, coin.decimals, `height ${want}`, " (scantxoutset)");
}

/**
 * One address's balance at `block`: of the token `token` (its contract as the node takes it; its decimals()
 * read at that block; `named` as messages name it) or, without one, of the native coin of `nativeDecimals`
 * places. A token of unknown decimals: not judged.
 */
async function balanceAt(
  c: ChainContext,
  node: ChainNode,
  token: string | undefined,
  address: string,
  block: string,
  nativeDecimals: number,
  named = token,
): Promise<{ value: bigint; decimals: number; answered: number } | BalanceCheck> {
  const decimals = token ? (await tokenMeta(c, node, token, block))[0]?.decimals : nativeDecimals;
  if (decimals === null || decimals === undefined)
    return { holds: null, detail: `token ${named}: decimals() unknown` };
  const { value, answered } = await gatheredBalance(c, node, token ?? "native", address, block);
  return { value, decimals, answered };
}

/** A TRON row's TRC-20 contract: `--token SYMBOL=T…`, else the well-known one; undefined for TRX. */
function tronTokenOf(c: ChainContext, symbol: string): string | undefined {
  if (symbol === "TRX") return undefined;
  const tron = networkNamed("tron-mainnet")?.id;
  return (
    c.o.tronTokens?.get(symbol) ?? wellKnownBackings(symbol)?.backings.find((b) => b.network === tron)?.token
  );
}

/**
 * A TRON row: its balance at the head (java-tron's JSON-RPC reads no other block), taken for the snapshot's
 * only when the head is the snapshot's block and did not move during the read.
 */
async function tronBalance(c: ChainContext, node: ChainNode, row: OwnershipRow): Promise<BalanceCheck> {
  const symbol = (row.coin.split("-")[0] as string).toUpperCase();
  const token = tronTokenOf(c, symbol);
  if (symbol !== "TRX" && !token)
    return {
      holds: null,
      detail: `${symbol} is a TRC-20 token whose contract the file does not name (--token ${symbol}=T…)`,
    };
  const h = row.height ?? c.file.summary.find((s) => s.coin === row.coin)?.height;
  const snapshot = h && /^\d+$/.test(h) ? Number(h) : undefined;
  try {
    const before = await headOf(c, node);
    if (!before) return { holds: null, detail: "the node has no latest block" };
    const hex = token && tokenHex(token);
    const read = await balanceAt(c, node, hex, tronToHex20(row.address), "latest", 6, token);
    if ("holds" in read) return read;
    const { value, decimals, answered } = read;
    // a head read sent after the balance was answered, never one sent before it (it may predate the balance)
    const after = await headOf(c, node, answered);
    const units = c.file.units === "base" ? 0 : decimals;
    const claimed = parseUnits(row.amount as string, units);
    if (claimed === undefined)
      return { holds: null, detail: `the claimed amount ${row.amount} has more places than ${decimals}` };
    const shown = amountText(value, decimals);
    const less = value < claimed ? `, less than the ${amountText(claimed, decimals)} claimed` : "";
    if (!after || after.hash !== before.hash)
      return {
        value: shown,
        holds: null,
        detail: `holds ${shown} at the head, which moved from block ${before.number} to ${after?.number ?? "none"} during the read${less}: not a balance at the snapshot`,
      };
    // java-tron reads state at the head only: the snapshot's balance when the head is the snapshot's block
    if (snapshot !== undefined && before.number === snapshot)
      return judgedBalance(
        value,
        claimed,
        decimals,
        `block ${snapshot}`,
        " (the head, the snapshot's block)",
      );
    return {
      value: shown,
      block: `head ${before.number}`,
      holds: null,
      detail: `holds ${shown} at the head block ${before.number}${less}; the snapshot is ${snapshot === undefined ? "not given" : `block ${snapshot}`} and java-tron's JSON-RPC reads state at the head only, so the amount at the snapshot is as claimed, not read`,
    };
  } catch (e) {
    if (e instanceof ChaingwError) return unansweredRead(node, e);
    if (e instanceof Error && /TRON address/.test(e.message)) return { holds: null, detail: e.message };
    throw e;
  }
}

/**
 * Why an EVM row's balance is not read (undefined: it is read, at the contract `token` or as the native
 * coin): not an EVM address, no snapshot, a native coin of another network, a token without a contract.
 */
function evmUnread(
  row: OwnershipRow,
  block: string | undefined,
  token: string | undefined,
): string | undefined {
  if (!isEvmAddress(row.address)) return `balances of ${row.address} are not read (EVM addresses only)`;
  if (!block) return "the row has no snapshot height to read its balance at";
  const symbol = (row.coin.split("-")[0] as string).toUpperCase();
  // a native coin only on its own network: BNB's row on ETH is not the ether its address holds
  if (!token && NATIVE.has(symbol) && nativeOn(symbol, networkOf(row)) === false)
    return `${symbol} is not ${networkOf(row)}'s own coin: the address's ${networkOf(row)} balance is not read as ${symbol} (--token ${symbol}=0x… names a contract on ${networkOf(row)}); the amount is as claimed`;
  if (!token && !NATIVE.has(symbol))
    return `${symbol} is a token on ${networkOf(row)} whose contract the file does not name (--token ${symbol}=0x…)`;
  return undefined;
}

/** The token contract an EVM row's balance is read at (`--token`), undefined: none (the native coin, or not read). */
function evmTokenOf(c: ChainContext, row: OwnershipRow): string | undefined {
  const token = c.o.tokens.get((row.coin.split("-")[0] as string).toUpperCase());
  return token !== undefined && evmUnread(row, blockOf(c.file, row), token) === undefined ? token : undefined;
}

/**
 * Whether `token` reads the native coin at the rows' addresses on `node` at `block` (tracking.ts): the probe
 * asked once per node and block for every token read there, every EVM address of the node's rows raised.
 */
async function trackingOf(c: ChainContext, node: ChainNode, token: string, block: string) {
  const key = `${c.o.nodes.indexOf(node)}|${block}`;
  let p = c.probes.get(key);
  if (!p) {
    const rows = c.file.rows.filter((r) => !isTronRow(r) && nodeOfRow(c.o.nodes, r) === node);
    const tokenAt = (r: OwnershipRow) => (blockOf(c.file, r) === block ? evmTokenOf(c, r) : undefined);
    p = probeRows(node, rows, tokenAt, block, c.o.signal);
    c.probes.set(key, p);
  }
  return (await p).get(token.toLowerCase());
}

/** An EVM row: the native balance (eth_getBalance) or the token's (balanceOf) at its snapshot block. */
async function evmBalance(c: ChainContext, node: ChainNode, row: OwnershipRow): Promise<BalanceCheck> {
  const block = blockOf(c.file, row);
  const token = c.o.tokens.get((row.coin.split("-")[0] as string).toUpperCase());
  const why = evmUnread(row, block, token);
  if (why !== undefined || !block) return { holds: null, detail: why as string };
  try {
    const [read, tracking] = await Promise.all([
      balanceAt(c, node, token, row.address, block, 18),
      token === undefined ? undefined : trackingOf(c, node, token, block),
    ]);
    if ("holds" in read) return read;
    const { value, decimals } = read;
    const amount = row.amount as string;
    const claimed = c.file.units === "base" ? parseUnits(amount, 0) : parseUnits(amount, decimals);
    if (claimed === undefined)
      return { holds: null, detail: `the claimed amount ${row.amount} has more places than ${decimals}` };
    const judged = judgedBalance(value, claimed, decimals, `block ${BigInt(block)}`, "");
    if (!tracking || tracking.tracks === false) return judged;
    // named where the row is judged: the balance is there, and it is the native coin's
    const note = tracking.tracks
      ? `; but the token at ${token} ${tracking.detail}${tracking.reads?.of === "token" ? "" : ": the native coin again"}`
      : "";
    return { ...judged, detail: `${judged.detail}${note}`, tracking };
  } catch (e) {
    if (e instanceof ChaingwError) return unansweredRead(node, e);
    throw e;
  }
}

/** A row's balance through its network's node: TRON's, a Bitcoin-family coin's, else an EVM chain's. */
async function rowBalance(c: ChainContext, row: OwnershipRow): Promise<BalanceCheck | undefined> {
  const node = nodeOfRow(c.o.nodes, row);
  if (!node || row.amount === undefined) return undefined;
  if (node.unread !== undefined)
    return {
      holds: null,
      detail: node.unread,
      ...(node.id === null || node.notIt ? { unanswered: true } : {}),
    };
  if (isTronRow(row)) return tronBalance(c, node, row);
  const coin = utxoCoinOf(networkOf(row), c.o.network);
  // scantxoutset sees the coin only: a token on its addresses (USDT-BTC, Omni) is not the coin it holds
  const ticker = (row.coin.split("-")[0] as string).toUpperCase();
  if (coin && ticker !== coin.ticker)
    return {
      holds: null,
      detail: `${ticker} is not ${coin.ticker}: the ${coin.ticker} the address holds is not read as its balance (scantxoutset sees ${coin.ticker} only); the amount is as claimed`,
    };
  if (coin) return utxoBalance(c, node, row, coin);
  return evmBalance(c, node, row);
}

/** The chain's checks of a file's rows, through the nodes given: named steps over one context. */
export function chainChecks(file: OwnershipFile, o: ChainOptions): ChainChecks {
  const c: ChainContext = {
    file,
    o,
    scans: new Map(),
    gathered: new Map(),
    metas: new Map(),
    heads: new Map(),
    headsStarted: 0,
    probes: new Map(),
  };
  return {
    balance: (row) => rowBalance(c, row),
    owners: (row, signers) =>
      contractOwners(nodeOfRow(o.nodes, row), blockOf(file, row), networkOf(row), row, signers, o.signal),
  };
}
