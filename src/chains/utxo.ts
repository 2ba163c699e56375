import type { ChainGroup } from "./types.js";

/** bitcoind-family nodes (Bitcoin Core, Litecoin Core, ...) and gateways in front of them. */
export const utxoChain: ChainGroup = Object.freeze({
  name: "utxo",
  title: "UTXO chain (bitcoind-style methods)",
  defaultUrl: "http://127.0.0.1:8332/",
  rawParams: "bitcoin-cli",
  cookieAuth: true,
  freshConnectionsForArrays: true,
  tip: { method: "getblockcount" },
  blockHash: { method: "getblockhash", params: (h: number) => [h] },
  utxoScan: true,
  legacyEnvelopes: true,
  maxLag: 2,
});
