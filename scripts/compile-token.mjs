// Compiles test/fixtures/evm/Token.sol with solc-js (dev dependency) into Token.json (ABI and
// deploy bytecode). Run once after editing the source; tests deploy the stored bytecode, compile-free.
import { readFileSync, writeFileSync } from "node:fs";
import solc from "solc";

const dir = new URL("../test/fixtures/evm/", import.meta.url);
const source = readFileSync(new URL("Token.sol", dir), "utf8");
const input = {
  language: "Solidity",
  sources: { "Token.sol": { content: source } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
  },
};
const out = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (out.errors ?? []).filter((e) => e.severity === "error");
if (errors.length) {
  for (const e of errors) console.error(e.formattedMessage);
  process.exit(1);
}
const c = out.contracts["Token.sol"].Token;
writeFileSync(
  new URL("Token.json", dir),
  `${JSON.stringify({ compiler: `solc-js ${solc.version()}`, abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` }, null, 2)}\n`,
);
console.log(
  `Token.json written (${c.evm.bytecode.object.length / 2} bytes of deploy code, ${solc.version()})`,
);
