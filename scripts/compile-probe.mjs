// Compiles scripts/balance-probe.sol with solc-js and writes its runtime code into
// src/reserves/evm/probe-code.ts (the tracking probe's code, given to a scratch account by a state override).
// Run again only after editing the source: `node scripts/compile-probe.mjs`.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const solc = require("solc");
const source = readFileSync(new URL("balance-probe.sol", import.meta.url), "utf8");
const input = {
  language: "Solidity",
  sources: { "balance-probe.sol": { content: source } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: "paris",
    outputSelection: { "*": { "*": ["evm.deployedBytecode.object"] } },
  },
};
const out = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (out.errors ?? []).filter((e) => e.severity === "error");
if (errors.length) {
  for (const e of errors) console.error(e.formattedMessage);
  process.exit(1);
}
const code = out.contracts["balance-probe.sol"].BalanceProbe.evm.deployedBytecode.object;
writeFileSync(
  new URL("../src/reserves/evm/probe-code.ts", import.meta.url),
  `/**
 * The tracking probe's runtime code: scripts/balance-probe.sol compiled by solc-js ${solc.version()}
 * (optimizer 200 runs, evm paris) by scripts/compile-probe.mjs. Given to a scratch account for one eth_call by a
 * state override; never deployed. Calldata: a token's address and the addresses to read, a word each; answers
 * a word per address: balanceOf, or with token 0 the native balance.
 */
export const PROBE_CODE =
  "0x${code}";
`,
);
console.log(`probe-code.ts: ${code.length / 2} bytes (${solc.version()})`);
