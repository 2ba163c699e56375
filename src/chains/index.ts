/** The chain groups chaingw knows, and the only place a group's name is read. */
import { UsageError } from "../errors/index.js";
import { evmChain } from "./evm.js";
import { evmCompatChain } from "./evm-compat.js";
import type { ChainGroup, GroupName } from "./types.js";
import { utxoChain } from "./utxo.js";

export type { ChainGroup, EvmTraits, GroupName, RenderCtx } from "./types.js";

const CHAINS: Record<GroupName, ChainGroup> = {
  utxo: utxoChain,
  evm: evmChain,
  "evm-compat": evmCompatChain,
};
export const CHAIN_NAMES = Object.keys(CHAINS) as GroupName[];

export const groupOf = (name: GroupName): ChainGroup => CHAINS[name];

/** A group name from a flag, the environment or a config file; a usage error names where it came from. */
export function parseChainName(v: string | undefined, from: string): GroupName | undefined {
  if (v === undefined) return undefined;
  if (Object.hasOwn(CHAINS, v)) return v as GroupName;
  throw new UsageError(`invalid ${from}: expected ${CHAIN_NAMES.join(", ")}, got ${JSON.stringify(v)}`);
}

/** JSON-RPC namespaces of EVM clients (geth, erigon, reth, anvil, hardhat, L2s); bitcoind names have none. */
const EVM_NAMESPACES = new Set(
  "eth net web3 debug trace txpool anvil evm hardhat erigon parity ots admin engine personal miner rpc bor zks arbtrace clique les optimism rollup linea starknet".split(
    " ",
  ),
);

/**
 * The group a method name suggests when nothing else says: EVM namespaces mean the EVM group (its default
 * endpoint, its rules), anything else the UTXO group.
 */
export const chainForMethodName = (method: string): ChainGroup =>
  inEvmNamespace(method) ? evmChain : utxoChain;

/** The name is in an EVM client's namespace (`eth_`, `net_`, …); bitcoind's names are in none. */
export const inEvmNamespace = (method: string): boolean => {
  // string operations, not a regular expression: a plain call asks once, and a regex's first run is compiled then
  const i = method.indexOf("_");
  return i > 0 && EVM_NAMESPACES.has(method.slice(0, i));
};

export const utxo = utxoChain;
