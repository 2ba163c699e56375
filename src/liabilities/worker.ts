/**
 * The streamed build's worker thread (bundled apart as dist/liabilities-worker.cjs): one LeafWork across
 * its tasks, and subtrees. Messages in: {op, …}; out: {ok: result} or {error: message, code}.
 */
import { parentPort } from "node:worker_threads";
import { UsageError } from "../errors/index.js";
import { buildSubtree, type SubtreeTask } from "./stream-tree.js";
import { LeafWork, type RowsTask, readPart, type WorkSetup } from "./stream-work.js";

export type WorkerTask =
  | { op: "rows"; task: RowsTask }
  | { op: "init"; setup: WorkSetup }
  | { op: "aggregate"; bucket: number; check?: boolean }
  | { op: "padding"; tree: number; from: number; to: number }
  | { op: "finish" }
  | { op: "subtree"; task: SubtreeTask };

let work: LeafWork | undefined;

export function runTask(m: WorkerTask): unknown {
  switch (m.op) {
    case "rows":
      return readPart(m.task);
    case "init":
      work = new LeafWork(m.setup);
      return null;
    case "aggregate":
      return work!.aggregate(m.bucket, m.check);
    case "padding":
      work!.padding(m.tree, m.from, m.to);
      return null;
    case "finish":
      return Array.from(work!.finish());
    case "subtree":
      return buildSubtree(m.task);
  }
}

parentPort?.on("message", (m: WorkerTask) => {
  try {
    parentPort!.postMessage({ ok: runTask(m) });
  } catch (e) {
    // the system's code with it: a write the system refused (EFBIG, ENOSPC) is named by the main thread;
    // an input refused here (a limit) is refused by it in the same words
    parentPort!.postMessage({
      error: (e as Error).stack ?? String(e),
      code: (e as NodeJS.ErrnoException).code,
      usage: e instanceof UsageError ? { message: e.message, hint: e.hint } : undefined,
    });
  }
});
