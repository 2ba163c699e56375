/**
 * The one JSON-RPC 2.0 client every command goes through: envelope, id check, failover and retry.
 *
 * The retry decision lives in {@link classify} and {@link JsonRpcClient.call}, from the method's marks:
 *  - the request provably never reached an upstream (refused, DNS, TLS, connect timeout), or the upstream
 *    refused it before doing anything (401/403, 404 without a JSON-RPC body, node warming up):
 *    the next endpoint is tried, for any method;
 *  - it may have reached it (timeout, reset, 5xx or 429 without a JSON-RPC answer, garbage, wrong id,
 *    rate-limit codes): the next endpoint only for methods marked idempotent, else exit 3;
 *  - a JSON-RPC error every node would repeat (-5, -8, -32602, reverts, ...): final, whatever the HTTP status.
 * Whole passes over the list repeat up to `retries` times with backoff (Retry-After, else exponential
 * with jitter) inside one overall deadline.
 */
import { isUtf8 } from "node:buffer";
import { AuthError, ChaingwError, InterruptedError, RpcError, TransportError } from "../errors/index.js";
import {
  JsonNumber,
  type JsonValue,
  parseLossless,
  rawMember,
  scanObjectArray,
  stringifyLossless,
} from "../json/lossless.js";
import { sleep } from "../util/sleep.js";
import type { Endpoint } from "./endpoint.js";
import { HttpFailure, type HttpOptions, type HttpResult, post, retryAfterMs } from "./http.js";

export interface ClientOptions {
  endpoints: Endpoint[];
  connectTimeoutMs: number;
  requestTimeoutMs: number;
  /** overall deadline for one call, all attempts and waits included (0 = none) */
  deadlineMs: number;
  /** extra passes over the endpoint list after the first @default 2 */
  retries: number;
  maxBodyBytes: number;
  verifyTls: boolean;
  /** calls per second allowed for each heavy method (0 = unlimited) */
  heavyRate: number;
  /** per-method rate overrides (calls per second), e.g. from a profile's per-product limits */
  rateLimits?: Record<string, number>;
  /** a delay after which an idempotent read is also sent to the next endpoint (0 = off) */
  hedgeMs?: number;
  verbose?: (line: string) => void;
  signal?: AbortSignal;
}

export interface CallOptions {
  idempotent: boolean;
  heavy: boolean;
  /** per-attempt timeout override (scans); 0 = none */
  timeoutMs?: number;
  /** overall deadline override (scans); 0 = none */
  deadlineMs?: number;
  /** pin the call to this endpoint: no failover, no retry (scantxoutset start/status/abort) */
  pinned?: Endpoint;
  /** a connection of its own for a large answer (HttpOptions.fresh) */
  fresh?: boolean;
}

/**
 * The options of a call of a registry method: its marks; a long-running one (scantxoutset start, by the
 * registry's `longRunning`) is bounded by the scan timeout alone, not by the request timeout and the
 * overall deadline.
 */
export function markedCall(
  marks: CallOptions,
  long: boolean | undefined,
  scanTimeoutMs: number,
): CallOptions {
  return long ? { ...marks, timeoutMs: scanTimeoutMs, deadlineMs: 0 } : marks;
}

export interface CallResult {
  result: JsonValue;
  /** the exact source text of `result` in the upstream's answer */
  raw: string;
  /** the same as bytes, where the answer's bytes were kept (batch results): copied out, not re-encoded */
  readonly rawBytes?: Uint8Array;
  endpoint: Endpoint;
}

type Outcome =
  | { kind: "ok"; result: JsonValue; raw: string }
  | { kind: "final"; error: ChaingwError }
  | { kind: "refused" | "maybe"; why: string; auth?: boolean; retryAfterMs?: number; timedOut?: boolean };

/** Codes that mean "busy or rate limited": nothing is wrong with the request itself. */
const TRANSIENT_CODES = new Set([-32016, -32007, 429]);
/**
 * -32005 is "limit exceeded" in EIP-1474: providers use it for rate limits, nodes also for deterministic
 * limits of the request itself ("query returned more than 10000 results"), which every node repeats.
 */
const REQUEST_LIMIT = /returned more than|block range|range is too (large|wide)|too large|exceed(s|ed)? max/i;
/** Errors every node would repeat: never moved to another upstream, whatever the HTTP status. */
const DETERMINISTIC_CODES = new Set([-1, -3, -5, -8, -32600, -32601, -32602, 3]);
/** Node-state codes (warming up, shutting down, initial download): refused before any work was done. */
const NOT_READY_CODES = new Set([-28, -9, -10]);

export function classify(http: HttpResult, id: number, ep: Endpoint): Outcome {
  const { status, text } = http;
  const ct = String(http.headers["content-type"] ?? "");
  const ra = retryAfterMs(http.headers["retry-after"]);
  if (status === 401 || status === 403) {
    return {
      kind: "refused",
      auth: true,
      why: `HTTP ${status}: credentials refused${ep.kind === "gateway" ? " (check the API key)" : " (check user/password or the cookie)"}`,
    };
  }
  if (status >= 300 && status < 400) {
    return {
      kind: "refused",
      why: `HTTP ${status} redirect to ${String(http.headers.location ?? "?").slice(0, 80)} not followed`,
    };
  }
  let body: JsonValue;
  try {
    if (text.length === 0) throw new Error("empty body");
    else body = parseLossless(text);
  } catch (e) {
    // bitcoind's overload answer: 503 on current Core, HTTP 500 text/html on Litecoin Core 0.21 (seen here)
    if (/^Work queue depth exceeded/.test(text)) {
      return {
        kind: "maybe",
        why: `node overloaded: work queue depth exceeded (HTTP ${status})`,
        retryAfterMs: ra,
      };
    }
    const what =
      text.length === 0
        ? "an empty body"
        : /^\s*</.test(text)
          ? "an HTML page"
          : (e as Error).message.startsWith("unexpected end")
            ? "a truncated JSON body"
            : (e as Error).message.startsWith("JSON nested deeper")
              ? `a body ${(e as Error).message.replace(/^JSON /, "")}`
              : "a body that is not JSON";
    const why = `HTTP ${status}${ct && !ct.includes("json") ? ` (${ct.split(";")[0]})` : ""} with ${what}`;
    if (status === 404 || status === 405) return { kind: "refused", why: `${why} (wrong URL or product?)` };
    return { kind: "maybe", why, retryAfterMs: ra };
  }
  if (ct && !/json/i.test(ct)) {
    return { kind: "maybe", why: `HTTP ${status} with content type ${ct.split(";")[0]}, not JSON` };
  }
  if (body === null || typeof body !== "object" || Array.isArray(body) || body instanceof JsonNumber) {
    return { kind: "maybe", why: `HTTP ${status}: answer is not a JSON-RPC object` };
  }
  const err = body.error;
  if (err !== undefined && err !== null) return classifyError(err, status, ra, ep);
  if (status === 429) return { kind: "maybe", why: "HTTP 429 too many requests", retryAfterMs: ra };
  if (status >= 400)
    return { kind: "maybe", why: `HTTP ${status} without a JSON-RPC error`, retryAfterMs: ra };
  const gotId = body.id;
  // our ids are numbers: the echo must be the same number token, not a string that looks like it
  if (!(gotId instanceof JsonNumber) || Number(gotId.raw) !== id) {
    return {
      kind: "maybe",
      why: `answer carries id ${gotId === undefined ? "(none)" : gotId instanceof JsonNumber ? gotId.raw : JSON.stringify(gotId)}, expected ${id}`,
    };
  }
  if (!("result" in body)) return { kind: "maybe", why: "answer has neither result nor error" };
  return { kind: "ok", result: body.result, raw: rawMember(text, body, "result") ?? "null" };
}

/** A JSON-RPC `error` object: busy or rate limited, not ready, a hop's own error, or the node's final word. */
function classifyError(
  err: JsonValue,
  status: number,
  ra: number | undefined,
  ep: Endpoint,
): Exclude<Outcome, { kind: "ok" }> {
  const e = err as Record<string, JsonValue>;
  const code = Number(e?.code);
  const message = typeof e?.message === "string" ? e.message : JSON.stringify(err).slice(0, 200);
  const rateLimited =
    status === 429 ||
    TRANSIENT_CODES.has(code) ||
    (code === -32005 && (ra !== undefined || !REQUEST_LIMIT.test(message))) ||
    /rate limit|too many requests/i.test(message);
  if (rateLimited) return { kind: "maybe", why: `rate limited (${code}: ${message})`, retryAfterMs: ra };
  if (NOT_READY_CODES.has(code)) return { kind: "refused", why: `node not ready (${code}: ${message})` };
  // a balancer's own error on 502-504 ("no healthy upstream") is about that hop, not the request
  if (status >= 502 && status <= 504 && !DETERMINISTIC_CODES.has(code)) {
    return { kind: "maybe", why: `HTTP ${status}: ${code}: ${message}`, retryAfterMs: ra };
  }
  return {
    kind: "final",
    error: new RpcError(Number.isFinite(code) ? code : -32603, message, e?.data ?? null, ep.label),
  };
}

let nextId = 1;

export class JsonRpcClient {
  /** failed endpoints go to the back for the rest of the run (one-pass health memory) */
  private order: Endpoint[];
  private nextSlot = new Map<string, number>();

  constructor(readonly opts: ClientOptions) {
    this.order = [...opts.endpoints];
  }

  get endpoints(): readonly Endpoint[] {
    return this.order;
  }

  private demote(ep: Endpoint) {
    const i = this.order.indexOf(ep);
    if (i >= 0 && this.order.length > 1) {
      this.order.splice(i, 1);
      this.order.push(ep);
    }
  }

  /** Client-side rate limit for heavy methods: space calls 1/rate apart. */
  private async throttle(method: string, heavy: boolean) {
    const rate = this.opts.rateLimits?.[method] ?? (heavy ? this.opts.heavyRate : 0);
    if (!rate || rate <= 0) return;
    const now = Date.now();
    const slot = Math.max(now, this.nextSlot.get(method) ?? 0);
    this.nextSlot.set(method, slot + 1000 / rate);
    if (slot > now) {
      this.opts.verbose?.(`${method}: heavy-method limit ${rate}/s, waiting ${slot - now} ms`);
      await sleep(slot - now, this.opts.signal);
    }
  }

  /** HTTP options of one attempt: the request timeout, cut to what is left of the overall deadline */
  httpOpts(timeoutMs: number, deadline: number, fresh?: boolean): HttpOptions {
    const left = deadline ? Math.max(1, deadline - Date.now()) : 0;
    const t = timeoutMs && left ? Math.min(timeoutMs, left) : timeoutMs || left;
    return {
      connectTimeoutMs: this.opts.connectTimeoutMs,
      requestTimeoutMs: t,
      maxBodyBytes: this.opts.maxBodyBytes,
      verifyTls: this.opts.verifyTls,
      signal: this.opts.signal,
      fresh,
    };
  }

  /** One HTTP attempt, classified. */
  async attempt(
    ep: Endpoint,
    body: string,
    id: number,
    timeoutMs: number,
    deadline: number,
    fresh?: boolean,
  ): Promise<Outcome> {
    try {
      const res = await post(ep.url, ep.headers, body, this.httpOpts(timeoutMs, deadline, fresh));
      return classify(res, id, ep);
    } catch (e) {
      if (e instanceof HttpFailure)
        return { kind: e.phase === "unsent" ? "refused" : "maybe", why: e.message, timedOut: e.timedOut };
      throw e;
    }
  }

  /**
   * An idempotent read hedged across two endpoints: if `a` has not answered after `hedgeMs`, `b` is
   * asked too and the first definitive answer wins. Without a hedge, just `a`.
   */
  private async step(
    a: Endpoint,
    b: Endpoint | undefined,
    hedgeMs: number,
    req: { method: string; body: string; id: number; timeoutMs: number; deadline: number; fresh?: boolean },
  ): Promise<{ ep: Endpoint; out: Outcome; ms: number }[]> {
    const t0 = Date.now();
    const run = (ep: Endpoint) =>
      this.attempt(ep, req.body, req.id, req.timeoutMs, req.deadline, req.fresh).then((out) => ({
        ep,
        out,
        ms: Date.now() - t0,
      }));
    const pa = run(a);
    if (!b || hedgeMs <= 0) return [await pa];
    let timer: NodeJS.Timeout | undefined;
    const early = await Promise.race([
      pa,
      new Promise<null>((r) => (timer = setTimeout(() => r(null), hedgeMs))),
    ]);
    clearTimeout(timer);
    if (early) return [early];
    this.opts.verbose?.(`${req.method} → ${a.label}: no answer after ${hedgeMs} ms; hedging to ${b.label}`);
    const pb = run(b);
    const done: { ep: Endpoint; out: Outcome; ms: number }[] = [];
    return new Promise((resolve) => {
      for (const [i, p] of [pa, pb].entries()) {
        p.catch((e: unknown): { ep: Endpoint; out: Outcome; ms: number } => ({
          ep: i === 0 ? a : b,
          out: { kind: "maybe", why: String((e as Error)?.message ?? e) },
          ms: Date.now() - t0,
        })).then((r) => {
          done.push(r);
          if (r.out.kind === "ok" || r.out.kind === "final" || done.length === 2) resolve([...done]);
        });
      }
    });
  }

  async call(method: string, params: unknown[], co: CallOptions): Promise<CallResult> {
    const o = this.opts;
    const id = nextId++;
    const body = stringifyLossless({ jsonrpc: "2.0", id, method, params });
    // the overall deadline starts once the heavy-method limiter lets the call go
    await this.throttle(method, co.heavy);
    const deadlineMs = co.deadlineMs ?? o.deadlineMs;
    const deadline = deadlineMs > 0 ? Date.now() + deadlineMs : 0;
    const timeoutMs = co.timeoutMs ?? o.requestTimeoutMs;
    const req = { method, body, id, timeoutMs, deadline, fresh: co.fresh };
    const failures: string[] = [];
    let allAuth = true;
    let retryAfter: number | undefined;
    let list = co.pinned ? [co.pinned] : this.order.slice();
    /** endpoints that refused our credentials: asking again in a later pass cannot help */
    const refusedAuth = new Set<Endpoint>();
    const passes = co.pinned ? 1 : o.retries + 1;
    const hedgeMs = co.idempotent && !co.pinned ? (o.hedgeMs ?? 0) : 0;

    for (let pass = 0; pass < passes; pass++) {
      for (let i = 0; i < list.length; i++) {
        if (o.signal?.aborted) throw new InterruptedError("interrupted");
        if (deadline && Date.now() >= deadline) break;
        const results = await this.step(list[i], list[i + 1], hedgeMs, req);
        if (results.length === 2) i++; // the hedge used the next endpoint too
        const win = results.find((r) => r.out.kind === "ok" || r.out.kind === "final");
        for (const { ep, out, ms } of results) {
          if (out.kind === "ok" || out.kind === "final") continue;
          if (out.auth) refusedAuth.add(ep);
          else allAuth = false;
          failures.push(`${ep.label}: ${out.why}`);
          retryAfter = out.retryAfterMs ?? retryAfter;
          if (!co.pinned) this.demote(ep);
          const moveOn = out.kind === "refused" || co.idempotent;
          o.verbose?.(
            `${method} → ${ep.label}: ${out.why} after ${ms} ms${moveOn ? (i + 1 < list.length ? "; trying the next endpoint" : "") : "; not retried"}`,
          );
          if (!moveOn) {
            const e = new TransportError(
              `${ep.label}: ${out.why}; ${method} is not marked idempotent, so it was not retried on another upstream`,
            );
            e.timedOut = out.timedOut === true;
            throw e;
          }
        }
        if (win?.out.kind === "ok") {
          o.verbose?.(`${method} → ${win.ep.label}: ok in ${win.ms} ms${pass ? ` (pass ${pass + 1})` : ""}`);
          return { result: win.out.result, raw: win.out.raw, endpoint: win.ep };
        }
        if (win?.out.kind === "final") {
          o.verbose?.(`${method} → ${win.ep.label}: node error in ${win.ms} ms (final, not retried)`);
          throw win.out.error;
        }
      }
      list = list.filter((ep) => !refusedAuth.has(ep));
      if (list.length === 0) break;
      if (pass + 1 < passes) {
        const backoff = retryAfter ?? Math.min(250 * 2 ** pass, 4000) * (0.5 + Math.random() / 2);
        if (deadline && Date.now() + backoff >= deadline) break;
        o.verbose?.(
          `${method}: pass ${pass + 1} failed on every endpoint; waiting ${Math.round(backoff)} ms`,
        );
        await sleep(backoff, o.signal);
        retryAfter = undefined;
      }
    }
    const distinct = [...new Set(failures)];
    const detail = distinct.length
      ? distinct.slice(-3).join("; ")
      : "overall deadline reached before any attempt";
    if (failures.length && allAuth) throw new AuthError(`authentication refused: ${detail}`);
    const what = list.length > 1 ? `no endpoint could answer ${method}` : `${method} failed`;
    throw new TransportError(
      `${what}: ${detail}${deadline && Date.now() >= deadline ? " (overall --timeout reached)" : ""}`,
    );
  }
}

export interface BatchEntry {
  method: string;
  params: unknown[];
  marks: { idempotent: boolean; heavy: boolean };
  /** params hold plain JS values only (no JsonNumber): the native JSON.stringify is enough */
  plain?: boolean;
  /** runs for minutes (scantxoutset start): --scan-timeout, no overall deadline (MethodDef.longRunning) */
  long?: boolean;
}

/** One entry's outcome: a result, or the error it ended with. */
export type BatchOutcome = CallResult | ChaingwError;

/**
 * Sends entries as one JSON-RPC batch array to the first endpoint in health order. Entries whose batch
 * failed in transport, or which the upstream answered with a transient error, go through {@link
 * JsonRpcClient.call} one by one — which applies the same marks-based rules as any call. An upstream that
 * does not take batches (answers with an object, or 4xx) is remembered, and later batches go singly.
 */
export async function callBatch(
  client: JsonRpcClient,
  entries: BatchEntry[],
  opts: { fresh?: boolean } = {},
): Promise<BatchOutcome[]> {
  const single = (e: BatchEntry) =>
    client.call(e.method, e.params, e.marks).catch((err: unknown) => toError(err));
  /** An entry whose array failed: sent on its own when that cannot run it twice, else why not. */
  const again = (e: BatchEntry, cannotHaveRun: boolean, why: string): BatchOutcome | Promise<BatchOutcome> =>
    cannotHaveRun || e.marks.idempotent
      ? single(e)
      : new TransportError(`${why}; ${e.method} is not marked idempotent, so it was not retried`);
  const ep = client.endpoints[0];
  if (entries.length === 1 || noBatch.has(ep.url)) return Promise.all(entries.map(single));
  const ids = entries.map(() => nextId++);
  const body = `[${entries
    .map((e, i) => {
      const env = { jsonrpc: "2.0", id: ids[i], method: e.method, params: e.params };
      return e.plain ? JSON.stringify(env) : stringifyLossless(env);
    })
    .join(",")}]`;
  const o = client.opts;
  let http: HttpResult;
  try {
    http = await post(ep.url, ep.headers, body, client.httpOpts(o.requestTimeoutMs, 0, opts.fresh));
  } catch (err) {
    if (!(err instanceof HttpFailure)) throw err;
    o.verbose?.(`batch of ${entries.length} → ${ep.label}: ${err.message}; sending entries singly`);
    // may have reached the node: only idempotent entries may be sent again
    return Promise.all(entries.map((e) => again(e, err.phase === "unsent", `${ep.label}: ${err.message}`)));
  }
  // The answer is scanned as latin1 text, one character per byte, so every span found is also a byte span
  // of the body: results are then copied out of the bytes as they came (no decode and re-encode of
  // megabytes). Only a body that is valid UTF-8 is taken this way; others are decoded (U+FFFD) first.
  const bytes = http.bytes && isUtf8(http.bytes) ? http.bytes : Buffer.from(http.text, "utf8");
  const text = bytes.toString("latin1");
  let elements: Record<string, [number, number]>[] | undefined;
  try {
    elements = scanObjectArray(text);
  } catch {
    elements = undefined;
  }
  if (!elements) {
    if (http.status === 401 || http.status === 403) return Promise.all(entries.map(single));
    // Proof that the array was not run: an object refusing it (a JSON-RPC error instead of an array), or a
    // status a server sends before doing any work. An unreadable 200 or a 5xx may have run it: only
    // idempotent entries are sent again.
    let refusedObject = false;
    try {
      const v = parseLossless(http.text);
      refusedObject =
        v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof JsonNumber) && !!v.error;
    } catch {}
    const notRun = refusedObject || [400, 404, 405, 413, 429].includes(http.status);
    if (notRun) {
      noBatch.add(ep.url);
      o.verbose?.(`batch → ${ep.label}: HTTP ${http.status}, batch refused; sending singly from now on`);
    } else {
      o.verbose?.(
        `batch → ${ep.label}: HTTP ${http.status}, unreadable batch answer; re-sending idempotent entries only`,
      );
    }
    return Promise.all(
      entries.map((e) => again(e, notRun, `${ep.label}: batch answered HTTP ${http.status} unreadably`)),
    );
  }
  /** a span as text: ids and error objects (an error message may hold any UTF-8) */
  const slice = (s: [number, number] | undefined) => (s ? bytes.toString("utf8", s[0], s[1]) : undefined);
  const idOf = (el: Record<string, [number, number]> | undefined) => {
    const s = el?.id;
    return s && text.slice(s[0], s[1]);
  };
  // answers usually come in request order; a map only for those that do not
  let byId: Map<string, Record<string, [number, number]>> | undefined;
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
    let out: Exclude<Outcome, { kind: "ok" }> = { kind: "maybe", why: "answer has neither result nor error" };
    if (errText !== undefined && errText !== "null") {
      let err: JsonValue;
      try {
        err = parseLossless(errText);
      } catch {
        return again(e, false, `${ep.label}: batch entry ${ids[i]} carries an unreadable error`);
      }
      out = classifyError(err, 200, undefined, ep);
    }
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

const noBatch = new Set<string>();

function toError(err: unknown): ChaingwError {
  if (err instanceof ChaingwError) return err;
  return new TransportError(String((err as Error)?.message ?? err));
}
