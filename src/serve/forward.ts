/**
 * Forwarding: a call sent to its product's upstreams — an idempotent read's first attempt on the pool's
 * quick path, then the failover client whose marks decide what may move; a node's own error passed through
 * with its status; cacheable results stored; a batch's calls forwarded as arrays; scantxoutset pinned to the
 * node a key's scan runs on.
 */
import { isDeepStrictEqual } from "node:util";
import { groupOf } from "../chains/index.js";
import { ChaingwError, RpcError, TransportError } from "../errors/index.js";
import { type JsonValue, parseLossless, rawMember, stringifyLossless } from "../json/lossless.js";
import type { Prepared } from "../methods/prepare.js";
import { callBatch } from "../rpc/batch.js";
import { classify, type Failure, type Outcome } from "../rpc/classify.js";
import { exhausted } from "../rpc/client.js";
import type { Endpoint } from "../rpc/endpoint.js";
import type { HttpFailure, HttpResult } from "../rpc/http.js";
import type { Ctx, GatewayParts } from "./admission.js";
import type { CachePlan } from "./cache.js";
import {
  type Answer,
  type Call,
  envelopeErr,
  envelopeOk,
  type Forwarded,
  gatewayAnswer,
  J,
  upstreamError,
} from "./envelope.js";
import { errorStatus, GatewayError } from "./errors.js";
import { moveCounter } from "./transport.js";

/**
 * The params as forwarded: the client's own text when the registry's checks changed nothing (numbers keep
 * their tokens, nothing is encoded twice), else the checked params written out.
 */
function paramsJson(call: Call, p: Prepared): string {
  if (call.paramsText !== undefined && sameValues(p.params, call.params)) return call.paramsText;
  return stringifyLossless(p.params as JsonValue);
}

/** The checked params equal the client's: compared element by element, objects by value (node's deep equality). */
function sameValues(a: unknown[], b: unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    // the common params are strings, numbers and booleans: compared as they are
    if (x === y && (typeof x !== "number" || x !== 0 || Object.is(x, y))) continue;
    if (typeof x !== "object" || x === null || !isDeepStrictEqual(x, y)) return false;
  }
  return true;
}

/** A call as sent: what the failover loop needs after the quick path. */
interface Sent {
  call: Call;
  p: Prepared;
  plan: CachePlan | undefined;
  ctx: Ctx;
  pinned: Endpoint | undefined;
  /** the client's id (JSON text) */
  id: string;
  /** ours, on the upstream request */
  reqId: number;
  body: string;
  timeoutMs: number;
  attemptMs: number;
  /** when the call was first sent (Date.now()): its timeout counts from here, across every attempt */
  startedAt: number;
}

export class Forwarder {
  /** scans of ours running on each upstream (by URL) */
  private readonly scanning = new Map<string, number>();

  constructor(private readonly gw: GatewayParts) {}

  /** scantxoutset: the upstream a key's scan runs on, so `status` and `abort` reach the same node. */
  private async scanTarget(p: Prepared, ctx: Ctx): Promise<Endpoint | undefined | GatewayError> {
    if (!groupOf(ctx.product.cfg.chain).utxoScan || p.method !== "scantxoutset") return undefined;
    const pool = ctx.product.pool;
    const pinKey = `scan:${ctx.product.cfg.name}:${ctx.keyId}`;
    if (p.long) {
      // a node runs one scan at a time: prefer one no other key's scan is pinned to
      const busy = new Set<string>();
      for (const u of pool.upstreams) if (this.scanning.get(u.endpoint.url)) busy.add(u.endpoint.url);
      const rotation = pool.rotation();
      const ep = rotation.find((e) => !busy.has(e.url)) ?? rotation[0];
      if (!ep)
        return new GatewayError(
          "noUpstream",
          `product ${ctx.product.cfg.name}`,
          Math.ceil(this.gw.cfg.healthIntervalMs / 1000),
        );
      await this.gw.state.setPin(pinKey, ep.url, this.gw.cfg.scanTimeoutMs + 60_000);
      return ep;
    }
    const url = await this.gw.state.getPin(pinKey);
    return url ? pool.byUrl.get(url)?.endpoint : undefined;
  }

  /** One call forwarded: the node's answer bytes kept, its own error passed through with its status. */
  forwardOne(call: Call, p: Prepared, plan: CachePlan | undefined, ctx: Ctx): Promise<Answer> {
    return new Promise<Answer>((resolve) => this.forward(call, p, plan, ctx, resolve));
  }

  /**
   * One call forwarded, its answer given to `settle` — at once when the quick path answers it (no promise on
   * the common path), or as a promise (a scan's pin, the failover loop, the cache's write).
   */
  forward(
    call: Call,
    p: Prepared,
    plan: CachePlan | undefined,
    ctx: Ctx,
    settle: (a: Answer | Promise<Answer>) => void,
  ): void {
    if (p.method !== "scantxoutset") {
      this.send(call, p, plan, ctx, undefined, settle);
      return;
    }
    settle(
      this.scanTarget(p, ctx).then((pinned) =>
        pinned instanceof GatewayError
          ? gatewayAnswer(pinned, call.id ?? "null", call.legacy)
          : new Promise<Answer>((resolve) => this.send(call, p, plan, ctx, pinned, resolve)),
      ),
    );
  }

  /** No upstream of the product in the rotation: 503, retry after the next health check. */
  private noUpstream(ctx: Ctx, call: Call): Answer {
    return gatewayAnswer(
      new GatewayError(
        "noUpstream",
        `product ${ctx.product.cfg.name}`,
        Math.max(1, Math.ceil(this.gw.cfg.healthIntervalMs / 1000)),
      ),
      call.id ?? "null",
      call.legacy,
    );
  }

  /** The call sent: the quick path's first attempt when it may take it, then the failover client. */
  private send(
    call: Call,
    p: Prepared,
    plan: CachePlan | undefined,
    ctx: Ctx,
    pinned: Endpoint | undefined,
    settle: (a: Answer | Promise<Answer>) => void,
  ): void {
    const id = call.id ?? "null";
    const pool = ctx.product.pool;
    const endpoints = pinned ? [pinned] : pool.rotation();
    if (endpoints.length === 0) {
      settle(this.noUpstream(ctx, call));
      return;
    }
    const timeoutMs = p.long ? this.gw.cfg.scanTimeoutMs : this.gw.cfg.requestTimeoutMs;
    // an idempotent read that another upstream could answer gets a deadline per attempt: the reads held by a
    // hung node move to a healthy one within attemptTimeout, not after the whole request timeout
    const attemptMs =
      p.marks.idempotent && !pinned && !p.long && endpoints.length > 1
        ? Math.min(timeoutMs, this.gw.cfg.attemptTimeoutMs)
        : timeoutMs;
    const reqId = pool.newId();
    const body = `{"jsonrpc":"2.0","id":${reqId},"method":${J(p.method)},"params":${paramsJson(call, p)}}`;
    const sent: Sent = {
      call,
      p,
      plan,
      ctx,
      pinned,
      id,
      reqId,
      body,
      timeoutMs,
      attemptMs,
      startedAt: Date.now(),
    };
    // the common case first: an idempotent read's first attempt, on the pool's quick path; the client's
    // failover loop only after it failed (on the other upstreams) or for everything else
    const first = endpoints[0] as Endpoint;
    const up = !pinned && !p.long && p.marks.idempotent ? pool.quickUpstream(first.url) : undefined;
    if (!up) {
      settle(this.failover(sent, endpoints, 0));
      return;
    }
    const done = (f: HttpFailure | null, http?: HttpResult) => {
      // called from the socket's events: whatever throws here is the request's failure, not the process's
      try {
        const out: Outcome<Forwarded> = f
          ? { kind: f.phase === "unsent" ? "refused" : "maybe", why: f.message, timedOut: f.timedOut }
          : this.interpret(http as HttpResult, reqId, first);
        if (out.kind === "ok") return settle(this.forwarded(out.value, first, call, plan, ctx));
        const failed = out as Failure;
        if (endpoints.length > 1) return settle(this.failover(sent, endpoints.slice(1), 1));
        // what the client's loop says of one endpoint that failed
        const err = exhausted(p.method, [`${first.label}: ${failed.why}`], {
          allAuth: failed.auth === true,
          several: false,
          deadlineReached: false,
        });
        if (err instanceof TransportError) err.timedOut = failed.timedOut === true;
        settle(gatewayAnswer(upstreamError(err, pool.told), id, call.legacy));
      } catch (e) {
        settle(Promise.reject(e));
      }
    };
    pool.transport.quick({ up, body, timeoutMs: attemptMs, signal: ctx.signal, done });
  }

  /** An upstream's HTTP answer to our request `reqId`: the result's bytes, or the node's own error as sent. */
  private interpret(http: HttpResult, reqId: number, ep: Endpoint): Outcome<Forwarded> {
    const out = classify(http, reqId, ep);
    if (out.kind === "ok") return { kind: "ok", value: { status: http.status, raw: out.value.raw } };
    if (out.kind === "final") {
      // the node's word, passed on as it said it (object and status)
      const v = parseLossless(http.text) as Record<string, JsonValue>;
      return {
        kind: "ok",
        value: {
          status: http.status,
          code: out.error instanceof RpcError ? out.error.code : undefined,
          error: rawMember(http.text, v, "error") ?? J({ code: -32603, message: out.error.message }),
        },
      };
    }
    return out;
  }

  /** The call on the failover client over `endpoints` (after `quickMoved` moves of the quick path). */
  private async failover(s: Sent, endpoints: Endpoint[], quickMoved: number): Promise<Answer> {
    const { p, ctx, pinned } = s;
    const moves = moveCounter();
    const long = pinned && p.long;
    if (long) this.scanning.set(pinned.url, (this.scanning.get(pinned.url) ?? 0) + 1);
    // what is left of the call's timeout after the quick path's attempt (a slot waited for, a node that hung)
    const left = Math.max(1, s.timeoutMs - (Date.now() - s.startedAt));
    try {
      const client = ctx.product.pool.client({
        endpoints,
        timeoutMs: left,
        signal: ctx.signal,
        onAttempt: moves.onAttempt,
      });
      const { value, endpoint } = await client.exchange<Forwarded>({
        label: p.method,
        body: s.body,
        co: { ...p.marks, pinned, timeoutMs: Math.min(s.attemptMs, left), deadlineMs: left },
        interpret: (http, ep) => this.interpret(http, s.reqId, ep),
      });
      return await this.forwarded(value, endpoint, s.call, s.plan, ctx);
    } catch (e) {
      return gatewayAnswer(upstreamError(e, ctx.product.pool.told), s.id, s.call.legacy);
    } finally {
      const moved = quickMoved + moves.moved;
      if (moved) this.gw.metrics?.failovers.inc({ product: ctx.product.cfg.name }, moved);
      if (long) {
        const n = (this.scanning.get(pinned.url) ?? 1) - 1;
        if (n > 0) this.scanning.set(pinned.url, n);
        else this.scanning.delete(pinned.url);
      }
    }
  }

  /**
   * A forwarded call's answer: the node's error as it sent it, or its result (stored when cacheable; only
   * then is there anything to wait for).
   */
  private forwarded(
    value: Forwarded,
    endpoint: Endpoint,
    call: Call,
    plan: CachePlan | undefined,
    ctx: Ctx,
  ): Answer | Promise<Answer> {
    const pool = ctx.product.pool;
    const id = call.id ?? "null";
    if (value.error !== undefined)
      return {
        status: errorStatus(value.code ?? -32603, call.legacy),
        body: envelopeErr(id, pool.scrubbed(value.error), call.legacy),
        outcome: "node_error",
        upstream: endpoint.label,
      };
    const raw = value.raw ?? "null";
    const ok = (body: string | Buffer): Answer => ({
      status: 200,
      body: envelopeOk(id, body, call.legacy),
      outcome: "ok",
      upstream: endpoint.label,
    });
    if (!plan?.storable(raw, pool.bestHeight)) return ok(raw);
    const bytes = Buffer.from(raw, "utf8");
    return this.gw.state
      .cacheSet(plan.key, bytes, plan.dep(raw))
      .then(() => ok(plan.serve(bytes, pool.bestHeight) ?? raw));
  }

  /** Calls of a batch forwarded as arrays (the CLI's batch path: per-entry failover by the marks). */
  async forwardMany(list: { call: Call; p: Prepared; plan?: CachePlan }[], ctx: Ctx): Promise<Answer[]> {
    const pool = ctx.product.pool;
    // calls that must reach one node (scans) and long ones go on their own
    const solo = list.map((f) => f.p.method === "scantxoutset" || f.p.long);
    const out: Promise<Answer>[] = list.map((f, i) =>
      solo[i] ? this.forwardOne(f.call, f.p, f.plan, ctx) : (undefined as never),
    );
    const rest = list.map((f, i) => ({ f, i })).filter(({ i }) => !solo[i]);
    const endpoints = pool.rotation();
    const CHUNK = 250;
    for (let s = 0; s < rest.length; s += CHUNK) {
      const part = rest.slice(s, s + CHUNK);
      const settled: Promise<Answer[]> =
        endpoints.length === 0
          ? Promise.resolve(part.map(({ f }) => this.noUpstream(ctx, f.call)))
          : (async () => {
              const moves = moveCounter();
              const client = pool.client({ endpoints, signal: ctx.signal, onAttempt: moves.onAttempt });
              const outcomes = await callBatch(
                client,
                part.map(({ f }) => f.p),
                { fresh: groupOf(ctx.product.cfg.chain).freshConnectionsForArrays },
              );
              if (moves.moved) this.gw.metrics?.failovers.inc({ product: ctx.product.cfg.name }, moves.moved);
              return Promise.all(
                outcomes.map(async (o, k): Promise<Answer> => {
                  const { f } = part[k];
                  const id = f.call.id ?? "null";
                  if (o instanceof ChaingwError) {
                    if (o instanceof RpcError)
                      return {
                        status: errorStatus(o.code, f.call.legacy),
                        body: envelopeErr(
                          id,
                          pool.scrubbed(
                            stringifyLossless({
                              code: o.code,
                              message: o.rpcMessage,
                              ...(o.data !== null && o.data !== undefined ? { data: o.data } : {}),
                            }),
                          ),
                          f.call.legacy,
                        ),
                        outcome: "node_error",
                        upstream: o.endpoint,
                      };
                    return gatewayAnswer(upstreamError(o, pool.told), id, f.call.legacy);
                  }
                  const raw = o.rawBytes ? Buffer.from(o.rawBytes) : Buffer.from(o.raw, "utf8");
                  let served: Buffer | undefined;
                  if (f.plan) {
                    const text = raw.toString("utf8");
                    if (f.plan.storable(text, pool.bestHeight)) {
                      await this.gw.state.cacheSet(f.plan.key, raw, f.plan.dep(text));
                      served = f.plan.serve(raw, pool.bestHeight);
                    }
                  }
                  return {
                    status: 200,
                    body: envelopeOk(id, served ?? raw, f.call.legacy),
                    outcome: "ok",
                    upstream: o.endpoint.label,
                  };
                }),
              );
            })();
      for (const [k, { i }] of part.entries()) out[i] = settled.then((a) => a[k]);
    }
    return Promise.all(out);
  }
}
