// Shared helpers for the bench scripts: the chaingw under test, timing by spawnSync, peak RSS, tables.
// Local nodes, ports and JSON-RPC helpers come from scripts/regtest.mjs (the demo uses them too).
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";

import { ROOT, tempDir, track } from "../scripts/regtest.mjs";

export {
  blockHashes,
  foundryBin,
  freePort,
  postTimed,
  ROOT,
  removeDir,
  rpc,
  rpcBatch,
  sleep,
  startAnvil,
  startLitecoind,
  tempDir,
  track,
} from "../scripts/regtest.mjs";
export const NODE = process.execPath;

// ---------------------------------------------------------------------------------------------
// the chaingw under test

/**
 * A private copy of the build, so a rebuild of dist/ during the run (tests running next to the bench
 * rebuild it) cannot mix chunks of two builds or change what is measured half-way. By default a copy of
 * dist/ as it is now (`npm run bench` has just built it); BENCH_REF=<git ref> builds that commit instead
 * (git archive → temp dir, node_modules linked). bench/run.mjs makes one and hands it to every script
 * through BENCH_CHAINGW_DIR. Same layout as the repo: <dir>/bin/chaingw loads ../dist/chaingw.cjs (and its code cache).
 */
function prepareChaingw() {
  const given = process.env.BENCH_CHAINGW_DIR;
  if (given) return { dir: given, what: process.env.BENCH_CHAINGW_WHAT ?? given };
  const { dir, what } = buildCopy(process.env.BENCH_REF);
  process.env.BENCH_CHAINGW_DIR = dir; // children (bench/run.mjs → scripts) share it
  process.env.BENCH_CHAINGW_WHAT = what;
  return { dir, what };
}

/**
 * A private copy of a build: `ref` given, that commit built from git (git archive → temp dir,
 * node_modules linked); else dist/ as it is now. Its bin/ beside it, as the package lays them out.
 */
export function buildCopy(ref) {
  const dir = tempDir("chaingw-bench-build-");
  let what;
  if (ref) {
    const sha = spawnSync("git", ["rev-parse", "--short", ref], {
      cwd: ROOT,
      encoding: "utf8",
    }).stdout.trim();
    if (!sha) throw new Error(`BENCH_REF=${ref}: no such commit`);
    const tree = join(dir, "tree");
    mkdirSync(tree);
    const tar = spawnSync("sh", ["-c", `git archive ${sha} | tar -x -C "${tree}"`], {
      cwd: ROOT,
      encoding: "utf8",
    });
    if (tar.status !== 0) throw new Error(`git archive ${sha}: ${tar.stderr}`);
    symlinkSync(join(ROOT, "node_modules"), join(tree, "node_modules"));
    const b = spawnSync(NODE, ["scripts/build.mjs"], { cwd: tree, encoding: "utf8" });
    if (b.status !== 0) throw new Error(`build of ${sha} failed: ${b.stderr}`);
    cpSync(join(tree, "dist"), join(dir, "dist"), { recursive: true });
    rmSync(tree, { recursive: true, force: true });
    what = `commit ${sha} (built from git)`;
  } else {
    cpSync(join(ROOT, "dist"), join(dir, "dist"), { recursive: true });
    const sha = spawnSync("git", ["rev-parse", "--short", "HEAD"], {
      cwd: ROOT,
      encoding: "utf8",
    }).stdout.trim();
    what = `dist/ as built from the working tree (HEAD ${sha || "?"})`;
  }
  mkdirSync(join(dir, "bin"));
  cpSync(join(ROOT, "bin/chaingw"), join(dir, "bin/chaingw"));
  cpSync(join(ROOT, "bin/package.json"), join(dir, "bin/package.json"));
  const v = spawnSync(NODE, [join(dir, "bin/chaingw"), "--version"], { encoding: "utf8" });
  if (v.status !== 0) throw new Error(`the copied build does not run: ${v.stderr}`);
  return { dir, what };
}
const prepared = prepareChaingw();
/** Which build is measured (printed in each banner). */
export const CHAINGW_WHAT = prepared.what;
/** argv prefix that runs the built CLI exactly as the bin does. */
export const CHAINGW = [NODE, join(prepared.dir, "bin/chaingw")];

// ---------------------------------------------------------------------------------------------
// timing

/**
 * Runs argv once with spawnSync (output discarded unless opts.capture) and returns wall ms.
 * A non-zero exit fails the bench unless opts.allowFail: timing a failing command measures nothing.
 */
export function runOnce(argv, opts = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv.slice(1), {
    cwd: opts.cwd ?? ROOT,
    env: opts.env ?? process.env,
    input: opts.input,
    stdio: [opts.input !== undefined ? "pipe" : "ignore", opts.capture ? "pipe" : "ignore", "pipe"],
    maxBuffer: 512 * 1024 * 1024,
    timeout: opts.timeoutMs ?? 300_000,
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.error) throw new Error(`${argv.join(" ")}: ${r.error.message}`);
  if (r.status !== 0 && !opts.allowFail) {
    throw new Error(`${shortCmd(argv)} exited ${r.status ?? r.signal}: ${String(r.stderr).slice(0, 500)}`);
  }
  return { ms, status: r.status, stdout: r.stdout, stderr: String(r.stderr ?? "") };
}

export function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
  const median = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return { n: s.length, median, p90: q(0.9), min: s[0], max: s[s.length - 1], samples };
}

/** n runs of one command → { median, p90, min, max } in wall ms. */
export function timeRuns(cmd, args, n, opts = {}) {
  for (let i = 0; i < (opts.warmup ?? 1); i++) runOnce([cmd, ...args], opts);
  const ms = [];
  for (let i = 0; i < n; i++) ms.push(runOnce([cmd, ...args], opts).ms);
  return stats(ms);
}

/**
 * Several commands measured side by side: round-robin, so background load drifts over all of them
 * alike. cases: [{ name, argv, opts? }]. One warm-up round first (page cache, JIT of the host).
 */
export function timeInterleaved(cases, n, { warmup = 1, onRound } = {}) {
  const ms = new Map(cases.map((c) => [c.name, []]));
  for (let r = 0; r < warmup + n; r++) {
    // rotate the order each round so no case always runs right after the same neighbour
    for (let k = 0; k < cases.length; k++) {
      const c = cases[(k + r) % cases.length];
      const t = runOnce(c.argv, c.opts).ms;
      if (r >= warmup) ms.get(c.name).push(t);
    }
    onRound?.(r);
  }
  return new Map([...ms].map(([k, v]) => [k, stats(v)]));
}

// ---------------------------------------------------------------------------------------------
// peak memory

export const HAS_GNU_TIME = (() => {
  if (!existsSync("/usr/bin/time")) return false;
  const r = spawnSync("/usr/bin/time", ["-v", "true"], { encoding: "utf8" });
  return r.status === 0 && /Maximum resident set size/.test(r.stderr);
})();

/**
 * Peak RSS (MB) of one run: /usr/bin/time -v when present, else VmHWM of the child polled from
 * /proc (a lower bound: a peak between polls can be missed).
 */
export async function peakRss(argv, opts = {}) {
  if (HAS_GNU_TIME) {
    const r = runOnce(["/usr/bin/time", "-v", ...argv], opts);
    const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
    if (!m) throw new Error("no RSS in /usr/bin/time output");
    return { mb: Number(m[1]) / 1024, ms: r.ms, how: "/usr/bin/time -v" };
  }
  const t0 = process.hrtime.bigint();
  const child = track(
    spawn(argv[0], argv.slice(1), {
      cwd: opts.cwd ?? ROOT,
      stdio: [opts.input !== undefined ? "pipe" : "ignore", "ignore", "ignore"],
    }),
  );
  if (opts.input !== undefined) child.stdin.end(opts.input);
  let hwm = 0;
  const poll = () => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
      if (m) hwm = Math.max(hwm, Number(m[1]));
    } catch {}
  };
  const iv = setInterval(poll, 5);
  await waitExit(child, opts.timeoutMs ?? 300_000);
  clearInterval(iv);
  return { mb: hwm / 1024, ms: Number(process.hrtime.bigint() - t0) / 1e6, how: "/proc VmHWM polling" };
}

// ---------------------------------------------------------------------------------------------
// output

export function table(headers, rows) {
  const cells = [headers, ...rows].map((r) => r.map((c) => String(c ?? "")));
  const w = headers.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const right = headers.map((_, i) =>
    rows.every((r) => typeof r[i] === "number" || /^[\d.,×x%+-]/.test(String(r[i] ?? ""))),
  );
  const line = (r) =>
    r
      .map((c, i) => (right[i] ? c.padStart(w[i]) : c.padEnd(w[i])))
      .join("  ")
      .trimEnd();
  console.log(line(cells[0]));
  console.log(w.map((n) => "-".repeat(n)).join("  "));
  for (const r of cells.slice(1)) console.log(line(r));
}

/** ms as a bare number (for "… ms" columns). */
export const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
/** A duration with its unit: "85.3 ms", "1204 ms", "29.7 s". */
export const dur = (ms) => (ms >= 10_000 ? (ms / 1000).toFixed(1) + " s" : fmt(ms) + " ms");
export const ratio = (a, b) => (a / b).toFixed(2) + "×";

export function shortCmd(argv) {
  return argv
    .map((a) =>
      a
        .replace(prepared.dir + "/", "")
        .replace(ROOT, "")
        .replace(NODE, "node")
        .replace(/\/\/[^@/]+@/, "//U:P@")
        .replace(/^(-rpcuser=|-rpcpassword=).*/, "$1***")
        .replace(/^u[0-9a-f]{12}:[0-9a-f]{24}$/, "U:P")
        .replace(/"Basic [^"]+"/, '"Basic ***"')
        .replace(/chaingw-bench-ltc-\w+/, "chaingw-bench-ltc-XXXX"),
    )
    .join(" ");
}

/** Header with the context that makes the figures comparable: host, cores, load. */
export function banner(title) {
  const l = loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
  console.log(`\n=== ${title} ===`);
  console.log(
    `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC · node ${process.version} · ${cpus().length} cores (${cpus()[0]?.model.trim()}) · loadavg ${l}`,
  );
  console.log(`chaingw under test: ${CHAINGW_WHAT}`);
}
export function loadNote() {
  return `loadavg now ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")} (other work on this host adds noise; medians are used)`;
}

export function target(ok, text) {
  return `${ok ? "MET   " : "MISSED"} ${text}`;
}
