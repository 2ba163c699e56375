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
import { AuthError, InterruptedError, TransportError } from "../errors/index.js";
import { type JsonValue, stringifyLossless } from "../json/lossless.js";
import { sleep } from "../util/sleep.js";
import { classify, type Failure, type Outcome } from "./classify.js";
import type { Endpoint } from "./endpoint.js";
import { CLI_WORDS, FailureTally, type FrontWords } from "./failures.js";
import { hedged } from "./hedge.js";
import { HttpFailure, type HttpOptions, type HttpResult, Transport } from "./http.js";

export { classify } from "./classify.js";
// the words and the exhausted error live with the failure tally (failures.ts); their old path still works
export { CLI_WORDS, exhausted, type FrontWords } from "./failures.js";

export interface ClientOptions {
  endpoints: Endpoint[];
  connectTimeoutMs: number;
  requestTimeoutMs: number;
  /**
   * per-attempt timeout of slow methods (CallOptions.slow: gettxoutsetinfo walks the whole UTXO set, minutes
   * on mainnet);
   * their overall deadline is at least as long @default requestTimeoutMs
   */
  heavyTimeoutMs?: number;
  /** overall deadline for one call, all attempts and waits included (0 = none) */
  deadlineMs: number;
  /** extra passes over the endpoint list after the first @default 2 */
  retries: number;
  maxBodyBytes: number;
  /** how the front end's user names the limits in an error @default CLI_WORDS (the CLI's flags) */
  words?: FrontWords;
  verifyTls: boolean;
  /** calls per second allowed for each heavy method (0 = unlimited) */
  heavyRate: number;
  /** per-method rate overrides (calls per second), e.g. from a profile's per-product limits */
  rateLimits?: Record<string, number>;
  /** a delay after which an idempotent read is also sent to the next endpoint (0 = off) */
  hedgeMs?: number;
  verbose?: (line: string) => void;
  /**
   * Each attempt's end, whatever became of it (serve counts moves from these: every attempt after a call's
   * first went to another upstream, or to the same one in a later pass).
   */
  onAttempt?: (a: Attempted) => void;
  signal?: AbortSignal;
  /** keep connections alive across requests (runs that make many calls); else one connection a call */
  pooled?: boolean;
  /**
   * Runs of many requests (batch, ranges): once a request failed on every endpoint without any byte
   * reaching one (connection refused, DNS), later requests fail at once with the same cause instead of
   * walking the dead list again: 8,000 lines to a refused port end in a second, not minutes.
   */
  failFast?: boolean;
  /** the connections of this run (default: a new one, pooled as `pooled` says) */
  transport?: Transport;
}

/** One attempt of an exchange, as {@link ClientOptions.onAttempt} reports it. */
export interface Attempted {
  /** which exchange of this client (a batch's chunks and singles are several) */
  exchange: number;
  endpoint: Endpoint;
  kind: "ok" | "final" | "refused" | "maybe";
  ms: number;
}

export interface CallOptions {
  idempotent: boolean;
  heavy: boolean;
  /**
   * The method only reads (every method of the registry, idempotent or not: eth_getBlockByNumber): sent on a
   * kept-alive connection the upstream's server had closed idle, and refused before any byte of an answer,
   * it goes once more on a new connection (HttpOptions.resendStale). Absent for a method outside the
   * registry (sendrawtransaction, eth_sendRawTransaction: it may change the node's state). Idempotent
   * implies it.
   */
  read?: boolean;
  /**
   * The call changes the node's state or starts work on it (the registry's `writes` mark: scantxoutset
   * start, abort): never sent twice, and a failure after it may have reached the node says so.
   */
  writes?: boolean;
  /** the node computes for minutes (MethodDef.slow): the heavy timeout instead of the request timeout */
  slow?: boolean;
  /** per-attempt timeout override (scans); 0 = none */
  timeoutMs?: number;
  /** overall deadline override (scans); 0 = none */
  deadlineMs?: number;
  /** pin the call to this endpoint: no failover, no retry (scantxoutset start/status/abort) */
  pinned?: Endpoint;
  /** a connection of its own for a large answer (HttpOptions.fresh) */
  fresh?: boolean;
}

/** A request's failure-and-retry label in messages: the method, or "batch of N". */
interface Exchange<T> {
  label: string;
  body: string;
  co: CallOptions;
  interpret(http: HttpResult, ep: Endpoint): Outcome<T>;
}

export interface CallResult {
  result: JsonValue;
  /** the exact source text of `result` in the upstream's answer */
  raw: string;
  /** the same as bytes, where the answer's bytes were kept (batch results): copied out, not re-encoded */
  readonly rawBytes?: Uint8Array;
  endpoint: Endpoint;
}

export class JsonRpcClient {
  /** failed endpoints go to the back for the rest of the run (one-pass health memory) */
  private order: Endpoint[];
  private nextSlot = new Map<string, number>();
  private nextId = 1;
  private exchanges = 0;
  /** set once every endpoint refused connections, with failFast: later requests fail at once */
  private down?: TransportError;
  readonly transport: Transport;
  /** endpoints that refused a batch array: later arrays to them go singly (rpc/batch.ts) */
  readonly noBatch = new Set<string>();

  constructor(readonly opts: ClientOptions) {
    this.order = [...opts.endpoints];
    this.transport = opts.transport ?? new Transport({ keepAlive: opts.pooled });
  }

  get endpoints(): readonly Endpoint[] {
    return this.order;
  }

  /** Request ids: unique within this client (answers are matched by them). */
  newId(): number {
    return this.nextId++;
  }

  /** A client for control calls after an interrupt (the run's signal is aborted): same endpoints and connections. */
  withoutSignal(): JsonRpcClient {
    return new JsonRpcClient({ ...this.opts, signal: undefined, deadlineMs: 0, transport: this.transport });
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
  httpOpts(timeoutMs: number, deadline: number, fresh?: boolean, read?: boolean): HttpOptions {
    const left = deadline ? Math.max(1, deadline - Date.now()) : 0;
    const t = timeoutMs && left ? Math.min(timeoutMs, left) : timeoutMs || left;
    return {
      connectTimeoutMs: this.opts.connectTimeoutMs,
      requestTimeoutMs: t,
      maxBodyBytes: this.opts.maxBodyBytes,
      capName: (this.opts.words ?? CLI_WORDS).cap,
      verifyTls: this.opts.verifyTls,
      signal: this.opts.signal,
      fresh,
      resendStale: read,
    };
  }

  /** One HTTP attempt, interpreted. */
  private async attempt<T>(
    ep: Endpoint,
    x: Exchange<T>,
    timeoutMs: number,
    deadline: number,
  ): Promise<Outcome<T>> {
    try {
      const res = await this.transport.post(
        ep.url,
        ep.headers,
        x.body,
        this.httpOpts(timeoutMs, deadline, x.co.fresh, x.co.idempotent || x.co.read === true),
      );
      return x.interpret(res, ep);
    } catch (e) {
      if (e instanceof HttpFailure)
        return {
          kind: e.phase === "unsent" ? "refused" : "maybe",
          why: e.message,
          timedOut: e.timedOut,
          unsent: e.phase === "unsent",
        };
      throw e;
    }
  }

  /**
   * The failover loop, for single calls and batch arrays alike: walk the endpoints in health order,
   * move on after a failure when the marks allow, repeat whole passes with backoff inside the deadline.
   */
  async exchange<T>(x: Exchange<T>): Promise<{ value: T; endpoint: Endpoint }> {
    const o = this.opts;
    const co = x.co;
    const xid = ++this.exchanges;
    if (this.down && !co.pinned) {
      const e = new TransportError(this.down.message);
      e.neverSent = true;
      throw e;
    }
    const heavyMs = co.slow ? o.heavyTimeoutMs : undefined;
    const deadlineMs =
      co.deadlineMs ??
      (heavyMs === undefined || o.deadlineMs === 0
        ? o.deadlineMs
        : heavyMs && Math.max(o.deadlineMs, heavyMs));
    const deadline = deadlineMs > 0 ? Date.now() + deadlineMs : 0;
    const timeoutMs = co.timeoutMs ?? heavyMs ?? o.requestTimeoutMs;
    const tally = new FailureTally();
    let list = co.pinned ? [co.pinned] : this.order.slice();
    const passes = co.pinned ? 1 : o.retries + 1;
    // a heavy call is never asked twice at once: the second copy would compute it again
    const hedgeMs = co.idempotent && !co.heavy && !co.pinned ? (o.hedgeMs ?? 0) : 0;

    for (let pass = 0; pass < passes; pass++) {
      for (let i = 0; i < list.length; i++) {
        if (o.signal?.aborted) throw new InterruptedError("interrupted");
        if (deadline && Date.now() >= deadline) break;
        const a = list[i] as Endpoint;
        const results = await hedged(
          a,
          list[i + 1],
          hedgeMs,
          (ep) => this.attempt(ep, x, timeoutMs, deadline),
          () =>
            o.verbose?.(
              `${x.label} → ${a.label}: no answer after ${hedgeMs} ms; hedging to ${list[i + 1]?.label}`,
            ),
        );
        if (results.length === 2) i++; // the hedge used the next endpoint too
        const win = results.find((r) => r.out.kind === "ok" || r.out.kind === "final");
        for (const { ep, out, ms } of results) {
          o.onAttempt?.({ exchange: xid, endpoint: ep, kind: out.kind, ms });
          if (out.kind === "ok" || out.kind === "final") continue;
          const f = out as Failure;
          tally.add(ep, f);
          if (!co.pinned) this.demote(ep);
          // a heavy call that timed out is still being computed by the node: sending it again (here or
          // elsewhere) only doubles the work, and times out the same way
          const stillComputing = co.heavy && f.timedOut === true;
          const moveOn = f.kind === "refused" || (co.idempotent && !stillComputing);
          o.verbose?.(
            `${x.label} → ${ep.label}: ${f.why} after ${ms} ms${moveOn ? (i + 1 < list.length ? "; trying the next endpoint" : "") : "; not retried"}`,
          );
          if (!moveOn) {
            const e = new TransportError(
              stillComputing
                ? `${ep.label}: ${f.why}; ${x.label} is a heavy call the node may still be computing, so it was not sent again (${(o.words ?? CLI_WORDS).longer})`
                : co.writes
                  ? `${ep.label}: ${f.why}; ${x.label} changes the node's state (the registry marks it writes: the node may have started it), so it was not sent again`
                  : `${ep.label}: ${f.why}; ${x.label} is not marked idempotent, so it was not retried on another upstream`,
            );
            e.timedOut = f.timedOut === true;
            throw e;
          }
        }
        if (win?.out.kind === "ok") {
          o.verbose?.(`${x.label} → ${win.ep.label}: ok in ${win.ms} ms${pass ? ` (pass ${pass + 1})` : ""}`);
          return { value: win.out.value, endpoint: win.ep };
        }
        if (win?.out.kind === "final") {
          o.verbose?.(`${x.label} → ${win.ep.label}: node error in ${win.ms} ms (final, not retried)`);
          throw win.out.error;
        }
      }
      list = list.filter((ep) => !tally.refusedAuth.has(ep));
      if (list.length === 0) break;
      if (pass + 1 < passes) {
        const backoff = tally.backoff(pass);
        if (deadline && Date.now() + backoff >= deadline) break;
        o.verbose?.(
          `${x.label}: pass ${pass + 1} failed on every endpoint; waiting ${Math.round(backoff)} ms`,
        );
        await sleep(backoff, o.signal);
        if (o.signal?.aborted) throw new InterruptedError("interrupted");
        tally.retryAfter = undefined;
      }
    }
    const err = tally.error(x.label, {
      several: list.length > 1,
      deadlineReached: deadline > 0 && Date.now() >= deadline,
      words: o.words,
    });
    if (err instanceof AuthError) throw err;
    if (err.neverSent && o.failFast && !co.pinned) this.down = err;
    return Promise.reject(err);
  }

  async call(method: string, params: unknown[], co: CallOptions): Promise<CallResult> {
    const id = this.newId();
    const body = stringifyLossless({ jsonrpc: "2.0", id, method, params });
    // the overall deadline starts once the heavy-method limiter lets the call go
    await this.throttle(method, co.heavy);
    const { value, endpoint } = await this.exchange({
      label: method,
      body,
      co,
      interpret: (http, ep) => classify(http, id, ep),
    });
    return { result: value.result, raw: value.raw, endpoint };
  }
}

/** One request of a batch array (also what methods/prepare.ts builds). */
export interface BatchEntry {
  method: string;
  params: unknown[];
  marks: { idempotent: boolean; heavy: boolean };
  /** the method only reads (the registry's): CallOptions.read */
  read?: boolean;
  /** the call changes the node's state (the registry's `writes` mark): CallOptions.writes */
  writes?: boolean;
  /** the node computes for minutes (MethodDef.slow): the heavy timeout */
  slow?: boolean;
  /** params hold plain JS values only (no JsonNumber): the native JSON.stringify is enough */
  plain?: boolean;
  /** runs for minutes (scantxoutset start): --scan-timeout, no overall deadline (MethodDef.longRunning) */
  long?: boolean;
}
