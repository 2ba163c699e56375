/**
 * cast's subcommands that are one JSON-RPC read, and what they are in chaingw: an EVM user who types
 * `chaingw nonce ADDR` is told `chaingw eth_getTransactionCount ADDR`, not "did you mean net_version" nor the
 * `chaingw rpc nonce` line (no node has a method `nonce`). cast's own commands that chaingw has under the same
 * name (call, estimate, logs, calldata, decode, to-wei, from-wei, rpc) need no row. `test/operator-side-by-side`
 * checks that each row names a command chaingw has.
 */
export const CAST_NAMES: Readonly<Record<string, string>> = {
  "block-number": "eth_blockNumber",
  bn: "eth_blockNumber",
  block: "eth_getBlockByNumber NUMBER|latest [true]  (by hash: chaingw eth_getBlockByHash HASH)",
  blk: "eth_getBlockByNumber NUMBER|latest [true]",
  tx: "eth_getTransactionByHash HASH",
  t: "eth_getTransactionByHash HASH",
  receipt: "eth_getTransactionReceipt HASH",
  re: "eth_getTransactionReceipt HASH",
  balance: "eth_getBalance ADDRESS [BLOCK] [--ether]",
  b: "eth_getBalance ADDRESS [BLOCK] [--ether]",
  nonce: "eth_getTransactionCount ADDRESS [BLOCK]",
  n: "eth_getTransactionCount ADDRESS [BLOCK]",
  code: "eth_getCode ADDRESS [BLOCK]",
  co: "eth_getCode ADDRESS [BLOCK]",
  storage: "eth_getStorageAt ADDRESS SLOT [BLOCK]",
  st: "eth_getStorageAt ADDRESS SLOT [BLOCK]",
  proof: "eth_getProof ADDRESS '[\"SLOT\"]' [BLOCK]",
  "chain-id": "eth_chainId",
  ci: "eth_chainId",
  cid: "eth_chainId",
  client: "web3_clientVersion",
  cl: "web3_clientVersion",
  "gas-price": "eth_gasPrice",
  g: "eth_gasPrice",
  "base-fee": "eth_getBlockByNumber latest  (its baseFeePerGas)",
  "abi-decode": "decode SIG HEX",
  ad: "decode SIG HEX",
  "calldata-decode": "decode --input SIG HEX",
  publish: "rpc eth_sendRawTransaction 0xSIGNED  (sent as it is: chaingw signs nothing)",
  send: "rpc eth_sendRawTransaction 0xSIGNED  (chaingw signs nothing: sign with your wallet, e.g. cast mktx)",
  "to-unit": "from-wei AMOUNT [UNIT]",
  "to-hex": "(no such command: 0x hex and decimal are both taken wherever a number is)",
};
