import type { RpcError } from "../errors/index.js";
import { accountNetwork } from "./networks.js";
import type { ChainGroup } from "./types.js";

/** Ethereum-style nodes (geth, erigon, reth, anvil, ...): EIP-1474 errors, the usual block tags. */
export const evmChain: ChainGroup = Object.freeze({
  name: "evm",
  title: "EVM chain",
  defaultUrl: "http://127.0.0.1:8545/",
  rawParams: "cast",
  cookieAuth: false,
  freshConnectionsForArrays: false,
  tip: { method: "eth_blockNumber" },
  blockHash: {
    method: "eth_getBlockByNumber",
    params: (h: number) => [`0x${h.toString(16)}`, false],
    member: "hash",
  },
  utxoScan: false,
  legacyEnvelopes: false,
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
    network: (id: bigint) => accountNetwork("evm", id),
    // EIP-1474: code 3 with the revert bytes in data; older geth: -32000 with the same message
    isRevert: (e: RpcError) => e.code === 3 || /^execution reverted/i.test(e.rpcMessage),
  }),
});
