import type { RpcError } from "../errors/index.js";
import type { ChainGroup } from "./types.js";

/** Chain ids (EIP-155) a proof names by name; the coin where it is not ETH. Others are shown by number. */
const EVM_NETWORKS: Record<string, { name: string; symbol?: string }> = {
  "1": { name: "ethereum" },
  "10": { name: "optimism" },
  "56": { name: "bnb-smart-chain", symbol: "BNB" },
  "137": { name: "polygon", symbol: "POL" },
  "8453": { name: "base" },
  "42161": { name: "arbitrum-one" },
  "43114": { name: "avalanche-c", symbol: "AVAX" },
  "17000": { name: "holesky" },
  "11155111": { name: "sepolia" },
  "31337": { name: "anvil" },
};

/** Ethereum-style nodes (geth, erigon, reth, anvil, ...): EIP-1474 errors, the usual block tags. */
export const evmChain: ChainGroup = Object.freeze({
  name: "evm",
  title: "EVM chain",
  defaultUrl: "http://127.0.0.1:8545/",
  cookieAuth: false,
  freshConnectionsForArrays: false,
  tip: { method: "eth_blockNumber" },
  utxoScan: false,
  maxLag: 6,
  evm: Object.freeze({
    blockTags: ["latest", "earliest", "pending", "safe", "finalized"],
    addressForms: "0x + 40 hex digits",
    baseUnit: "wei",
    units: [
      { name: "wei", decimals: 0 },
      { name: "gwei", decimals: 9 },
      { name: "ether", decimals: 18 },
    ],
    feeUnit: "gwei",
    eip1898: true,
    native: { symbol: "ETH", decimals: 18 },
    pinnedStateReads: true,
    messageSignature: "eip191",
    eip55: true,
    network: (id: bigint) => EVM_NETWORKS[id.toString()],
    // EIP-1474: code 3 with the revert bytes in data; older geth: -32000 with the same message
    isRevert: (e: RpcError) => e.code === 3 || /^execution reverted/i.test(e.rpcMessage),
  }),
});
