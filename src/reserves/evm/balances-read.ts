/**
 * State reads of the EVM balances workflow, shared by `reserves balances` and `reserves verify`: native
 * balances (eth_getBalance) and token balances (balanceOf via eth_call) of many addresses at one block, and
 * each token's metadata (code, decimals(), symbol()), in batch arrays through the client's batch path.
 * ABI encoding and decoding come from `ox`, loaded when a read needs it.
 */
import { networkLabel, standInLabel } from "../../chains/assets.js";
import type { ChainGroup } from "../../chains/index.js";
import { accountNetworkId, genesisOfNetwork, type NetworkId } from "../../chains/networks.js";
import { ChaingwError, IntegrityError, RpcError, TransportError } from "../../errors/index.js";
import type { JsonObject, JsonValue } from "../../json/lossless.js";
import { explainError, type Prepared, prepareRaw } from "../../methods/prepare.js";
import { type BatchOutcome, callBatch, callChunked } from "../../rpc/batch.js";
import type { JsonRpcClient } from "../../rpc/client.js";
import { isJsonObject } from "../../util/text.js";

/** The node cannot read state at that block: not an archive node, or a chain that serves the head only. */
export class StateUnavailableError extends TransportError {}

/**
 * The block state is read at: a number ("0x…") or a tag ("latest"), or one block by its hash (EIP-1898
 * `{ "blockHash": "0x…" }`: every read of a proof pinned to the block its block step checked, never whatever
 * block has that number by the time it is asked; `number` for the words). A chain whose JSON-RPC takes no
 * EIP-1898 object (chains/types.ts `eip1898`: java-tron's runs it at the head) is read by number or tag.
 */
export type StateAt = string | { blockHash: string; number: number };

/** `at` as the block parameter a state read sends. */
export const atParam = (at: StateAt): string | { blockHash: string } =>
  typeof at === "string" ? at : { blockHash: at.blockHash };

/** `at` as a block number ("0x…") or tag, for eth_getBlockByNumber. */
export const atNumber = (at: StateAt): string =>
  typeof at === "string" ? at : `0x${at.number.toString(16)}`;

/** Entries per array, and arrays in flight at once. */
const ARRAY = 250;
const IN_FLIGHT = 4;

/** A read of chaingw's own while the registry has no definition of it: a state read at one block is idempotent. */
const READ_MARKS = Object.freeze({ idempotent: true, heavy: false });

export function prepareRead(chain: ChainGroup, method: string, params: unknown[]): Prepared {
  const p = prepareRaw(method, params, chain.name);
  return p.def ? p : { ...p, marks: READ_MARKS };
}

/** What node errors mean "I do not have the state of that block" (geth, erigon, reth, nethermind, java-tron). */
const NO_STATE =
  /missing trie node|header not found|state (is )?not available|historical state|state histor|pruned|required historical|unknown block|QUANTITY not supported|just support TAG/i;

/** Many requests in arrays, a few arrays in flight; outcomes in request order. */
export async function readMany(
  client: JsonRpcClient,
  chain: ChainGroup,
  entries: Prepared[],
  onProgress?: (done: number, total: number) => void,
  signal?: AbortSignal,
): Promise<BatchOutcome[]> {
  return callChunked(client, entries, {
    size: Math.min(ARRAY, chain.evm?.maxBatch ?? ARRAY),
    inFlight: IN_FLIGHT,
    onProgress,
    signal,
  });
}

/** `block` as the text a message shows: "the latest block", "block 7", "block 7 (0x…)". */
export const blockText = (block: StateAt): string =>
  typeof block !== "string"
    ? `block ${block.number} (${block.blockHash})`
    : block === "latest"
      ? "the latest block"
      : `block ${BigInt(block)}`;

/** A node's answer to a read by block hash that it does not know that block (anvil -32001, geth, erigon). */
const NO_BLOCK = /resource not found|header for hash not found|block not found|unknown block/i;

/** A node error as the failure of one read, named; state the node lacks is exit 3, anything else as it is. */
export function readFailure(p: Prepared, e: ChaingwError, what: string, block: StateAt): ChaingwError {
  if (e instanceof RpcError && typeof block !== "string" && NO_BLOCK.test(e.rpcMessage))
    return new StateUnavailableError(
      `${e.endpoint}: cannot read ${what} at ${blockText(block)}: ${e.rpcMessage} (the node does not know that block: reorganised away?)`,
      { hint: "Verify again: the proof's block is asked again first.", cause: e },
    );
  if (e instanceof RpcError && NO_STATE.test(e.rpcMessage))
    return new StateUnavailableError(
      `${e.endpoint}: cannot read ${what} at ${blockText(block)}: ${e.rpcMessage}`,
      {
        hint: p.chain.evm?.pinnedStateReads
          ? "The node does not keep the state of that block (not an archive node, or the block is unknown to it); ask an archive node (--url)."
          : `The ${p.chain.name} chain's JSON-RPC serves state at the latest block only.`,
        cause: e,
      },
    );
  if (e instanceof RpcError) {
    const x = explainError(p, e) as RpcError;
    return new RpcError(e.code, e.rpcMessage, e.data, e.endpoint, `${what}: ${x.message}`);
  }
  return e;
}

/** A QUANTITY answer as a bigint, or an integrity error naming the read. */
function quantityOf(v: JsonValue, what: string): bigint {
  if (typeof v === "string" && /^0x[0-9a-fA-F]{1,64}$/.test(v)) return BigInt(v);
  throw new IntegrityError(`${what}: the node answered ${JSON.stringify(v)}, not a QUANTITY`);
}

export interface TokenMeta {
  address: string;
  symbol: string | null;
  symbol_source: "string" | "bytes32" | "none";
  decimals: number | null;
}

type Ox = typeof import("ox/AbiFunction");
let ox: Ox | undefined;
const abi = async (): Promise<Ox> => {
  ox ??= (await import("../../util/ox.js")).AbiFunction;
  return ox;
};

const SIGS = {
  balanceOf: "function balanceOf(address) view returns (uint256)",
  decimals: "function decimals() view returns (uint8)",
  symbol: "function symbol() view returns (string)",
  symbol32: "function symbol() view returns (bytes32)",
} as const;

/**
 * Each token's code, decimals() and symbol() at `block`, one array. A token without code is a chain answer
 * (exit 1) naming the address; decimals() or symbol() that revert or answer nothing are recorded as unknown
 * (metadata is optional in ERC-20); a symbol may be an ABI string or a bytes32 word (MKR, SAI).
 */
export async function readTokenMeta(
  client: JsonRpcClient,
  chain: ChainGroup,
  tokens: string[],
  block: StateAt,
  signal?: AbortSignal,
): Promise<TokenMeta[]> {
  if (tokens.length === 0) return [];
  const A = await abi();
  const fn = {
    decimals: A.from(SIGS.decimals),
    symbol: A.from(SIGS.symbol),
    symbol32: A.from(SIGS.symbol32),
  };
  const b = atParam(block);
  const entries = tokens.flatMap((t) => [
    prepareRead(chain, "eth_getCode", [t, b]),
    prepareRead(chain, "eth_call", [{ to: t, data: A.encodeData(fn.decimals) }, b]),
    prepareRead(chain, "eth_call", [{ to: t, data: A.encodeData(fn.symbol) }, b]),
  ]);
  const res = await readMany(client, chain, entries, undefined, signal);
  return tokens.map((address, k) => {
    const [code, dec, sym] = [res[3 * k], res[3 * k + 1], res[3 * k + 2]] as BatchOutcome[];
    const notContract = () =>
      new IntegrityError(`token ${address}: not a contract at ${blockText(block)} (no code there)`, {
        hint: "Check the --token address and the chain (--chain, --url).",
      });
    if (code instanceof RpcError && /not a smart contract|no contract/i.test(code.rpcMessage))
      throw notContract();
    // a node without eth_getCode (-32601) leaves the question to the calls below
    if (code instanceof ChaingwError && !(code instanceof RpcError && code.code === -32601))
      throw readFailure(entries[3 * k] as Prepared, code, `token ${address}: eth_getCode`, block);
    if (!(code instanceof ChaingwError) && (code.result === "0x" || code.result === "")) throw notContract();
    for (const [o, i] of [
      [dec, 1],
      [sym, 2],
    ] as const) {
      if (o instanceof RpcError && /not a smart contract|no contract/i.test(o.rpcMessage))
        throw notContract();
      if (o instanceof ChaingwError && !(o instanceof RpcError && chain.evm?.isRevert(o)))
        throw readFailure(
          entries[3 * k + i] as Prepared,
          o,
          `token ${address}: ${i === 1 ? "decimals()" : "symbol()"}`,
          block,
        );
    }
    let decimals: number | null = null;
    if (!(dec instanceof ChaingwError) && typeof dec.result === "string" && dec.result.length >= 66) {
      const d = BigInt(dec.result.slice(0, 66));
      if (d > 77n)
        throw new IntegrityError(
          `token ${address}: decimals() answered ${d}; a uint256 has at most 78 digits`,
        );
      decimals = Number(d);
    }
    let symbol: string | null = null;
    let symbol_source: TokenMeta["symbol_source"] = "none";
    if (!(sym instanceof ChaingwError) && typeof sym.result === "string") {
      const hex = sym.result as `0x${string}`;
      if (hex.length === 66) {
        // exactly one word: a bytes32 symbol (an ABI string is at least two words)
        const bytes = Buffer.from(hex.slice(2), "hex");
        const end = bytes.indexOf(0);
        symbol = cleanSymbol(bytes.subarray(0, end < 0 ? 32 : end).toString("utf8"));
        symbol_source = symbol === null ? "none" : "bytes32";
      } else if (hex.length > 66) {
        try {
          symbol = cleanSymbol(A.decodeResult(fn.symbol, hex) as string);
          symbol_source = symbol === null ? "none" : "string";
        } catch {
          symbol = null;
        }
      }
    }
    return { address, symbol, symbol_source, decimals };
  });
}

/** A symbol fit to print: no control characters, at most 32 characters; null when nothing is left. */
function cleanSymbol(s: string): string | null {
  const t = s
    .replace(/[\u0000-\u001f\u007f\ufffd]/g, "")
    .trim()
    .slice(0, 32);
  return t === "" ? null : t;
}

/** An asset to read: "native" or a token contract. */
export type AssetId = string;

/**
 * Balances of every address for every asset at `block` ("0x…" number, or "latest" where the chain serves
 * nothing else): `[asset][address]` in base units. A revert of balanceOf, or a token answering no bytes, is a
 * chain answer naming the token and the holder (exit 1); a node without that block's state is exit 3.
 */
export async function readBalances(
  client: JsonRpcClient,
  chain: ChainGroup,
  assets: AssetId[],
  addresses: string[],
  block: StateAt,
  onProgress?: (done: number, total: number) => void,
  signal?: AbortSignal,
): Promise<bigint[][]> {
  const res = await readBalanceOutcomes(client, chain, assets, addresses, block, onProgress, signal);
  return res.map((row) =>
    row.map((o) => {
      if (o instanceof ChaingwError) throw o;
      return o;
    }),
  );
}

/**
 * {@link readBalances} with each read's own outcome: a balance, or the error that read alone met (the
 * others still read), for callers that judge each address apart.
 */
export async function readBalanceOutcomes(
  client: JsonRpcClient,
  chain: ChainGroup,
  assets: AssetId[],
  addresses: string[],
  block: StateAt,
  onProgress?: (done: number, total: number) => void,
  signal?: AbortSignal,
): Promise<(bigint | ChaingwError)[][]> {
  const b = atParam(block);
  const A = assets.some((a) => a !== "native") ? await abi() : undefined;
  const balanceOf = A?.from(SIGS.balanceOf);
  const entries: Prepared[] = [];
  for (const asset of assets) {
    if (asset === "native") {
      for (const a of addresses) entries.push(prepareRead(chain, "eth_getBalance", [a, b]));
    } else {
      // the selector once; each holder is one padded word after it
      const selector = A!.getSelector(balanceOf!);
      for (const a of addresses)
        entries.push(
          prepareRead(chain, "eth_call", [
            { to: asset, data: `${selector}${a.slice(2).padStart(64, "0")}` },
            b,
          ]),
        );
    }
  }
  const res = await readMany(client, chain, entries, onProgress, signal);
  const n = addresses.length;
  return assets.map((asset, i) =>
    addresses.map((holder, j) => {
      const o = res[i * n + j] as BatchOutcome;
      const what = asset === "native" ? `eth_getBalance(${holder})` : `token ${asset}: balanceOf(${holder})`;
      if (o instanceof ChaingwError) return readFailure(entries[i * n + j] as Prepared, o, what, block);
      try {
        if (asset === "native") return quantityOf(o.result, what);
        const hex = o.result;
        if (hex === "0x")
          throw new IntegrityError(`${what}: the token answered no bytes (not a contract, or no balanceOf)`);
        if (typeof hex !== "string" || !/^0x([0-9a-fA-F]{64})+$/.test(hex))
          throw new IntegrityError(
            `${what}: the answer ${JSON.stringify(hex).slice(0, 80)} is not a uint256 word`,
          );
        return BigInt(hex.slice(0, 66));
      } catch (e) {
        if (e instanceof IntegrityError) return e;
        throw e;
      }
    }),
  );
}

/** A block as the node states it: number and hash, or null when the node has none at that number. */
export async function readBlock(
  client: JsonRpcClient,
  chain: ChainGroup,
  ref: string,
): Promise<{ number: number; hash: string } | null> {
  const b = await readBlockTimed(client, chain, ref);
  return b && { number: b.number, hash: b.hash };
}

/** {@link readBlock} with the block's time (Unix seconds), when the answer has a well-formed `timestamp`. */
export async function readBlockTimed(
  client: JsonRpcClient,
  chain: ChainGroup,
  ref: string,
): Promise<{ number: number; hash: string; time?: number } | null> {
  const p = prepareRead(chain, "eth_getBlockByNumber", [ref, false]);
  const [o] = await callBatch(client, [p]);
  if (o instanceof ChaingwError) throw o;
  const b = o!.result;
  if (b === null) return null;
  const r = isJsonObject(b) ? (b as JsonObject) : undefined;
  const num = r?.number;
  const hash = r?.hash;
  if (
    typeof num !== "string" ||
    !/^0x[0-9a-fA-F]{1,13}$/.test(num) ||
    typeof hash !== "string" ||
    !/^0x[0-9a-fA-F]{64}$/.test(hash)
  )
    throw new IntegrityError(`eth_getBlockByNumber(${ref}): the answer lacks a block number or hash`);
  p.def?.verify?.(b, p.params);
  const ts = r?.timestamp;
  const time = typeof ts === "string" && /^0x[0-9a-fA-F]{1,13}$/.test(ts) ? Number(BigInt(ts)) : undefined;
  return { number: Number(BigInt(num)), hash: hash.toLowerCase(), ...(time === undefined ? {} : { time }) };
}

/** The chain id (eth_chainId), decimal. */
export async function readChainId(client: JsonRpcClient, chain: ChainGroup): Promise<bigint> {
  const [o] = await callBatch(client, [prepareRead(chain, "eth_chainId", [])]);
  if (o instanceof ChaingwError) throw o;
  return quantityOf(o!.result, "eth_chainId");
}

/**
 * The network a node answered, by `readAccountNetwork`; `named`: how the chain step names it; `standIn`: the
 * network a devnet on its chain id was declared to stand in for (`--stand-in`), as every verdict names it.
 */
export type AccountNetwork =
  | { id: NetworkId; network: { name: string; symbol?: string } | undefined; named: string; standIn?: string }
  | {
      unread: string;
      /**
       * strict, the node answered its chain id and block 0 and is not that network: what it is, as the
       * not-strict read names it (`id` its chain id and genesis) — so a caller naming its chain asks block 0 once
       */
      notIt?: { id: NetworkId; named: string };
    };

/** How a node on a known chain id but another genesis is taken (`readAccountNetwork`). */
export interface NetworkRule {
  /** the networks (table names: "ethereum", "tron-mainnet") a devnet on their chain id may stand in for */
  standIns?: ReadonlySet<string>;
  /**
   * verifying: such a node, not declared, cannot say (`unread`) — it is not the network its chain id names.
   * Absent (proving): it is named as what it is ("chain id 1 (not Ethereum: …)") and its proof names no network.
   */
  strict?: boolean;
}

/**
 * The network a node of chain id `chainId` is on (networks.ts `accountNetworkId`): where the table knows that
 * chain id's genesis (Ethereum's, TRON's), the node's block 0 is asked (eth_getBlockByNumber("0x0")), and a
 * node whose genesis is another is not that network — `network` undefined, `id` "evm:<chain id>/<genesis>";
 * when verifying (`rule.strict`) it cannot say, naming its chain id, its genesis and the network's, unless
 * declared a stand-in for that network (`rule.standIns`): then read, named "a stand-in for Ethereum (genesis
 * 0x…)" in every verdict, its id still its own (never the real network's coins: solvency's identity rule).
 * One request more, only on those chain ids. A node that cannot answer it: `unread`, why (it cannot say).
 * The one reader every path asks (reserves verify of both kinds, report --verify, solvency).
 */
export async function readAccountNetwork(
  client: JsonRpcClient,
  chain: ChainGroup,
  chainId: bigint,
  rule: NetworkRule = {},
): Promise<AccountNetwork> {
  const network = chain.evm?.network(chainId);
  const label = networkLabel(`evm:${chainId}`);
  // a label that already says its chain id is not said twice: "anvil (chain id 31337)", "chain id 1 (Ethereum)"
  const named = !network
    ? `chain id ${chainId}`
    : label.includes(`chain id ${chainId}`)
      ? label
      : `chain id ${chainId} (${label})`;
  const want = network && genesisOfNetwork(network.name);
  if (!network || want === undefined) return { id: `evm:${chainId}`, network, named };
  let genesis: string | undefined;
  try {
    genesis = (await readBlock(client, chain, "0x0"))?.hash;
  } catch (e) {
    if (!(e instanceof ChaingwError)) throw e;
    return {
      unread: `the node on chain id ${chainId} did not give its genesis block (eth_getBlockByNumber 0x0: ${e.message}), which tells whether it is ${label}`,
    };
  }
  const id = accountNetworkId(chainId, network.name, genesis);
  if (id === `evm:${chainId}`) return { id, network, named };
  const its = genesis === undefined ? "it gave no genesis block" : `its genesis block is ${genesis}`;
  if (rule.standIns?.has(network.name))
    return {
      id,
      network,
      named: standInLabel(chainId, label, genesis),
      standIn: label,
    };
  if (rule.strict)
    return {
      unread: `the node answers chain id ${chainId}, ${label}'s, but ${its}, not ${label}'s ${want}: it is not ${label} and cannot say what ${label} holds (a devnet standing in for ${label}: --stand-in ${network.name})`,
      notIt: { id, named: networkLabel(id) },
    };
  return { id, network: undefined, named: networkLabel(id) };
}
