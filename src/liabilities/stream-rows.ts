/**
 * Phase A of the streamed build (stream.ts): the balances file's rows, checked by the one row reader
 * (input.ts), spilled to input buckets by the id's FNV-1a top bits — read in parts by the workers
 * (stream-work.ts readPart) when the input is a regular file from 1 MiB on, else by the main thread.
 */
import { closeSync, openSync, readdirSync, readSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { MAX_AMOUNT } from "./format.js";
import {
  type Asset,
  balanceLines,
  balanceRow,
  LONG_LINE,
  longLine,
  MAX_PROBLEMS,
  refuseEmpty,
} from "./input.js";
import { BucketWriter } from "./spill.js";
import { inFile, type RowsResult, spillRow } from "./stream-work.js";
import type { WorkerTask } from "./worker.js";

/** What phase A gives: the input's lines, rows and totals, each part's first line number. */
export interface Rows {
  lines: number;
  rows: number;
  totals: bigint[];
  /** per asset, the rows with an amount above zero (v2: its tree's holders) */
  held: number[];
  lineBase: number[];
}

/** The workers, as phase A uses them (stream.ts's Pool). */
export interface RowsPool {
  readonly size: number;
  each(n: number, task: (i: number) => WorkerTask, done: (r: unknown, worker: number) => void): Promise<void>;
}

/** the input is read in parts by the workers from this size on (a smaller one is read faster than they start) */
const PARALLEL_FROM = 1 << 20;
/** parts of the input: ~32 MiB each, at least 2 per worker (a part is a task: the workers balance), at most 64 */
const PART_BYTES = 32 * 2 ** 20;
const MAX_PARTS = 64;

/**
 * Phase A in the workers: a regular file cut into parts at line starts (just after a \n), each read by a
 * worker (stream-work.ts readPart) into its own in-P-B files, so a bucket's rows are read back in the
 * file's order and every customer is numbered as the serial reader numbers them. Undefined when the
 * input is small or not a regular file, or when a line is refused or a total overflows: the caller then
 * reads it itself (the refusals named exactly as it names them).
 */
export async function readParts(
  pool: RowsPool,
  input: string,
  size: number,
  assets: Asset[],
  inBits: number,
  work: string,
  writerBudget: number,
): Promise<Rows | undefined> {
  if (size < PARALLEL_FROM || !statSync(input).isFile()) return undefined;
  const P = Math.max(1, Math.min(MAX_PARTS, Math.max(2 * pool.size, Math.ceil(size / PART_BYTES))));
  // one descriptor for the cuts and every part (the workers read through it): the file that was opened is
  // the file read, whatever happens to its name meanwhile
  const fd = openSync(input, "r");
  const parts: RowsResult[] = [];
  try {
    const cuts = [0];
    const window = Buffer.allocUnsafe(1 << 16);
    for (let p = 1; p < P; p++) {
      // the first \n at or after the nominal cut (and after the last cut): the next part starts past it
      let at = Math.max(Math.floor((size * p) / P), cuts.at(-1)!);
      let cut = -1;
      while (at < size && cut < 0) {
        const got = readSync(fd, window, 0, window.length, at);
        if (got === 0) break;
        const i = window.subarray(0, got).indexOf(10);
        if (i >= 0) cut = at + i + 1;
        else at += got;
      }
      if (cut < 0 || cut >= size) break;
      if (cut > cuts.at(-1)!) cuts.push(cut);
    }
    cuts.push(size);
    await pool.each(
      cuts.length - 1,
      (part) => ({
        op: "rows",
        task: { dir: work, fd, assets, part, from: cuts[part], to: cuts[part + 1], inBits, writerBudget },
      }),
      (r) => {
        const res = r as RowsResult;
        parts[res.part] = res;
      },
    );
  } finally {
    closeSync(fd);
  }
  const totals = assets.map((_, a) => parts.reduce((t, x) => t + x.totals[a], 0n));
  const held = assets.map((_, a) => parts.reduce((t, x) => t + x.held[a], 0));
  if (parts.some((x) => x.refused) || totals.some((t) => t > MAX_AMOUNT)) {
    for (const f of readdirSync(work)) if (f.startsWith("in-")) rmSync(join(work, f), { force: true });
    return undefined;
  }
  const lineBase: number[] = [];
  let lines = 0;
  for (const x of parts) {
    lineBase.push(lines);
    lines += x.lines;
  }
  const rows = parts.reduce((s, x) => s + x.rows, 0);
  refuseEmpty(input, lines, rows, []);
  return { lines, rows, totals, held, lineBase };
}

/** Phase A: the balances file's rows, checked, to input buckets by the id's FNV-1a top bits. */
export async function spillRows(input: string, assets: Asset[], bits: number, work: string, budget: number) {
  const assetIndex = new Map(assets.map((a, i) => [a.asset, i]));
  const totals = assets.map(() => 0n);
  const held = assets.map(() => 0);
  const problems: string[] = [];
  const out = new BucketWriter(2 ** bits, (b) => inFile(work, 0, b), budget);
  let lines = 0;
  let rows = 0;
  try {
    for await (const raw of balanceLines(input)) {
      lines++;
      if (problems.length >= MAX_PROBLEMS) continue;
      if (raw === LONG_LINE) {
        problems.push(longLine(lines));
        break;
      }
      const row = balanceRow(raw, lines, assets, assetIndex);
      if (row === undefined) continue;
      if (typeof row === "string") {
        problems.push(row);
        continue;
      }
      totals[row.a] += row.base;
      if (row.base > 0n) held[row.a]++;
      if (totals[row.a] > MAX_AMOUNT) {
        problems.push(`line ${lines}: the ${assets[row.a].asset} total overflows 128 bits of base units`);
        continue;
      }
      rows++;
      spillRow(out, bits, lines, 0, row);
    }
  } finally {
    out.close();
  }
  refuseEmpty(input, lines, rows, problems);
  return { lines, rows, totals, held, lineBase: [0] };
}
