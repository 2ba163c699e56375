/**
 * `--memory` is a bound on the whole build's peak RSS (main thread and workers), measured from outside: the
 * child's VmHWM (/proc/PID/status, the kernel's high-water mark of its resident set) polled while it runs,
 * at the exchange's shape (800 assets, each customer holding 1-5) under the smallest `--memory` accepted —
 * for a build that is made and for inputs that are refused late (a true duplicate near the end, every row
 * given twice, a bad line near the end): a refusal must not cost more memory than a build.
 */
import { spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { trackDir } from "./helpers/procs.js";

const BIN = fileURLToPath(new URL("../bin/chaingw", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "chaingw-liab-memory-"));
trackDir(dir);
/** customers of the shape; big enough that --memory 400 sizes phases A-C in several buckets each */
const N = 200_000;
const A = 800;
const MEMORY_MB = 400;
const assets = join(dir, "assets.csv");

/**
 * The bench's sparse shape (bench/liabilities.mjs): customer c holds 1-5 of A assets, whole amounts; `extra`
 * lines go in after customer N − 10's rows (near the end); `twice`: every row given again after the last.
 */
async function write(file: string, extra: (held: number[], c: number) => string = () => "", twice = false) {
  const out = createWriteStream(file);
  let x = 12345;
  let chunk = "customer_id,asset,amount\n";
  let body = "";
  for (let c = 0; c < N; c++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    const held = new Set<number>();
    const h = 1 + (x % 5);
    while (held.size < h) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      held.add(x % A);
    }
    let rows = "";
    for (const a of held) rows += `cust-${c},A${a},${1 + (x % 1000000)}\n`;
    if (c === N - 10) rows += extra([...held], c);
    chunk += rows;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await new Promise<void>((ok) => out.once("drain", () => ok()));
      if (twice) body += chunk;
      chunk = "";
    }
  }
  out.write(chunk);
  if (twice) out.write((body + chunk).replace("customer_id,asset,amount\n", ""));
  out.end();
  await new Promise<void>((ok) => out.once("finish", () => ok()));
}

interface Measured {
  code: number | null;
  stdout: string;
  stderr: string;
  /** the child's peak resident set, bytes (VmHWM) */
  peak: number;
}

/** The CLI as a child process, its VmHWM read every 20 ms until it exits (the loop ends with the child). */
async function measured(args: string[]): Promise<Measured> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  let peak = 0;
  let exited = false;
  const done = new Promise<number | null>((ok) =>
    child.once("exit", (c) => {
      exited = true;
      ok(c);
    }),
  );
  while (!exited) {
    try {
      const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
      if (kb) peak = Math.max(peak, Number(kb[1]) * 1024);
    } catch {
      // gone between the check and the read
    }
    await new Promise((ok) => setTimeout(ok, 20));
  }
  const code = await done;
  await new Promise((ok) => setImmediate(ok));
  return { code, stdout, stderr, peak };
}

const build = (input: string, out: string) =>
  measured([
    "liabilities",
    "build",
    "--input",
    input,
    "--assets",
    assets,
    "--out",
    join(dir, out),
    "--construction",
    "v2",
    "--memory",
    String(MEMORY_MB),
    "--json",
  ]);

/** the peak of the build that is made (the first test), which no refusal may pass */
let built: number | undefined;
const MB = (b: number) => `${(b / 2 ** 20).toFixed(0)} MB`;

beforeAll(async () => {
  const names = Array.from({ length: A }, (_, i) => `A${i},${i % 19}`);
  const w = createWriteStream(assets);
  w.end(`asset,decimals\n${names.join("\n")}\n`);
  await new Promise<void>((ok) => w.once("finish", () => ok()));
});

describe(`liabilities build --memory ${MEMORY_MB}: the peak RSS stays under it, built or refused (${N.toLocaleString("en")} customers × ${A} assets)`, () => {
  it("a build that is made: exit 0, every phase in several buckets, the peak under --memory", async () => {
    const input = join(dir, "ok.csv");
    await write(input);
    const r = await build(input, "ok");
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.customers).toBe(N);
    // the build's own figure is the same counter, read at its end
    expect(j.peak_rss_bytes).toBeLessThanOrEqual(r.peak);
    expect(r.peak, MB(r.peak)).toBeGreaterThan(100 * 2 ** 20);
    expect(r.peak, MB(r.peak)).toBeLessThan(MEMORY_MB * 2 ** 20);
    built = r.peak;
  });

  it("a true duplicate near the end: refused naming its line and asset, nothing written, the peak under --memory", async () => {
    const input = join(dir, "dup.csv");
    let named = "";
    await write(input, (held, c) => {
      named = `customer "cust-${c}" has A${held[0]} twice`;
      return `cust-${c},A${held[0]},5\n`;
    });
    const r = await build(input, "dup");
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error.message).toContain(`: ${named}`);
    expect(existsSync(join(dir, "dup"))).toBe(false);
    expect(r.peak, MB(r.peak)).toBeLessThan(MEMORY_MB * 2 ** 20);
  });

  it("every row given twice: the ten lowest lines named (not one problem a row held), the peak under --memory", async () => {
    const input = join(dir, "twice.csv");
    await write(input, undefined, true);
    const r = await build(input, "twice");
    expect(r.code).toBe(2);
    const e = JSON.parse(r.stderr).error;
    expect(e.message).toContain("10 problems");
    expect(e.details).toHaveLength(10);
    expect(e.details[0]).toMatch(/^line \d+: customer "cust-0" has A\d+ twice$/);
    expect(existsSync(join(dir, "twice"))).toBe(false);
    expect(r.peak, MB(r.peak)).toBeLessThan(MEMORY_MB * 2 ** 20);
    // each problem was held until the end before (1.2 M of them here: 332 MB against the build's 296)
    if (built !== undefined) expect(r.peak, `${MB(r.peak)} refused, ${MB(built)} built`).toBeLessThan(built);
  });

  it("a bad line near the end: refused naming it, the peak under --memory", async () => {
    const input = join(dir, "bad.csv");
    await write(input, (held, c) => `cust-${c},A${held[0]},-5\n`);
    const r = await build(input, "bad");
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error.message).toMatch(/: line \d+: negative amount "-5"$/);
    expect(existsSync(join(dir, "bad"))).toBe(false);
    expect(r.peak, MB(r.peak)).toBeLessThan(MEMORY_MB * 2 ** 20);
  });
});
