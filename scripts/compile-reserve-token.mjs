// Compiles a test fixture's Solidity source with solc-js once and writes <name>.json beside it (ABI-free:
// bytecode per contract): test/fixtures/token/Token.sol by default, or the source given
// (`node scripts/compile-reserve-token.mjs test/fixtures/ownership/Wallet.sol`). Run again only after
// editing the source.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve } from "node:path";

const require = createRequire(import.meta.url);
const solc = require("solc");

const path = resolve(
  process.argv[2] ?? new URL("../test/fixtures/token/Token.sol", import.meta.url).pathname,
);
const file = basename(path);
const target = join(dirname(path), `${file.replace(/\.sol$/, "").toLowerCase()}.json`);
const source = readFileSync(path, "utf8");
const input = {
  language: "Solidity",
  sources: { [file]: { content: source } },
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
for (const [name, c] of Object.entries(out.contracts[file])) contracts[name] = `0x${c.evm.bytecode.object}`;
writeFileSync(
  target,
  `${JSON.stringify({ compiler: `solc-js ${solc.version()}`, optimizer_runs: 200, evm_version: "paris", contracts }, null, 2)}\n`,
);
console.log(`${basename(target)}: ${Object.keys(contracts).join(", ")} (${solc.version()})`);
