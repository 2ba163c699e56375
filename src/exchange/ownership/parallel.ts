/**
 * Rows judged on every core: a large file's rows split into shares, one judged on the main thread and each
 * other in a worker thread (`worker.ts`, dist/ownership-worker.cjs), the judgments back in the rows' order.
 * The same `judgeRow` everywhere; a small file, a single core or a missing worker file judges on the main
 * thread alone.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import type { NetworkName } from "../../chains/coins.js";
import { judgeRow, type RowJudged } from "./judge.js";
import type { OwnershipLayout, OwnershipRow } from "./read.js";
import type { JudgeTask } from "./worker.js";

/** Rows per share below which a worker's start (its bundle, the curve's tables: ~0.1 s) costs more than it saves. */
const SHARE = 1500;
const MOST = 8;

function workerFile(): string | undefined {
  const candidates = [
    join(__dirname, "ownership-worker.cjs"),
    join(__dirname, "..", "..", "..", "dist", "ownership-worker.cjs"),
  ];
  return candidates.find((c) => existsSync(c));
}

function inWorker(file: string, task: JudgeTask, signal?: AbortSignal): Promise<RowJudged[]> {
  return new Promise((resolve, reject) => {
    const w = new Worker(file);
    const stop = () => void w.terminate();
    signal?.addEventListener("abort", stop, { once: true });
    const done = () => {
      signal?.removeEventListener("abort", stop);
      void w.terminate();
    };
    w.once("message", (m: { judged?: RowJudged[]; error?: string }) => {
      done();
      if (m.judged) resolve(m.judged);
      else reject(new Error(`an ownership worker failed: ${m.error}`));
    });
    w.once("error", (e) => {
      done();
      reject(e);
    });
    w.once("exit", (code) => reject(new Error(`an ownership worker stopped (exit ${code})`)));
    w.postMessage(task);
  });
}

/** Each of `rows` judged offline (`judgeRow`), in order, on as many cores as the file is worth. */
export async function judgeRows(
  rows: OwnershipRow[],
  layout: OwnershipLayout,
  network: NetworkName | undefined,
  signal?: AbortSignal,
): Promise<RowJudged[]> {
  const shares = Math.min(availableParallelism(), MOST, Math.floor(rows.length / SHARE));
  const file = shares > 1 ? workerFile() : undefined;
  if (!file) return rows.map((r) => judgeRow(r, layout, network));
  const size = Math.ceil(rows.length / shares);
  const others = [];
  for (let k = 1; k < shares; k++)
    others.push(inWorker(file, { rows: rows.slice(k * size, (k + 1) * size), layout, network }, signal));
  // the main thread's share while the workers judge theirs
  const mine = rows.slice(0, size).map((r) => judgeRow(r, layout, network));
  return mine.concat(...(await Promise.all(others)));
}
