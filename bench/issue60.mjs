#!/usr/bin/env node
// Issue 60's figures in one run, one after another on one copy of dist/: an exchange's address file offline
// beside libsecp256k1's C loop and a bare noble loop (bench/exchange-scale.mjs, 1 k / 10 k / 50 k / 100 k rows:
// cost per row and memory), with nodes through counting proxies (bench/exchange-nodes.mjs: requests per 1,000
// rows), `batch` of 10,000 calls beside one raw JSON-RPC batch (bench/batch-bisect.mjs on litecoind), and an
// inclusion proof (CoinEx's, Binance's zk user proof: `liabilities verify` of the repository's fixtures) beside
// `node -e 0`, 5 interleaved runs.
// Usage: node scripts/build.mjs && env -u NODE_EXTRA_CA_CERTS nice -n 10 node bench/issue60.mjs
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { banner, CHAINGW, loadNote, NODE, table, timeInterleaved } from "./lib.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const fixture = (f) => join(here, "..", "test", "fixtures", "exchange", "liabilities", f);
const part = (script, args, env = {}) => {
  console.log(
    `\n##### ${script} ${args.join(" ")} (${new Date().toISOString().slice(11, 19)} UTC; ${loadNote()})`,
  );
  const r = spawnSync(NODE, [join(here, script), ...args], {
    stdio: "inherit",
    env: { ...process.env, ...env },
  });
  if (r.status !== 0) console.log(`${script} exited ${r.status}`);
};

banner("issue 60 in one run");
part("exchange-scale.mjs", ["--sizes", "1000,10000,50000,100000"]);
part("exchange-nodes.mjs", ["--sizes", "1000,10000,50000"]);
part("batch-bisect.mjs", [], { BATCH_REFS: "dist", BATCH_CHAINS: "ltc", BENCH_BULK_RUNS: "7" });

console.log(`\n##### an inclusion proof beside node -e 0 (${loadNote()})`);
const verify = (f) => [...CHAINGW, "liabilities", "verify", fixture(f)];
const t = timeInterleaved(
  [
    { name: "node -e 0", argv: [NODE, "-e", "0"] },
    { name: "CoinEx's proof", argv: verify("coinex-merkle_proof_file.json"), opts: { allowFail: true } },
    { name: "Binance's zk user proof", argv: verify("binance-user_config.json"), opts: { allowFail: true } },
  ],
  5,
);
const zero = t.get("node -e 0").median;
table(
  ["command", "wall median", "× node -e 0"],
  [...t].map(([name, s]) => [name, `${s.median.toFixed(0)} ms`, `${(s.median / zero).toFixed(2)}×`]),
);
console.log(loadNote());
