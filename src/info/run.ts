/**
 * `chaingw info` (bitcoin-cli -getinfo): a node's state at a glance from a few registry reads sent in
 * parallel. A UTXO node: chain, blocks and headers, verification progress, connections, version, relay
 * fee, mempool. An EVM-style node: chain id, head, syncing, gas price, client. Data out, never printed.
 */
import type { ChainGroup } from "../chains/index.js";
import { RpcError } from "../errors/index.js";
import { type JsonValue, parseLossless } from "../json/lossless.js";
import { findMethod } from "../methods/index.js";
import { prepare, prepareRaw, send } from "../methods/prepare.js";
import type { JsonRpcClient } from "../rpc/client.js";
import { isJsonObject } from "../util/text.js";

/** The fields of getblockchaininfo and getnetworkinfo that `info` shows, in its order. */
const BLOCKCHAIN_FIELDS = [
  "chain",
  "blocks",
  "headers",
  "bestblockhash",
  "verificationprogress",
  "initialblockdownload",
  "pruned",
] as const;
const NETWORK_FIELDS = [
  "connections",
  "connections_in",
  "connections_out",
  "version",
  "subversion",
  "relayfee",
] as const;

export interface NodeInfo {
  /** field → value, number tokens as the node sent them */
  fields: Record<string, JsonValue>;
  /** the calls that failed (the node may not offer them): "getmempoolinfo: error -32601: ..." */
  errors: string[];
}

type Obj = Record<string, JsonValue>;
const obj = (v: JsonValue | undefined): Obj => (isJsonObject(v) ? (v as Obj) : {});

/** The calls of each kind of node, the first one required (its failure is the command's). */
const UTXO_CALLS = ["getblockchaininfo", "getnetworkinfo", "getmempoolinfo"];
const EVM_CALLS = ["eth_blockNumber", "eth_chainId", "eth_syncing", "eth_gasPrice", "web3_clientVersion"];

export async function nodeInfo(
  client: JsonRpcClient,
  chain: ChainGroup,
  scanTimeoutMs: number,
): Promise<NodeInfo> {
  const calls = chain.evm ? EVM_CALLS : UTXO_CALLS;
  const settled = await Promise.allSettled(
    calls.map((m) =>
      send(client, prepare(findMethod(m, chain.name), { params: [] }), { scanTimeoutMs }).then((r) =>
        parseLossless(r.raw),
      ),
    ),
  );
  const first = settled[0];
  if (first.status === "rejected") throw await otherKind(client, chain, first.reason, scanTimeoutMs);
  const got: Record<string, JsonValue | undefined> = {};
  const errors: string[] = [];
  settled.forEach((s, i) => {
    if (s.status === "fulfilled") got[calls[i]] = s.value;
    else errors.push(`${calls[i]}: ${(s.reason as Error)?.message ?? String(s.reason)}`);
  });
  const fields: Record<string, JsonValue> = {};
  const put = (k: string, v: JsonValue | undefined) => {
    if (v !== undefined) fields[k] = v;
  };
  if (chain.evm) {
    put("chainId", got.eth_chainId);
    put("blockNumber", got.eth_blockNumber);
    put("syncing", got.eth_syncing);
    put("gasPrice", got.eth_gasPrice);
    put("client", got.web3_clientVersion);
    return { fields, errors };
  }
  const bc = obj(got.getblockchaininfo);
  const net = obj(got.getnetworkinfo);
  const pool = obj(got.getmempoolinfo);
  for (const k of BLOCKCHAIN_FIELDS) put(k, bc[k]);
  for (const k of NETWORK_FIELDS) put(k, net[k]);
  if (got.getmempoolinfo !== undefined)
    fields.mempool = Object.fromEntries(
      ["size", "bytes", "usage", "mempoolminfee"]
        .filter((k) => pool[k] !== undefined)
        .map((k) => [k, pool[k]]),
    ) as Obj;
  put("warnings", bc.warnings ?? net.warnings);
  return { fields, errors };
}

/**
 * The node does not know the first call (-32601): when it answers the other kind's first call, the
 * error says which kind of node it is and the --chain to name.
 */
async function otherKind(client: JsonRpcClient, chain: ChainGroup, e: unknown, scanTimeoutMs: number) {
  if (!(e instanceof RpcError) || e.code !== -32601) return e;
  const probe = chain.evm
    ? prepareRaw("getblockchaininfo", [], "utxo")
    : prepareRaw("eth_chainId", [], "evm");
  try {
    const r = await send(client, probe, { scanTimeoutMs });
    e.hint = chain.evm
      ? "the node answers getblockchaininfo: a bitcoind-family node; use --chain utxo"
      : `the node answers eth_chainId (${r.raw.replace(/"/g, "")}): an EVM node; add --chain evm`;
  } catch {
    // the node knows neither: the error stands as it is
  }
  return e;
}
