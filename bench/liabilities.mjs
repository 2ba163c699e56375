// liabilities at scale (issues 24, 38): builds of N customers × 3 assets (split 2), each side by side with
// the floor it is held against — the machine's SHA-256 over the same messages on all cores — and its peak
// memory (RSS of the whole process, worker threads included). Two floors, both for the exact messages a
// build hashes (counted below from N, the leaf count and the construction; docs/liabilities.md):
//   native:  `openssl speed -evp sha256 -multi CORES -bytes S` per message size S (OpenSSL's own loop, no
//            JavaScript), the time = Σ count(S) / rate(S);
//   node:    node:crypto's one-shot hash() over the same number of same-sized messages in CORES worker
//            threads (what a Node program can reach: the per-call cost included).
// Then, on the first build: one `liabilities proof ID`, one `liabilities verify` beside `node -e 0`, and
// `--all` per 1,000 proofs on a build of LIAB_ALL_N. LIAB_N: a comma-separated list (default
// 1000000,10000000), LIAB_ALL_N (default 100,000), LIAB_MEMORY (--memory MB, default the build's 2048),
// LIAB_MIN_FREE_GB (default 8): the build is stopped when the file system's free space drops below it;
// LIAB_INPUT: a balances file this script wrote before for the one size in LIAB_N (moved in, not rewritten).
// Disk: the build's own peak (its work and output files, sampled by it) and this script's `du` of the
// build's directories every 10 s; the input CSV is unlinked once the build has it open (its blocks are freed
// when phase A closes it), so that a 100 M build's 10 GB input is not on disk beside its 56 GB of outputs.
// The build runs with --progress: its phase lines go to this script's output as they come (a long run
// stopped later says how far it came).
import { spawn, spawnSync } from "node:child_process";
import {
  createWriteStream,
  existsSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statfsSync,
  statSync,
} from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { banner, CHAINGW, dur, loadNote, NODE, ratio, runOnce, table, timeInterleaved } from "./lib.mjs";

const SIZES = (process.env.LIAB_N ?? "1000000,10000000").split(",").map(Number);
// LIAB_ASSETS (default 3): assets in the table; with more than 3, each customer holds 1-5 of them (3 on
// average, chosen at random), amounts whole units; LIAB_CONSTRUCTION v1 (default) or v2 (a tree per asset)
const ASSETS = Number(process.env.LIAB_ASSETS ?? 3);
const SPARSE = ASSETS > 3;
const V2 = process.env.LIAB_CONSTRUCTION === "v2";
/** holdings written per size (the sparse shape's count, for the floor's messages) */
const HOLDINGS = new Map();
const ALL_N = Number(process.env.LIAB_ALL_N ?? 100_000);
const MEMORY = process.env.LIAB_MEMORY;
const MIN_FREE = Number(process.env.LIAB_MIN_FREE_GB ?? 8) * 1024 ** 3;
/** node's hash() floor is measured on at most this many messages and scaled (it is linear in the count) */
const NODE_FLOOR_MAX = 200e6;
const CORES = availableParallelism();
const env = { ...process.env };
delete env.NODE_EXTRA_CA_CERTS;
const dir = mkdtempSync(join(tmpdir(), "chaingw-bench-liab-"));
const opts = { env, timeoutMs: 6 * 3_600_000 };

banner(
  `liabilities: ${SIZES.map((n) => n.toLocaleString("en")).join(" and ")} customers × ${ASSETS} assets${SPARSE ? " (1-5 held each, 3 on average)" : ""}, split 2, construction ${V2 ? "v2" : "v1"}`,
);

async function balances(file, n) {
  const out = createWriteStream(file);
  let x = 12345;
  let chunk = "customer_id,asset,amount\n";
  let holdings = 0;
  for (let c = 0; c < n; c++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    if (SPARSE) {
      const held = new Set();
      const h = 1 + (x % 5);
      while (held.size < h) {
        x = (x * 1103515245 + 12345) % 2 ** 31;
        held.add(x % ASSETS);
      }
      for (const a of held) chunk += `cust-${c},A${a},${1 + (x % 1000000)}\n`;
      holdings += h;
    } else
      chunk += `cust-${c},BTC,${x % 1000}.${String(x % 1e8).padStart(8, "0")}\ncust-${c},USDT,${x % 100000}.${x % 1000}\ncust-${c},ETH,${x}.000000000000000001\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await new Promise((ok) => out.once("drain", ok));
      chunk = "";
    }
  }
  out.end(chunk);
  await new Promise((ok) => out.once("finish", ok));
  HOLDINGS.set(n, SPARSE ? holdings : 3 * n);
}

/**
 * v2's messages (a tree per asset: leaves of 0x00 ‖ tag ‖ asset ‖ part ‖ parts ‖ u128, 61 bytes; inner nodes
 * 0x01 ‖ two records of 48 bytes, 97): n customers holding H non-zero amounts (split 2: H cut values and 2H
 * place keys, 2H leaves), G leaves in A trees. Seed-stream blocks: the secret, a cut each, two keys a block.
 */
function messagesV2(n, H, G, A) {
  const pad = G - 2 * H;
  const count = new Map();
  const add = (size, k) => count.set(size, (count.get(size) ?? 0) + k);
  let idBytes = 0;
  for (let d = 1, lo = 0; lo < n; d++, lo = 10 ** (d - 1)) idBytes += (Math.min(n, 10 ** d) - lo) * (5 + d);
  const avgId = Math.round(idBytes / n);
  add(64 + 1 + avgId, n); // the customer's seed, inner
  add(64 + avgId, n); // the tag, inner
  add(96, 2 * n + pad); // the outer hashes of both, and of the padding seed
  add(36, n + 2 * H + 2 * pad); // seed stream blocks: secret, H cuts, 2H keys (two a block); padding: r, key
  add(77, pad); // the padding seed: HMAC(K, 0x02 ‖ u32 a ‖ u64 p), inner
  add(61, G); // leaves
  add(97, G - A); // inner nodes
  return count;
}

/**
 * The messages a build of n customers (ids "cust-<c>", every amount non-zero: 3 cut values each) into L
 * leaves hashes, by size in bytes: HMAC-SHA256 is two hashes (inner 64 + message, outer 64 + 32).
 */
function messages(n, L) {
  const pad = L - 2 * n;
  const count = new Map();
  const add = (size, k) => count.set(size, (count.get(size) ?? 0) + k);
  let idBytes = 0;
  for (let d = 1, lo = 0; lo < n; d++, lo = 10 ** (d - 1)) idBytes += (Math.min(n, 10 ** d) - lo) * (5 + d);
  const avgId = Math.round(idBytes / n);
  add(64 + 1 + avgId, n); // the customer's seed: HMAC(K, 0x00 ‖ id), inner
  add(64 + avgId, n); // the tag: HMAC(secret, id), inner
  add(96, 2 * n + pad); // the outer hashes of both, and of the padding seed
  add(36, 5 * n + 2 * pad); // seed stream blocks: secret, 3 cuts, 2 place keys (one block); padding: r, key
  add(73, pad); // the padding seed: HMAC(K, 0x01 ‖ u64 p), inner
  add(89, L); // leaves: 0x00 ‖ tag ‖ part ‖ parts ‖ 3 × u128
  add(161, L - 1); // inner nodes: 0x01 ‖ two records of 80 bytes
  return count;
}

/** openssl speed's messages per second at `size` bytes over all cores. */
const opensslRate = new Map();
function nativeRate(size) {
  if (!opensslRate.has(size)) {
    const r = spawnSync(
      "openssl",
      ["speed", "-evp", "sha256", "-multi", String(CORES), "-bytes", String(size), "-seconds", "2"],
      { encoding: "utf8" },
    );
    const m = /^sha256\s+([\d.]+)k\s*$/m.exec(r.stdout ?? "");
    opensslRate.set(size, m ? (Number(m[1]) * 1000) / size : Number.NaN);
  }
  return opensslRate.get(size);
}
/**
 * The native floor in CPU time, which the load of other sessions does not inflate as it does openssl speed's
 * wall-clock rates: `sha256sum` (coreutils, native) over 256 MiB under /usr/bin/time gives the CPU time of
 * one 64-byte compression; a message of S bytes takes ⌈(S + 9) / 64⌉ of them.
 */
let perBlockMs;
function blockCpuMs() {
  if (perBlockMs === undefined) {
    const f = join(dir, "zeros.bin");
    spawnSync("sh", ["-c", `head -c 268435456 /dev/zero > ${f}`]);
    const t = join(dir, "sha-time.txt");
    spawnSync("/usr/bin/time", ["-f", "%U %S", "-o", t, "sha256sum", f], { encoding: "utf8" });
    const [u, sys] = spawnSync("cat", [t], { encoding: "utf8" })
      .stdout.trim()
      .split("\n")
      .at(-1)
      .split(" ")
      .map(Number);
    perBlockMs = ((u + sys) * 1000) / (268435456 / 64);
    rmSync(f, { force: true });
  }
  return perBlockMs;
}
const blockFloorCpu = (count) =>
  [...count].reduce((ms, [size, k]) => ms + k * Math.ceil((size + 9) / 64) * blockCpuMs(), 0);

const nativeFloor = (count) => [...count].reduce((ms, [size, k]) => ms + (k / nativeRate(size)) * 1000, 0);

/** node:crypto's hash() over the same messages, the work split across CORES worker threads. */
function nodeFloor(all) {
  // a share of every size, scaled back: the floor is linear in the count
  const total = [...all.values()].reduce((a, b) => a + b, 0);
  const f = Math.min(1, NODE_FLOOR_MAX / total);
  const count = new Map([...all].map(([size, k]) => [size, Math.round(k * f)]));
  const work = JSON.stringify([...count]);
  const script = `
const { Worker } = require("node:worker_threads");
const T = ${CORES}, count = ${work};
const body = \`const { hash } = require("node:crypto"); const { workerData: w, parentPort } = require("node:worker_threads");
for (const [size, k] of w) { const m = Buffer.alloc(size, 7); for (let i = 0; i < k; i++) hash("sha256", m, "buffer"); }
parentPort.postMessage(0);\`;
const t0 = process.hrtime.bigint();
const c0 = process.cpuUsage();
let left = T;
for (let t = 0; t < T; t++) {
  const share = count.map(([size, k]) => [size, Math.floor(k / T) + (t < k % T ? 1 : 0)]);
  new Worker(body, { eval: true, workerData: share }).once("message", () => {
    if (--left !== 0) return;
    const c = process.cpuUsage(c0);
    console.log(JSON.stringify({ ms: Number(process.hrtime.bigint() - t0) / 1e6, cpuMs: (c.user + c.system) / 1e3 }));
  });
}`;
  const r = JSON.parse(String(runOnce([NODE, "-e", script], { ...opts, capture: true }).stdout));
  return { ms: r.ms / f, cpuMs: r.cpuMs / f, scaled: f < 1 ? f : undefined };
}

const freeBytes = () => {
  const f = statfsSync(dir);
  return f.bavail * f.bsize;
};
/** Allocated bytes under `path` (du), 0 when it is gone. */
function du(path) {
  const r = spawnSync("du", ["-s", "-B1", path], { encoding: "utf8" });
  return Number(/^(\d+)/.exec(r.stdout ?? "")?.[1] ?? 0);
}

/**
 * The build under /usr/bin/time: wall ms, CPU ms (user + system, all threads), peak RSS MB, its --json
 * answer; its stderr (--progress lines) passed through as it comes. Every 10 s: du of the build's
 * directories (the peak kept), the input unlinked once the build has opened it, and the build stopped when
 * free space drops below LIAB_MIN_FREE_GB.
 */
async function timedBuild(argv, input, out) {
  const timeFile = join(dir, "time.txt");
  const t0 = process.hrtime.bigint();
  const child = spawn("/usr/bin/time", ["-f", "%U %S %M", "-o", timeFile, ...argv], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let stdout = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  child.stderr.on("data", (d) =>
    process.stdout.write(`  | ${String(d).trimEnd().replaceAll("\n", "\n  | ")}\n`),
  );
  let peakDu = 0;
  let minFree = freeBytes();
  let stopped;
  const watch = setInterval(() => {
    // the build's work directory is ".<out>.build-…" beside out
    const works = readdirSync(dir).filter((f) => f.startsWith(`.build-`));
    if (existsSync(input) && works.some((w) => readdirSync(join(dir, w)).some((f) => f.startsWith("in-")))) {
      rmSync(input);
      console.log(
        `  (input unlinked at ${dur(Number(process.hrtime.bigint() - t0) / 1e6)}: the build holds it open)`,
      );
    }
    const used = works.reduce((s, w) => s + du(join(dir, w)), 0) + du(out);
    peakDu = Math.max(peakDu, used);
    const free = freeBytes();
    minFree = Math.min(minFree, free);
    if (free < MIN_FREE && !stopped) {
      stopped = `free space ${(free / 1e9).toFixed(1)} GB < ${(MIN_FREE / 1e9).toFixed(0)} GB`;
      console.log(`  STOPPING the build: ${stopped}`);
      process.kill(-child.pid, "SIGTERM");
    }
  }, 10_000);
  const code = await new Promise((ok) => child.once("exit", (c) => ok(c)));
  clearInterval(watch);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (stopped || code !== 0)
    throw new Error(`the build ${stopped ? `was stopped: ${stopped}` : `exited ${code}`}`);
  const [u, sys, kb] = spawnSync("cat", [timeFile], { encoding: "utf8" })
    .stdout.trim()
    .split("\n")
    .at(-1)
    .split(" ")
    .map(Number);
  const j = JSON.parse(stdout);
  return { ms, cpuMs: (u + sys) * 1000, mb: kb / 1024, json: j, peakDu, minFree };
}

const assets = join(dir, "assets.csv");
if (SPARSE)
  spawnSync("sh", ["-c", `cat > ${assets}`], {
    input: `asset,decimals\n${Array.from({ length: ASSETS }, (_, i) => `A${i},${i % 19}`).join("\n")}\n`,
  });
else spawnSync("sh", ["-c", `printf 'asset,decimals\\nBTC,8\\nUSDT,6\\nETH,18\\n' > ${assets}`]);
const rows = [];
let first;
for (const N of SIZES) {
  const input = join(dir, `balances-${N}.csv`);
  if (process.env.LIAB_INPUT && SIZES.length === 1) renameSync(process.env.LIAB_INPUT, input);
  else await balances(input, N);
  const inputBytes = statSync(input).size;
  const out = join(dir, `build-${N}`);
  console.log(
    `${N.toLocaleString("en")}: input ${(inputBytes / 1e9).toFixed(2)} GB written; free ${(freeBytes() / 1e9).toFixed(1)} GB; building`,
  );
  const build = await timedBuild(
    [
      ...CHAINGW,
      "liabilities",
      "build",
      "--input",
      input,
      "--assets",
      assets,
      "--out",
      out,
      "--progress",
      "--json",
      ...(MEMORY ? ["--memory", MEMORY] : []),
      ...(V2 ? ["--construction", "v2"] : []),
    ],
    input,
    out,
  );
  rmSync(input, { force: true });
  console.log(
    `  build: peak RSS ${build.mb.toFixed(0)} MB (the build's own: ${(build.json.peak_rss_bytes / 2 ** 20).toFixed(0)} MB); peak disk ${(build.json.peak_work_bytes / 1e9).toFixed(2)} GB (the build's samples), ${(build.peakDu / 1e9).toFixed(2)} GB (du every 10 s); outputs ${(du(out) / 1e9).toFixed(2)} GB; least free space ${(build.minFree / 1e9).toFixed(1)} GB`,
  );
  const commitment = JSON.parse(
    spawnSync("cat", [join(out, "commitment.json")], { encoding: "utf8" }).stdout,
  );
  const L = commitment.leaves;
  const count = V2 ? messagesV2(N, HOLDINGS.get(N), L, ASSETS) : messages(N, L);
  const native = nativeFloor(count);
  const node = nodeFloor(count);
  // CPU time, which the other sessions on this host do not inflate as they do wall time: the build's (all
  // threads) against the native floor's CPU time (openssl speed counts CPU time; its -multi rate is CORES ×)
  const nativeCpu = native * CORES;
  const hashes = [...count.values()].reduce((a, b) => a + b, 0);
  const blocksCpu = blockFloorCpu(count);
  rows.push([
    N.toLocaleString("en"),
    `${(inputBytes / 1e6).toFixed(0)} MB`,
    `${L.toLocaleString("en")} (h ${commitment.height}${V2 ? ", tallest" : ""})`,
    `${(hashes / 1e6).toFixed(1)} M`,
    dur(build.ms),
    dur(build.cpuMs),
    `${build.mb.toFixed(0)} MB`,
    `${(build.json.peak_work_bytes / 1e9).toFixed(1)} GB`,
    dur(native),
    ratio(build.cpuMs, nativeCpu),
    `${dur(node.ms)} (CPU ${dur(node.cpuMs)})${node.scaled ? ` (measured on ${(node.scaled * 100).toFixed(0)} %, scaled)` : ""}`,
    ratio(build.cpuMs, node.cpuMs),
    `${(statSync(join(out, "tree.bin")).size / 1e9).toFixed(2)} GB`,
    `${dur(blocksCpu)} (${ratio(build.cpuMs, blocksCpu)})`,
  ]);
  console.log(`done: ${rows.at(-1).join(" | ")}`); // as it comes: a long run stopped later keeps it
  // a customer's proof, its size
  const one = spawnSync(
    CHAINGW[0],
    [...CHAINGW.slice(1), "liabilities", "proof", "--out", out, `cust-${N >> 1}`],
    {
      env,
      encoding: "utf8",
      maxBuffer: 1 << 30,
    },
  );
  console.log(`  proof of cust-${N >> 1}: ${(Buffer.byteLength(one.stdout) / 1024).toFixed(1)} KB`);
  rows.at(-1).push(`${(Buffer.byteLength(one.stdout) / 1024).toFixed(1)} KB`);
  if (first === undefined) first = { N, out };
  else rmSync(out, { recursive: true, force: true });
}
table(
  [
    "customers",
    "input CSV",
    "leaves",
    "SHA-256 messages",
    "build (wall)",
    "build (CPU)",
    "peak RSS",
    "peak disk",
    "native floor (openssl, wall on all cores)",
    "build ÷ native (CPU)",
    "node floor (hash() in workers)",
    "build ÷ node (CPU)",
    "tree.bin",
    "sha256sum floor, CPU (build ÷ it)",
    "one proof",
  ],
  rows,
);
console.log(`sha256sum: ${(blockCpuMs() * 1e6).toFixed(0)} ns of CPU a 64-byte block`);
console.log(
  `openssl speed -evp sha256 -multi ${CORES}, messages/s by size: ${[...opensslRate].map(([s, r]) => `${s} B ${(r / 1e6).toFixed(2)} M`).join(", ")}`,
);

const { N, out } = first;
const proofOut = join(dir, "p.json");
const pr = spawnSync(
  CHAINGW[0],
  [...CHAINGW.slice(1), "liabilities", "proof", "--out", out, `cust-${Math.floor(N / 2)}`],
  {
    env,
    encoding: "utf8",
  },
);
spawnSync("sh", ["-c", `cat > ${proofOut}`], { input: pr.stdout });
const t = timeInterleaved(
  [
    { name: "node -e 0", argv: [NODE, "-e", "0"], opts },
    {
      name: "proof ID",
      argv: [...CHAINGW, "liabilities", "proof", "--out", out, `cust-${Math.floor(N / 3)}`],
      opts,
    },
    {
      name: "verify",
      argv: [
        ...CHAINGW,
        "liabilities",
        "verify",
        proofOut,
        "--commitment",
        join(out, "commitment.json"),
        "--customer",
        `cust-${Math.floor(N / 2)}`,
      ],
      opts,
    },
  ],
  5,
);

// --all on a build of ALL_N customers (none: LIAB_ALL_N=0)
let allMs;
if (ALL_N > 0) {
  const allIn = join(dir, "all.csv");
  await balances(allIn, ALL_N);
  const allOut = join(dir, "all");
  const how = V2 ? ["--construction", "v2"] : [];
  runOnce(
    [...CHAINGW, "liabilities", "build", "--input", allIn, "--assets", assets, "--out", allOut, ...how],
    opts,
  );
  allMs = runOnce([...CHAINGW, "liabilities", "proof", "--out", allOut, "--all"], opts).ms;
}

table(
  ["measure", "value"],
  [
    ["node -e 0 (median)", dur(t.get("node -e 0").median)],
    [`proof ID on the ${N.toLocaleString("en")} build (median)`, dur(t.get("proof ID").median)],
    ["verify (median)", dur(t.get("verify").median)],
    ...(allMs === undefined
      ? []
      : [[`--all on ${ALL_N.toLocaleString("en")}: per 1,000 proofs`, dur((allMs / ALL_N) * 1000)]]),
  ],
);
console.log(loadNote());
rmSync(dir, { recursive: true, force: true });
