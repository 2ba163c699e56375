/**
 * Rows judged on every core: a large file's rows split into shares, one judged on the main thread and each
 * other in a worker thread (`worker.ts`, dist/ownership-worker.cjs), the judgments back in the rows' order.
 * The same `judgeRows` everywhere; a small file, a single core or a missing worker file judges on the main
 * thread alone. A file judged a window of rows at a time keeps its workers from one window to the next.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import type { NetworkName } from "../../chains/coins.js";
import { keccakReady } from "../../proof/keccak.js";
import { judgeRows, type RowJudged } from "./judge.js";
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

/** One worker thread, started once and given one share after another (a file's windows of rows). */
class ShareWorker {
  private readonly w: Worker;
  /** the share in flight: what its answer, an error or the thread's exit settles */
  private pending?: { resolve: (j: RowJudged[]) => void; reject: (e: Error) => void };
  private failed?: Error;

  constructor(file: string) {
    this.w = new Worker(file);
    this.w.on("message", (m: { judged?: RowJudged[]; error?: string }) => {
      const p = this.pending;
      this.pending = undefined;
      if (m.judged) p?.resolve(m.judged);
      else p?.reject(new Error(`an ownership worker failed: ${m.error}`));
    });
    this.w.on("error", (e) => this.fail(e));
    this.w.on("exit", (code) => this.fail(new Error(`an ownership worker stopped (exit ${code})`)));
  }

  private fail(e: Error): void {
    this.failed ??= e;
    const p = this.pending;
    this.pending = undefined;
    p?.reject(e);
  }

  judge(task: JudgeTask): Promise<RowJudged[]> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.w.postMessage(task);
    });
  }

  /** The thread ended; a share in flight is refused (an interrupted run's, which waits on it). */
  stop(): void {
    this.w.removeAllListeners("exit");
    this.fail(new Error("an ownership worker was stopped"));
    void this.w.terminate();
  }
}

/**
 * Rows judged offline (`judgeRows`), on as many cores as a window of rows is worth: the worker threads started
 * on the first window that needs them and kept for the next (a worker's start is ~0.1 s); `close()` ends them
 * (and an abort of `signal` does).
 */
export interface RowJudges {
  judge(rows: OwnershipRow[]): Promise<RowJudged[]>;
  close(): void;
}

export function rowJudges(
  layout: OwnershipLayout,
  network: NetworkName | undefined,
  signal?: AbortSignal,
): RowJudges {
  const workers: ShareWorker[] = [];
  const close = () => {
    signal?.removeEventListener("abort", close);
    for (const w of workers.splice(0)) w.stop();
  };
  signal?.addEventListener("abort", close, { once: true });
  return {
    async judge(rows) {
      // the rows' accounts hashed by hash-wasm's keccak, compiled once (src/proof/keccak.ts)
      await keccakReady();
      const shares = Math.min(availableParallelism(), MOST, Math.floor(rows.length / SHARE));
      const file = shares > 1 && !signal?.aborted ? workerFile() : undefined;
      if (!file) return judgeRows(rows, layout, network);
      while (workers.length < shares - 1) workers.push(new ShareWorker(file));
      const size = Math.ceil(rows.length / shares);
      const others = [];
      for (let k = 1; k < shares; k++)
        others.push(
          (workers[k - 1] as ShareWorker).judge({
            rows: rows.slice(k * size, (k + 1) * size),
            layout,
            network,
          }),
        );
      // the main thread's share while the workers judge theirs
      const mine = judgeRows(rows.slice(0, size), layout, network);
      return mine.concat(...(await Promise.all(others)));
    },
    close,
  };
}
