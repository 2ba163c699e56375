#!/usr/bin/env node
// `reserves verify` of an exchange's address file at 1 k, 10 k and 50 k rows (offline), beside its floors
// over the same signatures, in one run: libsecp256k1's own C loop (bench/secp-floor.c, Debian's
// libsecp256k1-dev), a bare @noble/curves loop (recovery only, sampled), `node -e 0`. The file is made by
// bench/exchange-file.mjs with real signers (ethers, TronWeb; every row its own key), in two processes, and
// kept in the temp directory for the next run. chaingw is timed as a user runs it, by /usr/bin/time: wall,
// CPU (user + sys, every thread), peak RSS.
// Usage: node scripts/build.mjs && node bench/exchange-scale.mjs [--sizes 1000,10000,50000]
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { banner, CHAINGW, loadNote, table } from "./lib.mjs";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const SIZES = arg("sizes", "1000,10000,50000").split(",").map(Number);
const MOST = Math.max(...SIZES);
const here = new URL(".", import.meta.url).pathname;
const dir = tmpdir();
const base = join(dir, `chaingw-bench-okx-${MOST}`);

async function makeFile() {
  if (existsSync(`${base}.csv`) && existsSync(`${base}.csv.bin`)) return;
  const half = Math.ceil(MOST / 2);
  await Promise.all(
    [0, 1].map(
      (p) =>
        new Promise((ok, fail) =>
          spawn(
            process.execPath,
            [
              join(here, "exchange-file.mjs"),
              "--rows",
              String(MOST),
              "--from",
              String(p * half),
              "--to",
              String(Math.min(MOST, (p + 1) * half)),
              "--out",
              `${base}.part${p}`,
            ],
            { stdio: "inherit" },
          ).on("exit", (c) => (c === 0 ? ok() : fail(new Error(`exchange-file.mjs exited ${c}`)))),
        ),
    ),
  );
  const parts = [0, 1].map((p) => `${base}.part${p}`);
  writeFileSync(`${base}.csv`, parts.map((p) => readFileSync(p, "utf8")).join(""));
  writeFileSync(`${base}.csv.bin`, Buffer.concat(parts.map((p) => readFileSync(`${p}.bin`))));
}

/** The first n rows of the large file (and their signatures), as a file of its own. */
function sized(n) {
  const f = join(dir, `chaingw-bench-okx-${MOST}-first-${n}.csv`);
  if (!existsSync(f)) {
    const lines = readFileSync(`${base}.csv`, "utf8").split("\n");
    writeFileSync(f, `${lines.slice(0, n + 1).join("\n")}\n`);
    writeFileSync(`${f}.bin`, readFileSync(`${base}.csv.bin`).subarray(0, n * 97));
  }
  return f;
}

/** wall, CPU and peak RSS of one process, by GNU time */
function timed(argv) {
  const r = spawnSync("/usr/bin/time", ["-f", "%e %U %S %M", ...argv], {
    stdio: ["ignore", "ignore", "pipe"],
    maxBuffer: 64 << 20,
  });
  const [wall, user, sys, rss] = String(r.stderr).trim().split("\n").at(-1).split(" ").map(Number);
  return { wall: wall * 1000, cpu: (user + sys) * 1000, rss: rss / 1024, status: r.status };
}

const floorBin = join(dir, "chaingw-secp-floor");
execFileSync("cc", ["-O2", "-o", floorBin, join(here, "secp-floor.c"), "-lsecp256k1"]);
await makeFile();
banner(`exchange address file, offline: ${SIZES.join(" / ")} rows (70 % EVM, 30 % TRON v2)`);
const nodeZero = timed([process.execPath, "-e", "0"]);

/** a bare @noble/curves recovery per signature, on a sample of 300, in this process */
function nobleMs(bin) {
  const n = Math.min(300, bin.length / 97);
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const at = i * 97;
    secp256k1.Signature.fromBytes(bin.subarray(at + 32, at + 96), "compact")
      .addRecoveryBit(bin[at + 96])
      .recoverPublicKey(bin.subarray(at, at + 32));
  }
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000 / n;
}

const out = [];
for (const n of SIZES) {
  const f = sized(n);
  const floor = JSON.parse(execFileSync(floorBin, [`${f}.bin`], { encoding: "utf8" }));
  const run = timed([...CHAINGW, "reserves", "verify", f, "--json"]);
  if (run.status !== 3)
    throw new Error(`reserves verify exited ${run.status} (3 expected: signed, amounts not read)`);
  const noble = nobleMs(readFileSync(`${f}.bin`)) * n;
  out.push([
    n.toLocaleString("en"),
    `${(run.wall / 1000).toFixed(2)} s`,
    `${(run.cpu / 1000).toFixed(2)} s`,
    `${run.rss.toFixed(0)} MB`,
    `${floor.cpu_ms.toFixed(0)} ms`,
    `${(run.cpu / floor.cpu_ms).toFixed(2)}×`,
    `${((run.cpu - nodeZero.cpu) / floor.cpu_ms).toFixed(2)}×`,
    `${(noble / 1000).toFixed(1)} s (${(noble / floor.cpu_ms).toFixed(0)}×)`,
  ]);
}
table(
  [
    "rows",
    "chaingw wall",
    "chaingw CPU",
    "peak RSS",
    "libsecp256k1 CPU",
    "CPU ÷ floor",
    "less node -e 0",
    "bare noble loop",
  ],
  out,
);
console.log(
  `node -e 0: ${nodeZero.wall.toFixed(0)} ms wall, ${nodeZero.cpu.toFixed(0)} ms CPU. ${loadNote()}`,
);
