/**
 * JSON-RPC batch arrays, on the same failover path as single calls ({@link JsonRpcClient.exchange}): an
 * array whose entries are all idempotent may move to the next endpoint after any failure; one holding a
 * non-idempotent entry only when the array provably never arrived. Entries the upstream answered with a
 * transient error go again on their own, through the same rules. An upstream that does not take batches
 * (answers with an object, or 4xx) is remembered, and later arrays to it go singly.
 */
import { isUtf8 } from "node:buffer";
import { ChaingwError, TransportError } from "../errors/index.js";
import {
  JsonNumber,
  type JsonValue,
  parseLossless,
  scanObjectArray,
  stringifyLossless,
} from "../json/lossless.js";
import { classifyError, type Outcome, refusedOutright } from "./classify.js";
import type { BatchEntry, CallResult, JsonRpcClient } from "./client.js";
import type { Endpoint } from "./endpoint.js";
import type { HttpResult } from "./http.js";

/** One entry's outcome: a result, or the error it ended with. */
export type BatchOutcome = CallResult | ChaingwError;

type Spans = Record<string, [number, number]>;

/** What an array's answer was: the entries' spans, or a refusal of batches as such. */
type ArrayAnswer =
  | { elements: Spans[]; bytes: Buffer; text: string }
  | { refusedBatch: true; status: number; endpoint: Endpoint };

/**
 * The array answer scanned as latin1 text, one character per byte, so every span found is also a byte
 * span of the body: results are then copied out of the bytes as they came (no decode and re-encode of
 * megabytes). Only a body that is valid UTF-8 is taken this way; others are decoded (U+FFFD) first.
 */
function interpretArray(http: HttpResult, ep: Endpoint): Outcome<ArrayAnswer> {
  const outright = refusedOutright(http, ep);
  if (outright) return outright;
  const bytes = http.bytes && isUtf8(http.bytes) ? http.bytes : Buffer.from(http.text, "utf8");
  const text = bytes.toString("latin1");
  let elements: Spans[] | undefined;
  try {
    elements = scanObjectArray(text);
  } catch {
    elements = undefined;
  }
  if (elements) return { kind: "ok", value: { elements, bytes, text } };
  // Proof that the array was not run: an object refusing it (a JSON-RPC error instead of an array), or a
  // status a server sends before doing any work. An unreadable 200 or a 5xx may have run it.
  let refusedObject = false;
  try {
    const v = parseLossless(http.text);
    refusedObject =
      v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof JsonNumber) && !!v.error;
  } catch {}
  if (refusedObject || [400, 404, 405, 413, 429].includes(http.status))
    return { kind: "ok", value: { refusedBatch: true, status: http.status, endpoint: ep } };
  return { kind: "maybe", why: `batch answered HTTP ${http.status} unreadably` };
}

export async function callBatch(
  client: JsonRpcClient,
  entries: BatchEntry[],
  opts: { fresh?: boolean } = {},
): Promise<BatchOutcome[]> {
  const single = (e: BatchEntry) =>
    client
      .call(e.method, e.params, {
        ...e.marks,
        ...(e.read ? { read: true } : {}),
        ...(e.writes ? { writes: true } : {}),
      })
      .catch((err: unknown) => asError(err));
  const first = client.endpoints[0];
  if (entries.length === 1 || client.noBatch.has(first.url)) return Promise.all(entries.map(single));
  const ids = entries.map(() => client.newId());
  const body = `[${entries
    .map((e, i) => {
      const env = { jsonrpc: "2.0", id: ids[i], method: e.method, params: e.params };
      return e.plain ? JSON.stringify(env) : stringifyLossless(env);
    })
    .join(",")}]`;
  const idempotent = entries.every((e) => e.marks.idempotent);
  // an array of reads only goes again on a new connection after a kept-alive one closed under it
  const read = entries.every((e) => e.read || e.marks.idempotent);
  let answer: ArrayAnswer;
  let ep: Endpoint;
  try {
    const r = await client.exchange({
      label: `batch of ${entries.length}`,
      body,
      co: {
        idempotent,
        heavy: false,
        read,
        fresh: opts.fresh,
        timeoutMs: client.opts.requestTimeoutMs,
        deadlineMs: 0,
      },
      interpret: interpretArray,
    });
    answer = r.value;
    ep = r.endpoint;
  } catch (err) {
    const e = asError(err);
    // an array with non-idempotent entries stopped after a failure that may have reached the node: its
    // idempotent entries may still go on their own, on the same rules
    if (e instanceof TransportError && !idempotent && !e.neverSent)
      return Promise.all(entries.map((x) => (x.marks.idempotent ? single(x) : e)));
    return entries.map(() => e);
  }
  if ("refusedBatch" in answer) {
    client.noBatch.add(answer.endpoint.url);
    client.opts.verbose?.(
      `batch → ${answer.endpoint.label}: HTTP ${answer.status}, batch refused; sending singly from now on`,
    );
    return Promise.all(entries.map(single));
  }
  return settle(answer, ep, entries, ids, single);
}

/**
 * Each entry's outcome from the array's answer: its result's span, its error classified as a single
 * answer's, or the entry sent again on its own (`single`) where that cannot run it twice.
 */
function settle(
  answer: Exclude<ArrayAnswer, { refusedBatch: true }>,
  ep: Endpoint,
  entries: BatchEntry[],
  ids: (string | number)[],
  single: (e: BatchEntry) => Promise<BatchOutcome>,
): BatchOutcome[] | Promise<BatchOutcome[]> {
  const { elements, bytes, text } = answer;
  /** a span as text: ids and error objects (an error message may hold any UTF-8) */
  const slice = (s: [number, number] | undefined) => (s ? bytes.toString("utf8", s[0], s[1]) : undefined);
  const idOf = (el: Spans | undefined) => {
    const s = el?.id;
    return s && text.slice(s[0], s[1]);
  };
  // answers usually come in request order; a map only for those that do not
  let byId: Map<string, Spans> | undefined;
  const find = (i: number) => {
    const want = String(ids[i]);
    const el = elements[i];
    if (idOf(el) === want) return el;
    if (!byId) {
      byId = new Map();
      for (const x of elements) {
        const id = idOf(x);
        if (id) byId.set(id, x);
      }
    }
    return byId.get(want);
  };
  /** An entry the array did not settle: sent on its own when that cannot run it twice, else why not. */
  const again = (e: BatchEntry, cannotHaveRun: boolean, why: string): BatchOutcome | Promise<BatchOutcome> =>
    cannotHaveRun || e.marks.idempotent
      ? single(e)
      : new TransportError(`${why}; ${e.method} is not marked idempotent, so it was not retried`);
  const outcomes = entries.map((e, i): BatchOutcome | Promise<BatchOutcome> => {
    const el = find(i);
    if (el === undefined)
      return e.marks.idempotent
        ? single(e)
        : new TransportError(`${ep.label}: batch answer lacks id ${ids[i]}`);
    const errText = slice(el.error);
    const span = el.result;
    if (span !== undefined && (errText === undefined || errText === "null"))
      return new BatchResult(bytes, span[0], span[1], ep);
    // an error, classified as in a single answer (or an answer with neither)
    if (errText === undefined || errText === "null")
      return again(e, false, `${ep.label}: answer has neither result nor error`);
    let err: JsonValue;
    try {
      err = parseLossless(errText);
    } catch {
      return again(e, false, `${ep.label}: batch entry ${ids[i]} carries an unreadable error`);
    }
    const out = classifyError(err, 200, undefined, ep);
    if (out.kind === "final") return out.error;
    return again(e, out.kind === "refused", `${ep.label}: ${out.why}`);
  });
  // no promise to wait for unless some entry went out again on its own
  return outcomes.some((o) => o instanceof Promise) ? Promise.all(outcomes) : (outcomes as BatchOutcome[]);
}

/** A batch entry's result: a span of the answer's bytes, decoded and parsed only if someone reads them. */
class BatchResult implements CallResult {
  private parsed?: JsonValue;
  private text?: string;
  constructor(
    private readonly body: Buffer,
    private readonly start: number,
    private readonly end: number,
    readonly endpoint: Endpoint,
  ) {}
  get raw(): string {
    this.text ??= this.body.toString("utf8", this.start, this.end);
    return this.text;
  }
  get rawBytes(): Buffer {
    return this.body.subarray(this.start, this.end);
  }
  get result(): JsonValue {
    if (this.parsed === undefined) this.parsed = parseLossless(this.raw);
    return this.parsed;
  }
}

function asError(err: unknown): ChaingwError {
  if (err instanceof ChaingwError) return err;
  return new TransportError(String((err as Error)?.message ?? err));
}

/**
 * Many entries in arrays of `size` (default 250), `inFlight` arrays at a time (default 1), outcomes in entry
 * order: the one chunking of the workflows that read many things (reserves verify's transactions and blocks,
 * the EVM balances' state reads). `onProgress` after each array; `signal` stops before the next one.
 */
export async function callChunked(
  client: JsonRpcClient,
  entries: BatchEntry[],
  o: {
    size?: number;
    inFlight?: number;
    fresh?: boolean;
    onProgress?: (done: number, total: number) => void;
    signal?: AbortSignal;
  } = {},
): Promise<BatchOutcome[]> {
  const size = o.size ?? 250;
  const out: BatchOutcome[] = new Array(entries.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < entries.length) {
      o.signal?.throwIfAborted();
      const start = next;
      next += size;
      const slice = entries.slice(start, start + size);
      const res = await callBatch(client, slice, { fresh: o.fresh });
      for (let i = 0; i < res.length; i++) out[start + i] = res[i] as BatchOutcome;
      done += slice.length;
      o.onProgress?.(done, entries.length);
    }
  };
  const workers = Math.min(o.inFlight ?? 1, Math.ceil(entries.length / size));
  await Promise.all(Array.from({ length: workers }, worker));
  return out;
}
