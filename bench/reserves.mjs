#!/usr/bin/env node
// Reserves scan of 10,000 addresses on a throwaway litecoind regtest node: chaingw's wall time against
// one direct `curl` scantxoutset start with the same descriptors, and chaingw's peak memory.
// Usage: node scripts/build.mjs && node bench/reserves.mjs [--addresses 10000] [--funded 300] [--runs 5]
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startLitecoind, tempDir } from "../scripts/regtest.mjs";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg("addresses", 10_000);
const FUNDED = arg("funded", 300);
const RUNS = arg("runs", 5);
const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BIN = join(ROOT, "bin", "chaingw");
const TPUB =
  "tpubD6NzVbkrYhZ4XgiXtGrdW5XDAPFCL9h7we1vwNCpn8tGbBcgfVYjXyhWo4E1xkh56hjod1RhGjxbaTLV3X4FyWuejifB9jusQ46QzG87VKp";

const ltc = await startLitecoind();
const { url, port } = ltc;
const { user, password } = ltc.auth;
const dir = tempDir("chaingw-bench-reserves-");
const rpc = (method, params = []) => ltc.rpc(method, params);

// 1. addresses: one deriveaddresses call for N; coins to FUNDED of them spread over the list
const { descriptor } = await rpc("getdescriptorinfo", [`wpkh(${TPUB}/0/*)`]);
const addresses = await rpc("deriveaddresses", [descriptor, [0, N - 1]]);
const step = Math.max(1, Math.floor(N / FUNDED));
for (let i = 0; i < FUNDED; i++) await rpc("generatetoaddress", [1, addresses[i * step]]);
await rpc("generatetoaddress", [100, addresses[N - 1]]);
const height = await rpc("getblockcount");
const listFile = join(dir, "addresses.txt");
writeFileSync(listFile, addresses.join("\n") + "\n");
const oneFile = join(dir, "one.txt");
writeFileSync(oneFile, addresses[0] + "\n");
const oneBodyFile = join(dir, "one.json");
writeFileSync(
  oneBodyFile,
  JSON.stringify({
    jsonrpc: "1.0",
    id: 1,
    method: "scantxoutset",
    params: ["start", [`addr(${addresses[0]})`]],
  }),
);
const bodyFile = join(dir, "body.json");
writeFileSync(
  bodyFile,
  JSON.stringify({
    jsonrpc: "1.0",
    id: 1,
    method: "scantxoutset",
    params: ["start", addresses.map((a) => `addr(${a})`)],
  }),
);

const timeBin = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function timed(cmd, args) {
  const full = timeBin ? [timeBin, ["-v", cmd, ...args]] : [cmd, args];
  const t0 = performance.now();
  const r = spawnSync(full[0], full[1], { encoding: "utf8", maxBuffer: 512 * 1024 * 1024 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${cmd} exited ${r.status}: ${r.stderr.slice(-500)}`);
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr ?? "");
  return { ms, rssMb: rss ? Number(rss[1]) / 1024 : undefined, stdout: r.stdout };
}

const curlArgs = [
  "-s",
  "-f",
  "-u",
  `${user}:${password}`,
  "-H",
  "content-type: application/json",
  "--data-binary",
  `@${bodyFile}`,
  url,
];
const curlOneArgs = curlArgs.map((a) => (a === `@${bodyFile}` ? `@${oneBodyFile}` : a));
const cgwArgs = [
  BIN,
  "--url",
  `http://${user}:${password}@127.0.0.1:${port}/`,
  "reserves",
  "scan",
  "-f",
  listFile,
];

// warm-up (page cache, node's UTXO cache) and a check that both agree
const direct = timed("curl", curlArgs);
const directTotal = /"total_amount":([0-9.]+)/.exec(direct.stdout)[1];
const warm = JSON.parse(timed(process.execPath, [...cgwArgs, "--json"]).stdout);
if (warm.total_amount !== directTotal)
  throw new Error(`totals differ: ${warm.total_amount} vs ${directTotal}`);

const curlMs = [];
const cgwMs = [];
const cgwRss = [];
const startMs = [];
const oneMs = [];
const curlOneMs = [];
const oneArgs = cgwArgs.map((a) => (a === listFile ? oneFile : a));
for (let i = 0; i < RUNS; i++) {
  curlMs.push(timed("curl", curlArgs).ms);
  const c = timed(process.execPath, [...cgwArgs, "--json"]);
  cgwMs.push(c.ms);
  if (c.rssMb !== undefined) cgwRss.push(c.rssMb);
  startMs.push(timed(process.execPath, [BIN, "--version"]).ms);
  oneMs.push(timed(process.execPath, [...oneArgs, "--json"]).ms);
  curlOneMs.push(timed("curl", curlOneArgs).ms);
}
const human = timed(process.execPath, cgwArgs);

const c = median(curlMs);
const g = median(cgwMs);
const s = median(startMs);
const one = median(oneMs);
const c1 = median(curlOneMs);
// chaingw's fixed cost of a scan: a one-address scan beyond a one-address curl (start, pre-flight calls)
const fixed = one - c1;
const rows = [
  ["addresses / funded / outputs", `${N} / ${FUNDED} / ${warm.outputs} (height ${height})`],
  ["curl scantxoutset start (median)", `${c.toFixed(0)} ms`],
  ["chaingw reserves scan --json (median)", `${g.toFixed(0)} ms`],
  ["chaingw reserves scan, human table", `${human.ms.toFixed(0)} ms`],
  ["chaingw process start (--version)", `${s.toFixed(0)} ms`],
  ["ratio chaingw / curl", `${(g / c).toFixed(2)}`],
  [
    "overhead beyond process start",
    `${(g - s - c).toFixed(0)} ms = ${(((g - s) / c - 1) * 100).toFixed(1)}% of the scan`,
  ],
  ["chaingw, one address (--json) / curl, one address", `${one.toFixed(0)} ms / ${c1.toFixed(0)} ms`],
  [
    "overhead beyond chaingw's fixed cost (one-address run − curl)",
    `${(g - fixed - c).toFixed(0)} ms = ${(((g - fixed) / c - 1) * 100).toFixed(1)}% of the scan (${((g - fixed - c) / (N / 1000)).toFixed(1)} ms per 1,000 addresses)`,
  ],
  [
    "chaingw peak RSS (max of runs)",
    cgwRss.length ? `${Math.max(...cgwRss).toFixed(1)} MB` : "n/a (no /usr/bin/time)",
  ],
];
const w = Math.max(...rows.map((r) => r[0].length));
console.log(`reserves bench (${RUNS} runs each, medians; total ${warm.total_amount} agrees with curl)`);
for (const [k, v] of rows) console.log(`  ${k.padEnd(w)}  ${v}`);
await ltc.stop();
// leave explicitly: nothing here should keep the process alive once the figures are out
process.exit(0);
