/**
 * A worker thread of `reserves verify` on a large address file (bundled apart as
 * dist/ownership-worker.cjs, started by `parallel.ts`): the rows it is given judged offline, each as
 * `judgeRows` judges it on the main thread. Message in: {rows, layout, network}; out: {judged} or {error}.
 */
import { parentPort } from "node:worker_threads";
import type { NetworkName } from "../../chains/coins.js";
import { keccakReady } from "../../proof/keccak.js";
import { judgeRows } from "./judge.js";
import type { OwnershipLayout, OwnershipRow } from "./read.js";

export interface JudgeTask {
  rows: OwnershipRow[];
  layout: OwnershipLayout;
  network?: NetworkName;
}

parentPort?.on("message", async (m: JudgeTask) => {
  try {
    await keccakReady();
    parentPort?.postMessage({ judged: judgeRows(m.rows, m.layout, m.network) });
  } catch (e) {
    parentPort?.postMessage({ error: (e as Error).stack ?? String(e) });
  }
});
