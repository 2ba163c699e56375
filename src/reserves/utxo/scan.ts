/**
 * The scantxoutset control workflow: start (never retried, never failed over), status polls while it
 * runs, abort with confirmation. Every call is pinned to one endpoint: the node keeps one scan slot,
 * and status/abort must reach the node that runs the scan. Nothing here prints; callers get callbacks.
 */

import { InterruptedError, RpcError, TransportError } from "../../errors/index.js";
import type { JsonObject, JsonValue } from "../../json/lossless.js";
import { numberOf } from "../../json/lossless.js";
import { findMethod } from "../../methods/index.js";
import { prepare, send } from "../../methods/prepare.js";
import type { JsonRpcClient } from "../../rpc/client.js";
import type { Endpoint } from "../../rpc/endpoint.js";
import { sleep } from "../../util/sleep.js";
import type { ScanObject } from "./input.js";

/** The registry's definition of scantxoutset: the single source of its marks and of what runs long. */
const scanDef = () => findMethod("scantxoutset", "utxo");

/** What `status` says: a scan runs (with the node's percentage), or none does. */
export interface ScanState {
  running: boolean;
  /** the node's percentage while a scan runs; null when none runs */
  progress: number | null;
}

/** `status`: the node's progress while a scan runs; not running when it answers null. */
export async function scanStatus(client: JsonRpcClient, ep: Endpoint): Promise<ScanState> {
  const { result } = await client.call("scantxoutset", ["status"], { ...scanDef().marks, pinned: ep });
  if (result === null) return { running: false, progress: null };
  const p = (result as JsonObject)?.progress;
  return { running: true, progress: numberOf(p) ?? 0 };
}

/** `abort`: true when a scan was running and was told to stop. */
async function scanAbort(client: JsonRpcClient, ep: Endpoint): Promise<boolean> {
  const { result } = await client.call("scantxoutset", ["abort"], {
    ...scanDef().marks,
    writes: true,
    pinned: ep,
  });
  return result === true;
}

export interface AbortOutcome {
  /** the first abort's answer: was a scan running */
  wasRunning: boolean;
  /** aborts sent (a second only when the node showed that it ignored the first) */
  aborts: number;
  /** the node's state at the end: false = it reports no scan; true = still scanning; null = no answer */
  nodeScanning: boolean | null;
  /** our own scan's `start` answer, when it came: "success: false" (aborted) or "success: true" */
  startAnswer?: string;
  /** one sentence, from the node's answers only */
  statement: string;
  waitedMs: number;
}

export interface AbortOptions {
  /** our own scan's `start` call, still out: its answer is the node's word on the abort */
  start?: Promise<unknown>;
  /** status poll interval @default 250 */
  pollMs?: number;
  /** called with the number of aborts sent so far, each time one goes out */
  onAbortSent?: (n: number) => void;
  /**
   * While the node's progress figure has not moved (it is still expanding descriptors, when Core 0.21
   * ignores an abort and then scans to the end), wait at most this long instead of the whole bound.
   */
  preparingBoundMs?: number;
}

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? "" : "s"}`;

/**
 * Sends `abort` and finds out, from the node, what happened. For our own scan (`start` given: the call
 * still out) the truth is `start`'s answer (`success: false` when the abort took). For another client's
 * scan it is `status`: chaingw says whether the node still scans, never that the scan was aborted.
 * Core 0.21 ignores an abort that lands while it prepares a scan (descriptor expansion), then resets its
 * progress and scans to the end: when `status` shows the progress move after the abort, the abort was
 * lost and is sent once more.
 */
export async function abortAndConfirm(
  client: JsonRpcClient,
  ep: Endpoint,
  boundMs: number,
  o: AbortOptions = {},
): Promise<AbortOutcome> {
  const { start, pollMs = 250, onAbortSent, preparingBoundMs } = o;
  // counted before the answer: if the user quits while it is out, it was still sent
  onAbortSent?.(1);
  const s: AbortState = {
    t0: Date.now(),
    own: start !== undefined,
    aborts: 1,
    moved: false,
    wasRunning: false,
  };
  s.wasRunning = await scanAbort(client, ep);
  const answered = watchStart(start);
  let seen: number | null | undefined;
  let last: ScanState | undefined;
  // the short bound holds while the scan is being prepared; once the pass moves, the abort can take
  const bound = () =>
    s.moved || preparingBoundMs === undefined ? boundMs : Math.min(boundMs, preparingBoundMs);
  for (let i = 0; waitedMs(s) < bound() && i < 100_000; i++) {
    if (answered()) return fromStart(s, answered()!);
    try {
      last = await scanStatus(client, ep);
    } catch {
      last = undefined; // no answer: unknown, keep asking within the bound
    }
    // the scan's answer may have come while status was out (status waits for the heavy-rate slot)
    if (answered()) return fromStart(s, answered()!);
    if (last && !last.running) {
      // our own scan's answer usually follows at once: a second's grace before saying it did not come
      if (start) {
        const settled = start.then(
          () => {},
          () => {},
        );
        await Promise.race([settled, sleep(1000)]);
        if (answered()) return fromStart(s, answered()!);
      }
      return noScanNow(s);
    }
    if (last?.running) {
      if (seen === undefined) seen = last.progress;
      else if (last.progress !== seen && !s.moved) {
        s.moved = true;
        if (s.aborts < 2) {
          s.aborts++;
          onAbortSent?.(s.aborts);
          await scanAbort(client, ep).catch(() => false);
        }
      }
    }
    await sleep(pollMs);
  }
  return notConfirmed(s, last, !s.moved && preparingBoundMs !== undefined && preparingBoundMs < boundMs);
}

/** What an abort has found so far: whether a scan ran, aborts sent, whether the pass moved after one. */
interface AbortState {
  t0: number;
  /** our own scan (its `start` call still out) */
  own: boolean;
  wasRunning: boolean;
  aborts: number;
  moved: boolean;
}
const waitedMs = (s: AbortState) => Date.now() - s.t0;
const secs = (s: AbortState) => `${(waitedMs(s) / 1000).toFixed(1)} s`;

/**
 * `start`'s answer once it has come ("success: true" / "success: false"; a failed call settles with no
 * answer), read through a function: the callbacks set it while the abort's loop awaits.
 */
function watchStart(start: Promise<unknown> | undefined): () => string | undefined {
  let answer: string | undefined;
  start?.then(
    (r) => {
      const ok = (r as { result?: JsonValue } | undefined)?.result;
      const success = ok && typeof ok === "object" && !Array.isArray(ok) && (ok as JsonObject).success;
      answer = `success: ${success === true}`;
    },
    () => {},
  );
  return () => answer;
}

/** Our own scan answered: `success: false` when the abort took. */
function fromStart(s: AbortState, answer: string): AbortOutcome {
  const sent = plural(s.aborts, "abort");
  return {
    wasRunning: s.wasRunning,
    aborts: s.aborts,
    nodeScanning: false,
    startAnswer: answer,
    waitedMs: waitedMs(s),
    statement:
      answer === "success: false"
        ? `scan aborted; the node reports no scan running (the scan answered success: false after ${secs(s)}; ${sent} sent)`
        : `the scan completed before the abort took effect (it answered success: true after ${secs(s)}; ${sent} sent); nothing is reported`,
  };
}

/** The node reports no scan running (and our own scan's answer, if any, did not come). */
function noScanNow(s: AbortState): AbortOutcome {
  const sent = plural(s.aborts, "abort");
  return {
    wasRunning: s.wasRunning,
    aborts: s.aborts,
    nodeScanning: false,
    waitedMs: waitedMs(s),
    statement: !s.wasRunning
      ? s.own
        ? "no scan was running when the abort arrived (the node's answer to abort); the node reports no scan running, and the scan's own answer did not come back"
        : "no scan was running (the node's answer to abort)"
      : s.moved
        ? `the scan kept running after the abort and has now ended (${sent} sent; Core 0.21 ignores an abort while it prepares a scan); only the client that started it knows whether it completed`
        : s.own
          ? `the node reports no scan running (after ${secs(s)}; ${sent} sent); the scan's own answer did not come back, so whether it stopped early or completed is not known`
          : `abort sent; the node now reports no scan running (after ${secs(s)}); whether the scan stopped early or completed, only the client that started it can tell`,
  };
}

/** The bound ran out: the node still scans, or did not answer, or is still preparing its pass. */
function notConfirmed(s: AbortState, last: ScanState | undefined, preparing: boolean): AbortOutcome {
  const still = last?.running === true;
  return {
    wasRunning: s.wasRunning,
    aborts: s.aborts,
    nodeScanning: last ? still : null,
    waitedMs: waitedMs(s),
    statement: preparing
      ? `abort sent; after ${secs(s)} the node ${still ? "still reports a scan" : "has not answered"} and has not begun its pass (it is expanding descriptors): Core 0.21 ignores an abort while it prepares a scan, so it may scan to the end; check with: chaingw reserves status`
      : last
        ? still
          ? `abort sent ${plural(s.aborts, "time")}, but the node still reports a scan (${last.progress}%) after ${secs(s)}; check with: chaingw reserves status`
          : `abort sent; the node reports no scan running, but the scan's own answer did not come within ${secs(s)}`
        : `abort sent, but the node did not answer status within ${secs(s)}; check with: chaingw reserves status`,
  };
}

/** The node's one scan slot is taken (-8 "Scan already in progress"). */
export class ScanBusyError extends RpcError {}

/**
 * `start` cut off by --scan-timeout (`e` timed out): the node is still scanning for nobody, its one scan
 * slot taken. `abort` is sent and the node's word awaited (abortAndConfirm, within `abortWaitMs`); `e`
 * is reworded to say so. False, nothing sent, for any other failure. `reserves scan` and an exchange's
 * address file (exchange/ownership/balances.ts) both end a timed-out scan here.
 */
export async function abortTimedOut(
  control: JsonRpcClient,
  ep: Endpoint,
  e: TransportError,
  o: { scanTimeoutMs: number; abortWaitMs: number },
): Promise<boolean> {
  if (!(o.scanTimeoutMs > 0 && e.timedOut)) return false;
  e.message = `${ep.label}: the scan did not finish within --scan-timeout (${o.scanTimeoutMs / 1000} s); nothing was proven`;
  try {
    const a = await abortAndConfirm(control, ep, o.abortWaitMs);
    e.details = [`${ep.label}: ${a.statement}`];
    e.hint =
      a.nodeScanning === false
        ? "Raise --scan-timeout (0 = none) and run again."
        : "check with: chaingw reserves status";
    e.facts = { aborts_sent: a.aborts, node_scanning: a.nodeScanning };
  } catch {
    e.hint = "the node did not answer abort; check with: chaingw reserves status";
  }
  return true;
}

/** The node or a gateway refused the request's size (HTTP 413): the caller may split the objects. */
export class TooLargeError extends TransportError {}

export interface StartOptions {
  client: JsonRpcClient;
  endpoint: Endpoint;
  objects: ScanObject[];
  /** bound of each `start`, and of each wait for a busy slot; 0 = none */
  scanTimeoutMs: number;
  /** on "Scan already in progress": poll until the slot is free, then start */
  wait: boolean;
  pollMs: number;
  onProgress?: (state: ScanState, elapsedMs: number) => void;
  /** the `start` call right after it is sent; undefined once the node has answered (left set when no answer came) */
  onStartSent?: (start: Promise<unknown> | undefined) => void;
  /** the run's interrupt: stops waiting for a busy slot */
  signal?: AbortSignal;
  /** called once per wait for a busy slot */
  onBusy?: (progress: number | null) => void;
}

interface StartResult {
  result: JsonValue;
  startedAt: Date;
  durationMs: number;
}

/** A gateway's JSON-RPC refusal of the request's size (the node itself answers HTTP 413 or nothing). */
const TOO_LARGE = /(request|body|payload|entity)[^.]{0,20}too (large|big)|too many (scan ?)?objects/i;

const isBusy = (e: unknown): e is RpcError =>
  e instanceof RpcError && e.code === -8 && /in progress/i.test(e.rpcMessage);

/** The node has no scantxoutset (Bitcoin Core 0.17's; Dogecoin Core 1.14 lacks it): said, with what to do. */
function noScan(e: RpcError): RpcError {
  const said = new RpcError(
    e.code,
    e.rpcMessage,
    e.data,
    e.endpoint,
    `${e.endpoint}: the node has no scantxoutset ("${e.rpcMessage}", ${e.code}): it cannot scan the UTXO set; no scan was started`,
  );
  said.hint =
    "reserves scan needs a node with scantxoutset (Bitcoin Core 0.17 or later, Litecoin Core 0.21); reserves verify checks a proof on a node without it";
  return said;
}

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
      // bounded by --scan-timeout alone (the registry marks `start` long-running)
      const req = prepare(scanDef(), { params: ["start", o.objects] });
      // not tied to the interrupt: after Ctrl-C, this call's answer is the node's word on the abort
      const call = send(o.client.withoutSignal(), req, {
        scanTimeoutMs: o.scanTimeoutMs,
        // a large answer from libevent: on a kept-alive connection it may wait 40 ms for a delayed ACK
        call: { pinned: o.endpoint, fresh: true },
      });
      // its failure is read where it matters (here, or by the abort after an interrupt)
      call.catch(() => {});
      o.onStartSent?.(call);
      const { result } = await untilAborted(call, o.signal);
      o.onStartSent?.(undefined);
      return { result, startedAt, durationMs: Date.now() - startedAt.getTime() };
    } catch (e) {
      // the node answered (an RPC error): no scan of ours runs; without an answer it may be running
      const tooLarge =
        (e instanceof TransportError && /HTTP 413\b/.test(e.message)) ||
        (e instanceof RpcError && TOO_LARGE.test(e.rpcMessage));
      const mayRun = e instanceof TransportError || e instanceof InterruptedError;
      if (!mayRun || tooLarge) o.onStartSent?.(undefined);
      if (tooLarge) throw new TooLargeError(e.message, { cause: e });
      if (e instanceof RpcError && e.code === -32601) throw noScan(e);
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

/** `work`, or an InterruptedError as soon as `signal` aborts (the work itself goes on). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(new InterruptedError("interrupted"));
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new InterruptedError("interrupted"));
    signal.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener("abort", onAbort));
}

/** Status on another connection every pollMs while `start` runs; ends as soon as `stop` fires. */
async function pollProgress(o: StartOptions, startedAt: Date, stop: AbortSignal): Promise<void> {
  while (!stop.aborted) {
    await sleep(o.pollMs, stop);
    if (stop.aborted) return;
    try {
      const st = await scanStatus(o.client, o.endpoint);
      if (!stop.aborted) o.onProgress?.(st, Date.now() - startedAt.getTime());
    } catch {
      // progress is best effort; the start call decides the outcome
    }
  }
}

async function waitForSlot(o: StartOptions): Promise<void> {
  const t0 = Date.now();
  let told = false;
  for (let i = 0; i < 1_000_000; i++) {
    if (o.signal?.aborted || o.client.opts.signal?.aborted) throw new InterruptedError("interrupted");
    if (o.scanTimeoutMs && Date.now() - t0 >= o.scanTimeoutMs)
      throw new TransportError(
        `${o.endpoint.label}: the node's scan slot stayed busy for the whole --scan-timeout (${Math.round(o.scanTimeoutMs / 1000)} s); nothing was started`,
      );
    let st: ScanState;
    try {
      st = await scanStatus(o.client, o.endpoint);
    } catch {
      st = { running: true, progress: null };
    }
    if (!st.running) return;
    if (!told) o.onBusy?.(st.progress);
    told = true;
    await sleep(Math.max(o.pollMs, 500), o.signal);
  }
}
