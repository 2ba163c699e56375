// Compiles test/fixtures/token/Token.sol with solc-js once and writes token.json beside it (ABI-free:
// bytecode per contract). Run again only after editing the source: `node scripts/compile-reserve-token.mjs`.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const solc = require("solc");
const dir = new URL("../test/fixtures/token/", import.meta.url);
const source = readFileSync(new URL("Token.sol", dir), "utf8");
const input = {
  language: "Solidity",
  sources: { "Token.sol": { content: source } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: "paris",
    outputSelection: { "*": { "*": ["evm.bytecode.object"] } },
  },
};
const out = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (out.errors ?? []).filter((e) => e.severity === "error");
if (errors.length) {
  for (const e of errors) console.error(e.formattedMessage);
  process.exit(1);
}
const contracts = {};
for (const [name, c] of Object.entries(out.contracts["Token.sol"]))
  contracts[name] = `0x${c.evm.bytecode.object}`;
writeFileSync(
  new URL("token.json", dir),
  `${JSON.stringify({ compiler: `solc-js ${solc.version()}`, optimizer_runs: 200, evm_version: "paris", contracts }, null, 2)}\n`,
);
console.log(`token.json: ${Object.keys(contracts).join(", ")} (${solc.version()})`);
