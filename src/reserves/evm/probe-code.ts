/**
 * The tracking probe's runtime code: scripts/balance-probe.sol compiled by solc-js 0.8.37+commit.f401782d.Emscripten.clang
 * (optimizer 200 runs, evm paris) by scripts/compile-probe.mjs. Given to a scratch account for one eth_call by a
 * state override; never deployed. Calldata: a token's address and the addresses to read, a word each; answers
 * a word per address: balanceOf, or with token 0 the native balance.
 */
export const PROBE_CODE =
  "0x6080604052348015600f57600080fd5b50600035601f1936018060051c6370a0823160e01b60005260005b818110156086578060051b806020013585600081146073578160045260206040602460008a5afa605957600080fd5b60203d1015606657600080fd5b604051836101000152607c565b81318361010001525b505050600101602a565b5050601f198116610100f3fea2646970667358221220c5d981b0ec46ff6e7cd0a93c61c69a0cccd0b13118930a5fbdb671beffe6c12f64736f6c63430008250033";
