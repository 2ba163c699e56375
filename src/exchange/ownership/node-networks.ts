/**
 * The chain each `--node NET=URL` of an exchange's address file is on, asked before any row is read on it:
 * a UTXO chain's genesis, an account chain's id and — where chaingw knows that network's genesis (Ethereum,
 * TRON) — its block 0, through the one reader every path asks (reserves/evm/balances-read.ts
 * readAccountNetwork): a node on a known chain id with another genesis cannot say unless declared a stand-in.
 */
import type { NetworkId } from "../../chains/assets.js";
import { networkLabel } from "../../chains/assets.js";
import type { NetworkName } from "../../chains/coins.js";
import type { ChainGroup } from "../../chains/index.js";
import { chainIdNetwork } from "../../chains/networks.js";
import { ChaingwError, UsageError } from "../../errors/index.js";
import { readAccountNetwork, readChainId } from "../../reserves/evm/balances-read.js";
import type { JsonRpcClient } from "../../rpc/client.js";
import { expectedNetworkOf, isTronNetwork } from "./coins.js";

/** A `--node NET=URL` of an address file: its client, and what it answered of its chain. */
export interface ChainNode {
  /** the network it answers for, as the file names it ("ETH", "ARBITRUM", "ERC20") */
  network: string;
  client: JsonRpcClient;
  chain: ChainGroup;
  /** the network it says it is on (`askNetworks`: its genesis, its chain id); null: it did not say */
  id?: NetworkId | null;
  /** why its rows are not read on it (cannot say): it did not say its chain, or that chain is not told */
  unread?: string;
  /** a devnet declared to stand in for its chain id's network (`--stand-in`), as every verdict names it */
  standIn?: string;
  /** on a known network's chain id with another genesis, not declared a stand-in: its rows cannot say */
  notIt?: true;
  /** the bound of its one scantxoutset (--scan-timeout; 0 or none: unbounded) */
  scanTimeoutMs?: number;
}

/** A node as the words name it: its NET and its URL, credentials cut ("ETH (http://127.0.0.1:8545/)"). */
export const nodeName = (n: ChainNode): string =>
  `${n.network} (${n.client.endpoints.map((e) => e.label).join(", ")})`;

/** "anvil (chain id 31337)", "Litecoin regtest", or for a network the table lacks its chain id or genesis. */
export const answeredLabel = (id: NetworkId): string =>
  networkLabel(id) !== id
    ? networkLabel(id)
    : id.startsWith("evm:")
      ? `chain id ${id.slice(4)}`
      : `the chain of genesis ${id.slice(5)}`;

/** The network a node says it is on: a UTXO chain's genesis hash, an account chain's id; null: not told. */
async function networkOfNode(
  n: ChainNode,
  standIns: ReadonlySet<string> | undefined,
): Promise<{ id: NetworkId | null; why?: string; notIt?: string; standIn?: string }> {
  try {
    // an account chain: its chain id, and where the table knows that id's genesis, the node's block 0 — the
    // one reader: a node on a known chain id whose genesis is another cannot say, unless declared a stand-in
    if (!n.chain.utxoScan) {
      const chainId = await readChainId(n.client, n.chain);
      const a = await readAccountNetwork(n.client, n.chain, chainId, { standIns, strict: true });
      if (!("unread" in a)) return { id: a.id, ...(a.standIn ? { standIn: a.named } : {}) };
      // the node told its chain id and block 0, and it is not that network: its chain named (the same one
      // read's answer), its rows cannot say
      return a.notIt ? { id: a.notIt.id, notIt: a.unread } : { id: null, why: a.unread };
    }
    const h = (await n.client.call("getblockhash", [0], { idempotent: true, heavy: false })).result;
    return typeof h === "string" ? { id: `utxo:${h.toLowerCase()}` } : { id: null, why: "no genesis hash" };
  } catch (e) {
    if (e instanceof ChaingwError) return { id: null, why: e.message };
    throw e;
  }
}

/**
 * Every `--node NET=URL` asked which chain it is on (`id`), before any row is read on it: a node of another
 * chain than NET's (`expectedNetworkOf`) is a usage error naming both — unless `anyChain` (solvency, whose one
 * identity rule knows each row by the chain its node is on, not by its name). A node that does not say, or
 * whose NET chaingw cannot tell, is kept with `unread`: its rows cannot say.
 */
export async function askNetworks(
  nodes: ChainNode[],
  network: NetworkName,
  anyChain = false,
  standIns?: ReadonlySet<string>,
): Promise<void> {
  const answers = await Promise.all(nodes.map((n) => networkOfNode(n, standIns)));
  for (const [i, n] of nodes.entries()) {
    const { id, why, notIt, standIn } = answers[i] as Awaited<ReturnType<typeof networkOfNode>>;
    n.id = id;
    if (standIn) n.standIn = standIn;
    if (notIt !== undefined) {
      n.notIt = true;
      n.unread = `the node given for ${nodeName(n)}: ${notIt}: its balances are not read`;
      continue;
    }
    const want = expectedNetworkOf(isTronNetwork(n.network) ? "TRON" : n.network, network);
    if (id === null) {
      n.unread = `the node given for ${nodeName(n)} did not answer which chain it is on (${why}): its balance is not read`;
      continue;
    }
    // `reserves verify` asks the chain id a row's network has (a node on chain id 1 whose genesis is not
    // Ethereum's is named so in its verdict: answeredLabel); solvency's identity rule asks the genesis too
    if (chainIdNetwork(id) === want?.id || anyChain) continue;
    if (want)
      throw new UsageError(
        `--node ${n.network}=…: the node is on ${answeredLabel(id)}, not ${want.label}, the chain of the file's ${n.network} rows; give a node of ${want.label}. Nothing was checked`,
      );
    n.unread = `chaingw does not know which chain ${n.network} is, so the node given for it (on ${answeredLabel(id)}) is not known to be its: its balances are not read`;
  }
}
