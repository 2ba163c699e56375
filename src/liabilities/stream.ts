/**
 * `liabilities build`, streamed: memory bounded by a setting, not by the number of customers; both cores
 * used; the same tree as the in-memory build (build.ts) from the same build key. Options in, data out; it
 * never prints.
 *
 * A. main thread: the balances file read line by line (refused with line numbers as build.ts does), each
 *    row spilled to an input bucket chosen by the id's hash (a customer's rows all land in one bucket);
 * B. workers: a bucket at a time, customers aggregated, each one's secret, split and k leaves made
 *    (leaves.ts), each leaf spilled to a place bucket by its place key's top bits; then the padding leaves;
 * C. workers, one subtree each (T = 2: the two halves of the leaf range): the place buckets that hold the
 *    subtree's leaves read in key order, sorted (so leaf index = bucket's first index + rank), and every
 *    level of the subtree written to tree.bin as it is made (spill.ts LevelWriter); the main thread hashes
 *    the subtrees' roots into the root;
 * D. main thread: the customers file from each worker's customers and the leaf indices the subtrees found,
 *    and the hashed index built bucket by bucket (entries sorted by home slot, placed by linear probing);
 * E. the commitment; every file renamed into place only when all are complete.
 */

import { existsSync, mkdtempSync, readdirSync, rmSync, statfsSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { Worker } from "node:worker_threads";
import { ChaingwError, UsageError } from "../errors/index.js";
import { cannotWrite } from "../util/atomic.js";
import { type BuildOptions, type BuildResult, commitmentOf, heightFor, splitOf } from "./build.js";
import { type Commitment, makeCommitment } from "./commitment.js";
import { forestRoot, getAmount, hex, parentOf, RECORD_V2, recordBytes } from "./format.js";
import { type Asset, MAX_PROBLEMS, readAssets, refuseEmpty } from "./input.js";
import { cryptoRandom } from "./random.js";
import { BuildFiles, buildFiles, indexSlots, writeTreeHeader } from "./store.js";
import { pow2Bits, writeCustomersStreamed } from "./stream-customers.js";
import { type Rows, readParts, spillRows } from "./stream-rows.js";
import type { HalfRoot, SubtreeTask, TreeAt } from "./stream-tree.js";
import { type Forest, PLACE_HEAD, placeFile, SLOT_RANGE, TREE_HEADER } from "./stream-work.js";
import type { WorkerTask } from "./worker.js";

export interface StreamOptions extends BuildOptions {
  /** the memory the build may use, bytes @default 2 GiB */
  memory?: number;
  /** worker threads @default 2 (1 on a one-core machine) */
  threads?: number;
  /** the worker's script @default dist/liabilities-worker.cjs beside the running bundle */
  workerFile?: string;
  /** each phase as it ends: the milliseconds since the build started, the work directory's bytes on disk */
  onPhase?: (e: { phase: string; ms: number; workBytes: number }) => void;
  /**
   * every `tickMs` while the build runs (not while the main thread itself works through phase D): the work
   * directory's bytes and its files by kind (`in`, `place`, `cust`, `slot`, `idx`: how far a phase has come)
   */
  onTick?: (e: { ms: number; workBytes: number; files: Record<string, number> }) => void;
  /** @default 60 s */
  tickMs?: number;
  /** the free bytes of the file system holding `dir` @default statfs's (for the user: blocks available) */
  free?: (dir: string) => number;
}

export interface StreamResult extends BuildResult {
  /** v2: each asset's tree's height */
  forest?: number[];
  /** the most the work directory held on disk (allocated blocks), sampled at each phase's end and before each deletion of a phase's leftovers */
  peakWorkBytes: number;
}

export const DEFAULT_MEMORY = 2 * 1024 ** 3;
/**
 * What the process holds beside the buckets, whatever the size: V8 heaps and code of the main thread and
 * the two workers (~100 MB measured on a 1,000-customer build) and, while the workers make leaves, the
 * hashes' and BigInts' garbage between collections (up to ~190 MB more, measured at 1 M customers with
 * one-bucket-of-4-MB sizing). Below BASELINE + a little, `--memory` cannot be kept (the command refuses it).
 */
export const BASELINE = 320 * 1024 ** 2;
/** the smallest `--memory` the command accepts, MB */
export const MIN_MEMORY_MB = 400;
/** bytes a row's CSV bytes take at most, aggregated (its spilled row read back, the ledger's entry and tables) */
const ROW_BYTES = 6;
/** at most 2^16 input buckets, 2^20 place buckets */
const MAX_IN_BITS = 16;
const MAX_PLACE_BITS = 20;

/**
 * The place buckets' bits for up to `leaves` leaves of E bytes, a worker's share `per` of the data budget:
 * a bucket sorted (~1.5 × (E + 28) bytes a leaf: the entries, their sort keys) within half of it, the
 * buckets' write buffers (one leaf each at least) within a quarter. Undefined when no count of buckets
 * fits: the budget is too small for the shape (per ≥ √(12·leaves·E·(E+28)) always fits).
 */
export function placeBitsFor(leaves: number, E: number, per: number): number | undefined {
  const bits = pow2Bits((leaves * (E + 28) * 1.5) / (per / 2));
  return bits > MAX_PLACE_BITS || 2 ** bits * E > per / 4 ? undefined : bits;
}

/** The --memory (MB) that gives each of T workers `per` bytes of data. */
const neededMb = (T: number, per: number) => Math.ceil((per * T + BASELINE) / 1024 ** 2);
const mbOf = (o: StreamOptions) => `${Math.round((o.memory ?? DEFAULT_MEMORY) / 1024 ** 2)} MB`;
/** what a work file's failed write says: the system ran out of room or refused the write */
const WRITE_CODES = new Set(["EFBIG", "ENOSPC", "EDQUOT", "EROFS", "EIO"]);

/** A worker thread, one task at a time. */
class Pool {
  private readonly workers: Worker[];
  constructor(n: number, file: string) {
    this.workers = Array.from({ length: n }, () => new Worker(file));
  }
  get size(): number {
    return this.workers.length;
  }
  run(i: number, task: WorkerTask): Promise<unknown> {
    const w = this.workers[i];
    return new Promise((ok, fail) => {
      const onError = (e: Error) => fail(e);
      w.once("error", onError);
      type Answer = {
        ok?: unknown;
        error?: string;
        code?: string;
        usage?: { message: string; hint?: string };
      };
      w.once("message", (m: Answer) => {
        w.off("error", onError);
        if (m.usage) fail(new UsageError(m.usage.message, { hint: m.usage.hint }));
        else if (m.error !== undefined)
          fail(Object.assign(new Error(`liabilities worker: ${m.error}`), { code: m.code }));
        else ok(m.ok);
      });
      w.postMessage(task);
    });
  }
  /** Tasks 0..n-1 spread over the workers as each becomes free. */
  async each(
    n: number,
    task: (i: number) => WorkerTask,
    done: (r: unknown, worker: number) => void,
  ): Promise<void> {
    let next = 0;
    await Promise.all(
      this.workers.map(async (_, w) => {
        while (next < n) done(await this.run(w, task(next++)), w);
      }),
    );
  }
  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

function workerScript(o: StreamOptions): string {
  const candidates = o.workerFile
    ? [o.workerFile]
    : [
        join(__dirname, "liabilities-worker.cjs"),
        join(__dirname, "..", "..", "dist", "liabilities-worker.cjs"),
      ];
  const f = candidates.find((c) => existsSync(c));
  if (!f) throw new Error(`the liabilities worker is missing (${candidates.join(", ")}): run npm run build`);
  return f;
}

const freeBytes = (dir: string): number => {
  const f = statfsSync(dir);
  return f.bavail * f.bsize;
};

/**
 * Before the tree (phases C and D: the outputs are written), with the leaf and customer counts known: the
 * most the work directory will grow from here, against the file system's free space. Refused (nothing
 * left behind) when it cannot fit, rather than failing with ENOSPC after the tree's hours.
 */
function checkDisk(
  work: string,
  free: (dir: string) => number,
  o: { treeBytes: number; customers: number; k: number; leaves: number; placeBucket: number },
): void {
  const now = diskBytes(work);
  const files: Record<string, number> = {};
  for (const f of readdirSync(work)) {
    const kind = /^[a-z]+/.exec(f)?.[0] ?? f;
    files[kind] = (files[kind] ?? 0) + statSync(join(work, f)).size;
  }
  const cust = files.cust ?? 0;
  const n = o.customers;
  const slots = indexSlots(n);
  // customers.csv: the id and secret of each customer (the cust files, the secret in hex) and the leaf
  // indices of at most 10 digits, with separators (v2: each asset held, its index and a colon, within the
  // cust files' 4 bytes an asset and one more a leaf)
  const csv = cust + n * (32 + 3) + o.leaves * 12;
  const index = 16 + 12 * slots;
  // C's end: the tree, the customers, the leaf indices, one place bucket; D's end: the outputs, the index
  // entries and one worker's customers (each deleted once read)
  const peak = Math.max(
    o.treeBytes + cust + 8 * o.leaves + o.placeBucket,
    o.treeBytes + csv + index + 12 * n + cust,
  );
  // the leaves' buckets on disk now are deleted as the tree grows over them: the growth is peak − now
  const more = peak - now;
  const avail = free(work);
  if (more > avail)
    throw new ChaingwError(
      `liabilities build: not enough disk — the build needs ${gb(more)} more, ${gb(peak)} at its peak (tree.bin ${gb(o.treeBytes)}, customers.csv ~${gb(csv)}, customers.idx ${gb(index)}), the file system holds ${gb(avail)} free; nothing was written`,
      { hint: "free some space or give --out on a larger file system (the work files are made beside it)" },
    );
}
const gb = (b: number) => `${(b / 1e9).toFixed(b < 1e9 ? 3 : 1)} GB`;

/** Bytes a directory's files take on disk (allocated blocks: tree.bin is sparse until written). */
function diskBytes(dir: string, files?: Record<string, number>): number {
  let sum = 0;
  for (const f of readdirSync(dir)) {
    try {
      sum += statSync(join(dir, f)).blocks * 512;
    } catch {
      // deleted meanwhile by a worker
    }
    if (files) {
      const kind = /^[a-z]+/.exec(f)?.[0] ?? f;
      files[kind] = (files[kind] ?? 0) + 1;
    }
  }
  return sum;
}

/** What every phase of a streamed build reads: the options, the workers, the work directory, the sizes. */
interface Run {
  o: StreamOptions;
  /** the four outputs, made in the work directory and renamed into --out at the end */
  files: BuildFiles;
  pool: Pool;
  /** the work directory, beside --out */
  work: string;
  assets: Asset[];
  /** assets, and one record's bytes */
  A: number;
  R: number;
  /** leaves per customer */
  k: number;
  /** worker threads */
  T: number;
  /** the bytes of memory the buckets may use */
  data: number;
  /** construction v2: a tree per asset */
  v2: boolean;
  /** a phase ended: its name to onPhase with the time and the work directory's size */
  phase: (name: string) => void;
  /** the work directory's size now, noted for the peak */
  sample: () => number;
}

/** What phase B leaves for the tree: the customers and leaves per worker, the trees' shape, the place buckets. */
interface Leaves {
  count: number;
  perWorker: number[];
  /** the leaves of each worker's customers */
  leavesOf: number[];
  /** the customers' leaves (before padding) */
  real: number;
  forest: Forest;
  heights: number[];
  placeBits: number;
  /** the place buckets' entries, and where each starts among all leaves */
  counts: number[];
  bases: number[];
}

export async function buildStreamed(o: StreamOptions): Promise<StreamResult> {
  const k = splitOf(o);
  const data = Math.max(4 * 1024 ** 2, (o.memory ?? DEFAULT_MEMORY) - BASELINE);
  const assets = readAssets(o.assets);
  const script = workerScript(o);
  let inputBytes: number;
  try {
    inputBytes = statSync(o.input).size;
  } catch (e) {
    throw new UsageError(`--input ${o.input}: cannot read it (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
  const T = Math.max(1, Math.min(o.threads ?? 2, availableParallelism() >= 2 ? 2 : 1));
  // the work directory beside --out (the same file system, so the files are renamed into place); --out
  // itself is made only once the build is whole
  const out = resolve(o.out);
  const work = mkdtempSync(join(dirname(out), `.${basename(out)}.build-`));
  let run: (Run & { stop: () => Promise<number> }) | undefined;
  try {
    run = startRun(o, { work, script, assets, k, T, data, out });
    const rowsIn = await readRows(run, inputBytes);
    const leaves = await makeLeaves(run, rowsIn);
    const { roots, children, treeBytes, Tt } = await hashTree(run, leaves);
    writeCustomersStreamed(run, leaves.perWorker, leaves.leavesOf, Tt);
    run.phase("customers file and index written");
    // E. the commitment, then everything into place
    const commitment = run.v2
      ? forestCommitment(o, assets, rowsIn.totals, leaves.heights, roots)
      : commitmentOf(o, assets, rowsIn.totals, leaves.heights[0], roots[0], children);
    run.files.commitment.write(`${JSON.stringify(commitment, null, 2)}\n`);
    run.files.commit();
    return {
      commitment,
      customers: leaves.count,
      realLeaves: leaves.real,
      forest: run.v2 ? leaves.heights : undefined,
      files: buildFiles(o.out),
      treeBytes,
      peakWorkBytes: await run.stop(),
    };
  } catch (e) {
    // a work file's write (the buckets: the outputs name themselves) refused by the system
    const code = (e as NodeJS.ErrnoException).code;
    throw code && WRITE_CODES.has(code) ? cannotWrite("--out", `its work files in ${work}`, e) : e;
  } finally {
    await run?.stop();
    run?.files.discard();
    rmSync(work, { recursive: true, force: true });
  }
}

/** v2's commitment: each tree's root (its sum checked against the input's total), the root over them. */
function forestCommitment(
  o: StreamOptions,
  assets: Asset[],
  totals: bigint[],
  heights: number[],
  roots: Uint8Array[],
): Commitment {
  const trees = roots.map((r, a) => {
    if (getAmount(r, 32) !== totals[a]) throw new Error("root sum ≠ total");
    return { height: heights[a], root: r.subarray(0, 32), total: totals[a] };
  });
  return makeCommitment({
    assets,
    totals,
    leaves: heights.reduce((s, h) => s + 2 ** h, 0),
    height: Math.max(...heights),
    inner: hex(forestRoot(trees)),
    created: o.now ?? new Date(),
    label: o.label,
    challenge: o.challenge,
    trees: trees.map((t, a) => ({ asset: assets[a].asset, height: t.height, root: hex(t.root) })),
  });
}

/** The run's workers, outputs and clock: phases and ticks reported, the work directory's peak noted. */
function startRun(
  o: StreamOptions,
  r: { work: string; script: string; assets: Asset[]; k: number; T: number; data: number; out: string },
): Run & { stop: () => Promise<number> } {
  const { work } = r;
  const t0 = performance.now();
  let peakWork = 0;
  const sample = () => {
    const bytes = diskBytes(work);
    peakWork = Math.max(peakWork, bytes);
    return bytes;
  };
  const ticks = setInterval(() => {
    const files: Record<string, number> = {};
    const workBytes = diskBytes(work, files);
    peakWork = Math.max(peakWork, workBytes);
    o.onTick?.({ ms: Math.round(performance.now() - t0), workBytes, files });
  }, o.tickMs ?? 60_000);
  ticks.unref();
  const files = new BuildFiles(r.out, work);
  const pool = new Pool(r.T, r.script);
  let stopped: Promise<void> | undefined;
  return {
    o,
    files,
    pool,
    work,
    assets: r.assets,
    A: r.assets.length,
    R: o.construction === 2 ? RECORD_V2 : recordBytes(r.assets.length),
    v2: o.construction === 2,
    k: r.k,
    T: r.T,
    data: r.data,
    phase: (name: string) => {
      const workBytes = sample();
      o.onPhase?.({ phase: name, ms: Math.round(performance.now() - t0), workBytes });
    },
    sample,
    stop: async () => {
      clearInterval(ticks);
      stopped ??= pool.close();
      await stopped;
      return peakWork;
    },
  };
}

/**
 * A. rows to input buckets: a bucket aggregated takes up to ~6× its CSV bytes (the rows read back, the
 * sparse ledger's entries and tables), one bucket per worker at a time, in half of a worker's share; the
 * buckets' write buffers in a quarter.
 */
async function readRows(run: Run, inputBytes: number): Promise<Rows & { inBits: number }> {
  const { o, pool, assets, work, T, data } = run;
  const per = data / T;
  const inBits = pow2Bits((inputBytes * ROW_BYTES) / (per / 2));
  if (inBits > MAX_IN_BITS)
    throw new UsageError(
      `--input ${o.input}: ${gb(inputBytes)} of balances is more than --memory ${mbOf(o)} can aggregate in ${2 ** MAX_IN_BITS} buckets: give at least --memory ${neededMb(T, (inputBytes * ROW_BYTES * 2) / 2 ** MAX_IN_BITS)}`,
    );
  const rowsIn =
    (await readParts(pool, o.input, inputBytes, assets, inBits, work, per / 4)) ??
    (await spillRows(o.input, assets, inBits, work, per / 4));
  run.phase("rows read and spilled");
  return { ...rowsIn, inBits };
}

/**
 * v2's forest, known from phase A's counts: per asset a tree of 2^h ≥ k × its holders' leaves (h ≥ 1), one
 * after another in the forest's order; refused past 2^32 − 1 leaves (numbered in 32 bits among a worker's).
 */
function forestOf(held: number[], k: number): Forest {
  const leaves = held.reduce((s, x) => s + x, 0) * k;
  if (leaves > 2 ** 32 - 1)
    throw new UsageError(`--input: ${leaves} leaves, more than the 2^32 − 1 a v2 build makes`, {
      hint: "nothing was written; build the customers in parts, or give a smaller --split",
    });
  const L = held.map((n) => 2 ** heightFor(n, k));
  const base: number[] = [];
  const G = L.reduce((s, x) => {
    base.push(s);
    return s + x;
  }, 0);
  return { base, L, G };
}

/**
 * B. customers' leaves to place buckets (an entry and its sort keys take ~(E + 36) × 1.5 bytes in C), the
 * refusals of the rows, the trees' heights; B'. the padding leaves, split between the workers.
 */
async function makeLeaves(run: Run, rowsIn: Rows & { inBits: number }): Promise<Leaves> {
  const { o, pool, work, assets, k, T, data, R } = run;
  const E = PLACE_HEAD + R;
  const forest = run.v2 ? forestOf(rowsIn.held, k) : undefined;
  const leavesMax = forest ? forest.G : 2 ** pow2Bits(Math.max(2, rowsIn.rows * k));
  const per = data / T;
  const placeBits = placeBitsFor(leavesMax, E, per);
  if (placeBits === undefined)
    throw new UsageError(
      `--memory ${mbOf(o)} is too small for up to ${leavesMax} leaves of ${run.v2 ? 1 : run.A} sums (${E} bytes a leaf): the tree's buckets need --memory ${neededMb(T, Math.sqrt(12 * leavesMax * E * (E + 36)))} or more`,
      { hint: "nothing was written; give more --memory (or --construction v2: leaves of one sum each)" },
    );
  const buildKey = new Uint8Array(32);
  (o.random ?? cryptoRandom())(buildKey);
  for (let w = 0; w < T; w++) {
    const setup = { dir: work, w, assets, k, key: buildKey, placeBits, forest, lineBase: rowsIn.lineBase };
    await pool.run(w, { op: "init", setup: { ...setup, writerBudget: per / 4 } });
  }
  const perWorker = new Array<number>(T).fill(0);
  const leavesOf = new Array<number>(T).fill(0);
  // the lowest MAX_PROBLEMS lines refused, kept as they come (each bucket sends at most its own lowest);
  // once one is, the buckets left are only checked: no leaves are made for a build that is refused
  let problems: [number, string][] = [];
  await pool.each(
    2 ** rowsIn.inBits,
    (b) => ({ op: "aggregate", bucket: b, check: problems.length > 0 }),
    (r, w) => {
      const x = r as { problems: [number, string][]; customers: number; leaves: number };
      if (x.problems.length)
        problems = [...problems, ...x.problems].sort((p, q) => p[0] - q[0]).slice(0, MAX_PROBLEMS);
      perWorker[w] += x.customers;
      leavesOf[w] = x.leaves;
    },
  );
  const count = perWorker.reduce((s, x) => s + x, 0);
  run.phase("customers' leaves made");
  refuseEmpty(
    o.input,
    rowsIn.lines,
    count,
    problems.map((p) => p[1]),
  );
  const real = leavesOf.reduce((s, x) => s + x, 0);
  const f = forest ?? { base: [0], L: [2 ** heightFor(count, k)], G: 2 ** heightFor(count, k) };
  const heights = f.L.map((L) => Math.log2(L));
  await padding(run, f, forest ? rowsIn.held.map((n) => n * k) : [real]);
  const counts = new Array<number>(2 ** placeBits).fill(0);
  for (let w = 0; w < T; w++) {
    const bytes = (await pool.run(w, { op: "finish" })) as number[];
    bytes.forEach((x, b) => {
      counts[b] += x / E;
    });
  }
  run.phase("padding leaves made");
  const bases: number[] = [];
  counts.reduce((s, x) => {
    bases.push(s);
    return s + x;
  }, 0);
  return { count, perWorker, leavesOf, real, forest: f, heights, placeBits, counts, bases };
}

/** B'. Each tree's padding leaves (L − its real leaves), the forest's whole count split evenly between the workers. */
async function padding(run: Run, f: Forest, real: number[]): Promise<void> {
  const { T, pool } = run;
  const pads = f.L.map((L, t) => L - real[t]);
  const P = pads.reduce((s, x) => s + x, 0);
  await Promise.all(
    Array.from({ length: T }, async (_, w) => {
      // this worker's share [from, to) of all padding leaves, tree by tree
      const from = Math.floor((P * w) / T);
      const to = Math.floor((P * (w + 1)) / T);
      let at = 0;
      for (let t = 0; t < pads.length; t++) {
        const lo = Math.max(from, at);
        const hi = Math.min(to, at + pads[t]);
        if (lo < hi) await pool.run(w, { op: "padding", tree: t, from: lo - at, to: hi - at });
        at += pads[t];
      }
    }),
  );
}

/** The forest's trees in tree.bin (v2 after a directory of A heights), and the file's size. */
function treesAt(run: Run, f: Forest): { trees: TreeAt[]; treeBytes: number } {
  let offset = TREE_HEADER + (run.v2 ? 4 * run.A : 0);
  const trees = f.L.map((L, t) => {
    const at = { base: f.base[t], L, offset };
    offset += run.R * (2 * L - 1);
    return at;
  });
  return { trees, treeBytes: offset };
}

/**
 * The workers' runs of half-trees: [cut_t, cut_t+1), each cut a half-tree's start nearest an even share of
 * all leaves (v1: the two halves of its one tree).
 */
function runsOf(trees: TreeAt[], G: number, T: number): [number, number][] {
  const starts = trees.flatMap((t) => [t.base, t.base + t.L / 2]);
  const cuts = [0];
  for (let w = 1; w < T; w++) {
    const want = (G * w) / T;
    const best = starts.reduce((b, x) => (Math.abs(x - want) < Math.abs(b - want) ? x : b), G);
    cuts.push(Math.max(best, cuts.at(-1)!));
  }
  cuts.push(G);
  return cuts.slice(0, -1).map((c, w) => [c, cuts[w + 1]] as [number, number]);
}

/** C. the trees: each worker a run of half-trees, the main thread each tree's root above its halves. */
async function hashTree(
  run: Run,
  leaves: Leaves,
): Promise<{ roots: Uint8Array[]; children: [Uint8Array, Uint8Array]; treeBytes: number; Tt: number }> {
  const { o, pool, work, A, R, k, T } = run;
  const { forest, placeBits, counts, bases, leavesOf, count } = leaves;
  const E = PLACE_HEAD + R;
  const { trees, treeBytes } = treesAt(run, forest);
  checkDisk(work, o.free ?? freeBytes, {
    treeBytes,
    customers: count,
    k,
    leaves: leaves.real,
    placeBucket: Math.max(...counts) * E,
  });
  const file = run.files.tree;
  file.write(writeTreeHeader(A, Math.max(...leaves.heights), run.v2 ? leaves.heights : undefined), 0);
  file.truncate(treeBytes);
  const runs = runsOf(trees, forest.G, T).filter(([lo, hi]) => hi > lo);
  const Tt = runs.length;
  const slotRanges = Math.max(1, Math.ceil(Math.max(...leavesOf) / SLOT_RANGE));
  const halves: HalfRoot[][] = [];
  const subtrees = Promise.all(
    runs.map(async ([lo, hi], t) => {
      const task: SubtreeTask = {
        dir: work,
        tree: file.tmp,
        t,
        W: T,
        R,
        A: run.v2 ? 1 : A,
        trees,
        lo,
        hi,
        bases,
        counts,
        slotRanges,
        levelBudget: run.data / T / 4,
      };
      halves[t] = (await pool.run(t, { op: "subtree", task })) as HalfRoot[];
    }),
  );
  // a level the workers could not write is tree.bin's failure
  await subtrees.catch((e) => {
    throw WRITE_CODES.has((e as NodeJS.ErrnoException).code ?? "") ? cannotWrite("--out", file.path, e) : e;
  });
  const sides = trees.map(() => [] as Uint8Array[]);
  for (const h of halves.flat()) sides[h.tree][h.half] = h.record;
  const roots = trees.map((t, i) => {
    const root = parentOf(sides[i][0], sides[i][1], run.v2 ? 1 : A)!;
    file.write(root, t.offset + R * (2 * t.L - 2));
    return root;
  });
  // the place bucket across the runs' boundary (each run deleted the buckets only it read)
  run.sample();
  for (let b = 0; b < 2 ** placeBits; b++)
    for (let w = 0; w < T; w++) rmSync(placeFile(work, w, b), { force: true });
  run.phase("tree hashed");
  // v1: the root's two children too (commitment.json carries them)
  return { roots, children: [sides[0][0], sides[0][1]], treeBytes, Tt };
}
