#!/usr/bin/env node
// Reserve proofs on a throwaway litecoind regtest node: the scan that makes a proof, `reserves verify` of it
// with every output still unspent (no block walked), and again after some outputs were spent in later
// blocks (blocks walked). Prints the cost per 1,000 outputs and per block walked, side by side with the scan.
// Usage: node scripts/build.mjs && node bench/proof.mjs [--outputs 2000] [--blocks 200] [--runs 5]
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startLitecoind, tempDir } from "../scripts/regtest.mjs";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg("outputs", 2000);
const BLOCKS = arg("blocks", 200);
const RUNS = arg("runs", 5);
const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BIN = join(ROOT, "bin", "chaingw");
// users' machines lack this variable; it adds ~60 ms to every Node start here
const env = { ...process.env };
delete env.NODE_EXTRA_CA_CERTS;

const ltc = await startLitecoind();
// litecoind closes a kept-alive connection idle for 30 s (-rpcservertimeout); a call on such a connection
// fails before it is sent ("other side closed"): once more on a new one
const rpc = (m, p = []) =>
  ltc.rpc(m, p).catch((e) => {
    if (e instanceof TypeError && /fetch failed/.test(e.message)) return ltc.rpc(m, p);
    throw e;
  });
const dir = tempDir("chaingw-bench-proof-");
const url = `http://${ltc.auth.user}:${ltc.auth.password}@127.0.0.1:${ltc.port}/`;
await rpc("createwallet", ["w"]).catch(() => {});
const miner = await rpc("getnewaddress");
await rpc("generatetoaddress", [101 + Math.ceil(N / 200), miner]);
// N outputs to N addresses, 200 per transaction
const addresses = [];
for (let i = 0; i < N; i += 200) {
  const pay = {};
  for (let k = i; k < Math.min(N, i + 200); k++) {
    const a = await rpc("getnewaddress", ["", "bech32"]);
    addresses.push(a);
    pay[a] = Number(`0.0${1000 + (k % 9000)}`);
  }
  await rpc("sendmany", ["", pay]);
}
await rpc("generatetoaddress", [1, miner]);
const list = join(dir, "addresses.txt");
(await import("node:fs")).writeFileSync(list, `${addresses.join("\n")}\n`);
const proof = join(dir, "proof.json");

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function timed(args) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [BIN, "--url", url, ...args], {
    encoding: "utf8",
    env,
    maxBuffer: 1 << 28,
  });
  const ms = performance.now() - t0;
  if (r.status !== 0)
    throw new Error(`chaingw ${args.join(" ")} exited ${r.status}: ${r.stderr.slice(-400)}`);
  return { ms, out: r.stdout };
}
const scanMs = [];
const verifyMs = [];
for (let i = 0; i < RUNS; i++) {
  scanMs.push(timed(["reserves", "scan", "-f", list, "--proof", proof]).ms);
  verifyMs.push(timed(["reserves", "verify", proof]).ms);
}
const versionMs = median(Array.from({ length: RUNS }, () => timed(["--version"]).ms));
// spend one output of every 10, spread over the next BLOCKS blocks, then verify walks them all
const doc = JSON.parse((await import("node:fs")).readFileSync(proof, "utf8"));
const spend = doc.outputs.filter((_, i) => i % 10 === 0);
const per = Math.ceil(spend.length / BLOCKS);
for (let b = 0; b < BLOCKS; b++) {
  const part = spend.slice(b * per, (b + 1) * per);
  if (part.length) {
    const raw = await rpc("createrawtransaction", [
      part.map((o) => ({ txid: o.txid, vout: o.vout })),
      { [miner]: Number(part.reduce((t, o) => t + BigInt(o.amount_sats), 0n) - 10_000n) / 1e8 },
    ]);
    const signed = await rpc("signrawtransactionwithwallet", [raw]);
    await rpc("sendrawtransaction", [signed.hex]);
  }
  await rpc("generatetoaddress", [1, miner]);
}
const walkMs = [];
let walked = 0;
for (let i = 0; i < RUNS; i++) {
  const r = timed(["--json", "reserves", "verify", proof]);
  walkMs.push(r.ms);
  const j = JSON.parse(r.out);
  if (!j.holds) throw new Error("the proof does not hold after the spends");
  walked = j.walked.blocks;
}
const s = median(scanMs);
const v = median(verifyMs);
const w = median(walkMs);
const rows = [
  [
    "outputs in the proof / blocks above it",
    `${doc.outputs.length} / ${BLOCKS} (${spend.length} outputs spent there)`,
  ],
  ["chaingw process start (--version)", `${versionMs.toFixed(0)} ms`],
  ["reserves scan --proof (median)", `${s.toFixed(0)} ms`],
  ["reserves verify, all unspent (median)", `${v.toFixed(0)} ms = ${(v / s).toFixed(2)}× the scan`],
  [
    "  per 1,000 outputs, beyond process start",
    `${(((v - versionMs) / doc.outputs.length) * 1000).toFixed(0)} ms`,
  ],
  [`reserves verify, ${walked} blocks walked (median)`, `${w.toFixed(0)} ms`],
  ["  per block walked", `${((w - v) / Math.max(1, walked)).toFixed(2)} ms`],
];
const width = Math.max(...rows.map((r) => r[0].length));
console.log(`proof bench (${RUNS} runs each, medians; NODE_EXTRA_CA_CERTS unset)`);
for (const [k, val] of rows) console.log(`  ${k.padEnd(width)}  ${val}`);
await ltc.stop();
process.exit(0);
