/**
 * The scantxoutset control workflow: start (never retried, never failed over), status polls while it
 * runs, abort with confirmation. Every call is pinned to one endpoint: the node keeps one scan slot,
 * and status/abort must reach the node that runs the scan. Nothing here prints; callers get callbacks.
 */

import { RpcError, TransportError } from "../errors/index.js";
import type { JsonObject, JsonValue } from "../json/lossless.js";
import { JsonNumber } from "../json/lossless.js";
import { findMethod } from "../methods/index.js";
import { type JsonRpcClient, markedCall } from "../rpc/client.js";
import type { Endpoint } from "../rpc/endpoint.js";
import { sleep } from "../util/sleep.js";
import type { ScanObject } from "./input.js";

/** The registry's definition of scantxoutset: the single source of its marks and of what runs long. */
const scanDef = () => findMethod("scantxoutset", "utxo");
const marks = () => scanDef().marks;

/** `status`: the node's progress in percent while a scan runs, `null` when none runs. */
export async function scanStatus(client: JsonRpcClient, ep: Endpoint): Promise<number | null> {
  const { result } = await client.call("scantxoutset", ["status"], { ...marks(), pinned: ep });
  if (result === null) return null;
  const p = (result as JsonObject)?.progress;
  return p instanceof JsonNumber ? Number(p.raw) : 0;
}

/** `abort`: true when a scan was running and was told to stop. */
async function scanAbort(client: JsonRpcClient, ep: Endpoint): Promise<boolean> {
  const { result } = await client.call("scantxoutset", ["abort"], { ...marks(), pinned: ep });
  return result === true;
}

interface AbortOutcome {
  /** the first abort's answer: was a scan running */
  wasRunning: boolean;
  /** status came back null within the bound */
  confirmed: boolean;
  aborts: number;
  waitedMs: number;
}

/**
 * Sends `abort` and polls `status` until it is null, at most `boundMs`. While the node still reports a
 * scan, `abort` is sent again: Litecoin/Bitcoin Core 0.21 clears the abort flag once it has expanded the
 * descriptors, so an abort that lands during expansion is lost and the scan runs to the end.
 */
export async function abortAndConfirm(
  client: JsonRpcClient,
  ep: Endpoint,
  boundMs: number,
  pollMs = 250,
): Promise<AbortOutcome> {
  const t0 = Date.now();
  const wasRunning = await scanAbort(client, ep);
  let aborts = 1;
  for (let i = 0; Date.now() - t0 < boundMs && i < 100_000; i++) {
    let st: number | null;
    try {
      st = await scanStatus(client, ep);
    } catch {
      st = -1; // no answer: unknown, keep trying within the bound
    }
    if (st === null) return { wasRunning, confirmed: true, aborts, waitedMs: Date.now() - t0 };
    await sleep(pollMs);
    if (st !== -1) {
      await scanAbort(client, ep).catch(() => false);
      aborts++;
    }
  }
  return { wasRunning, confirmed: false, aborts, waitedMs: Date.now() - t0 };
}

/** The node's one scan slot is taken (-8 "Scan already in progress"). */
export class ScanBusyError extends RpcError {}

/** The node or a gateway refused the request's size (HTTP 413): the caller may split the objects. */
export class TooLargeError extends TransportError {}

export interface ProgressTick {
  /** node's percentage, or null when it reports no scan (not begun yet, or just finished) */
  progress: number | null;
  elapsedMs: number;
}

export interface StartOptions {
  client: JsonRpcClient;
  endpoint: Endpoint;
  objects: ScanObject[];
  /** bound of each `start`, and of each wait for a busy slot; 0 = none */
  scanTimeoutMs: number;
  /** on "Scan already in progress": poll until the slot is free, then start */
  wait: boolean;
  pollMs: number;
  onProgress?: (t: ProgressTick) => void;
  /** true right before `start` is sent, false once the node has answered; left true when no answer came */
  onStartSent?: (inFlight: boolean) => void;
  /** called once per wait for a busy slot */
  onBusy?: (progress: number | null) => void;
}

interface StartResult {
  result: JsonValue;
  startedAt: Date;
  durationMs: number;
}

const isBusy = (e: unknown): e is RpcError =>
  e instanceof RpcError && e.code === -8 && /in progress/i.test(e.rpcMessage);

/**
 * One `scantxoutset start` with all objects, pinned; status is polled on another connection while it
 * runs. Throws ScanBusyError (slot taken, no --wait), TooLargeError (HTTP 413) or the client's errors.
 */
export async function startScan(o: StartOptions): Promise<StartResult> {
  // each round waits for a busy slot to free up; the bound only stops a pathological ping-pong
  for (let attempt = 0; attempt < 10_000; attempt++) {
    const startedAt = new Date();
    const stop = new AbortController();
    const poller = o.onProgress ? pollProgress(o, startedAt, stop.signal) : Promise.resolve();
    let busy: RpcError;
    try {
      o.onStartSent?.(true);
      const params = ["start", o.objects];
      const { result } = await o.client.call("scantxoutset", params, {
        // bounded by --scan-timeout alone (the registry marks `start` long-running)
        ...markedCall(marks(), scanDef().longRunning?.(params), o.scanTimeoutMs),
        pinned: o.endpoint,
        // a large answer from libevent: on a kept-alive connection it may wait 40 ms for a delayed ACK
        fresh: true,
      });
      o.onStartSent?.(false);
      return { result, startedAt, durationMs: Date.now() - startedAt.getTime() };
    } catch (e) {
      // the node answered (an RPC error): no scan of ours runs; without an answer it may be running
      const tooLarge = e instanceof TransportError && /HTTP 413\b/.test(e.message);
      if (!(e instanceof TransportError) || tooLarge) o.onStartSent?.(false);
      if (tooLarge) throw new TooLargeError(e.message, { cause: e });
      if (!isBusy(e)) throw e;
      busy = e;
    } finally {
      stop.abort();
      await poller;
    }
    if (!o.wait)
      throw new ScanBusyError(
        busy.code,
        busy.rpcMessage,
        busy.data,
        busy.endpoint,
        `${busy.endpoint}: a scan is already running on this node (its one scan slot is taken)`,
      );
    await waitForSlot(o);
  }
  throw new TransportError(`${o.endpoint.label}: the scan slot was taken again 10,000 times; giving up`);
}

/** Status on another connection every pollMs while `start` runs; ends as soon as `stop` fires. */
async function pollProgress(o: StartOptions, startedAt: Date, stop: AbortSignal): Promise<void> {
  while (!stop.aborted) {
    await sleep(o.pollMs, stop);
    if (stop.aborted) return;
    try {
      const p = await scanStatus(o.client, o.endpoint);
      if (!stop.aborted) o.onProgress?.({ progress: p, elapsedMs: Date.now() - startedAt.getTime() });
    } catch {
      // progress is best effort; the start call decides the outcome
    }
  }
}

async function waitForSlot(o: StartOptions): Promise<void> {
  const t0 = Date.now();
  let told = false;
  for (let i = 0; i < 1_000_000; i++) {
    if (o.client.opts.signal?.aborted) throw new TransportError("interrupted");
    if (o.scanTimeoutMs && Date.now() - t0 >= o.scanTimeoutMs)
      throw new TransportError(
        `${o.endpoint.label}: the node's scan slot stayed busy for the whole --scan-timeout (${Math.round(o.scanTimeoutMs / 1000)} s); nothing was started`,
      );
    let p: number | null;
    try {
      p = await scanStatus(o.client, o.endpoint);
    } catch {
      p = 0;
    }
    if (p === null) return;
    if (!told) o.onBusy?.(p);
    told = true;
    await sleep(Math.max(o.pollMs, 500));
  }
}
