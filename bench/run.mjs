// `npm run bench`: every bench script in sequence, one process each, output as it comes.
// One private copy of the build is made here (see prepareChaingw in lib.mjs) and shared by all of them.
// BENCH_REF=<git ref> measures that commit instead of the current dist/.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CHAINGW_WHAT, NODE, ROOT } from "./lib.mjs";

const scripts = [
  "startup.mjs",
  "bulk.mjs",
  "failover.mjs",
  "reserves.mjs",
  "proof.mjs",
  "exchange-sigs.mjs",
  "dead-endpoint.mjs",
  "logs.mjs",
  "evm-reserves.mjs",
  "quorum.mjs",
  "install.mjs",
  "fastpath.mjs",
].filter((s) => existsSync(join(ROOT, "bench", s)));
console.log(`chaingw bench: ${scripts.join(", ")} · measuring ${CHAINGW_WHAT}`);
const failed = [];
const t0 = Date.now();
for (const s of scripts) {
  const r = spawnSync(NODE, [join(ROOT, "bench", s)], { stdio: "inherit", env: process.env, cwd: ROOT });
  if (r.status !== 0) failed.push(`${s} (exit ${r.status ?? r.signal})`);
}
console.log(
  `\nbench done in ${((Date.now() - t0) / 1000).toFixed(0)} s${failed.length ? `; FAILED: ${failed.join(", ")}` : ""}`,
);
process.exitCode = failed.length ? 1 : 0;
