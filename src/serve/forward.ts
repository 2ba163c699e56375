/**
 * Forwarding: a call sent to its product's upstreams — an idempotent read's first attempt on the pool's
 * quick path, then the failover client whose marks decide what may move; a node's own error passed through
 * with its status; cacheable results stored; a batch's calls forwarded as arrays; scantxoutset pinned to the
 * node a key's scan runs on.
 */
import { isDeepStrictEqual } from "node:util";
import { chainOf } from "../chains/index.js";
import { ChaingwError, RpcError, TransportError } from "../errors/index.js";
import { type JsonValue, parseLossless, rawMember, stringifyLossless } from "../json/lossless.js";
import type { Prepared } from "../methods/prepare.js";
import { callBatch } from "../rpc/batch.js";
import { classify, type Failure, type Outcome } from "../rpc/classify.js";
import { exhausted } from "../rpc/client.js";
import type { Endpoint } from "../rpc/endpoint.js";
import { HttpFailure, type HttpResult } from "../rpc/http.js";
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
import { GatewayError } from "./errors.js";
import { moveCounter } from "./upstreams.js";

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

export class Forwarder {
  /** scans of ours running on each upstream (by URL) */
  private readonly scanning = new Map<string, number>();

  constructor(private readonly gw: GatewayParts) {}

  /** scantxoutset: the upstream a key's scan runs on, so `status` and `abort` reach the same node. */
  private async scanTarget(p: Prepared, ctx: Ctx): Promise<Endpoint | undefined | GatewayError> {
    if (!chainOf(ctx.product.cfg.chain).utxoScan || p.method !== "scantxoutset") return undefined;
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
  async forwardOne(call: Call, p: Prepared, plan: CachePlan | undefined, ctx: Ctx): Promise<Answer> {
    const id = call.id ?? "null";
    const pool = ctx.product.pool;
    const pinned = p.method === "scantxoutset" ? await this.scanTarget(p, ctx) : undefined;
    if (pinned instanceof GatewayError) return gatewayAnswer(pinned, id);
    const endpoints = pinned ? [pinned] : pool.rotation();
    if (endpoints.length === 0)
      return gatewayAnswer(
        new GatewayError(
          "noUpstream",
          `product ${ctx.product.cfg.name}`,
          Math.max(1, Math.ceil(this.gw.cfg.healthIntervalMs / 1000)),
        ),
        id,
      );
    // made when the client's failover loop runs (not on the quick path's answered first attempt)
    let moves: ReturnType<typeof moveCounter> | undefined;
    const timeoutMs = p.long ? this.gw.cfg.scanTimeoutMs : this.gw.cfg.requestTimeoutMs;
    // an idempotent read that another upstream could answer gets a deadline per attempt: the reads held by a
    // hung node move to a healthy one within attemptTimeout, not after the whole request timeout
    const attemptMs =
      p.marks.idempotent && !pinned && !p.long && endpoints.length > 1
        ? Math.min(timeoutMs, this.gw.cfg.attemptTimeoutMs)
        : timeoutMs;
    const reqId = pool.newId();
    const body = `{"jsonrpc":"2.0","id":${reqId},"method":${J(p.method)},"params":${paramsJson(call, p)}}`;
    const interpret = (http: HttpResult, ep: Endpoint): Outcome<Forwarded> => {
      const out = classify(http, reqId, ep);
      if (out.kind === "ok") return { kind: "ok", value: { status: http.status, raw: out.value.raw } };
      if (out.kind === "final") {
        // the node's word, passed on as it said it (object and status)
        const v = parseLossless(http.text) as Record<string, JsonValue>;
        return {
          kind: "ok",
          value: {
            status: http.status,
            error: rawMember(http.text, v, "error") ?? J({ code: -32603, message: out.error.message }),
          },
        };
      }
      return out;
    };
    if (pinned && p.long) this.scanning.set(pinned.url, (this.scanning.get(pinned.url) ?? 0) + 1);
    let quickMoved = 0;
    try {
      // the common case first: an idempotent read's first attempt, on the pool's quick path; the client's
      // failover loop only after it failed (on the other upstreams) or for everything else
      const first = endpoints[0];
      const quickOn = !pinned && !p.long && p.marks.idempotent && first.url.startsWith("http:");
      let rest = endpoints;
      if (quickOn) {
        const up = pool.byUrl.get(first.url);
        let out: Outcome<Forwarded> | undefined;
        if (up) {
          try {
            out = interpret(await pool.transport.quick(up, body, attemptMs, ctx.signal), first);
          } catch (e) {
            if (!(e instanceof HttpFailure)) throw e;
            out = { kind: e.phase === "unsent" ? "refused" : "maybe", why: e.message, timedOut: e.timedOut };
          }
          if (out.kind === "ok") return this.forwarded(out.value, first, id, plan, ctx);
          const f = out as Failure;
          if (endpoints.length === 1) {
            // what the client's loop says of one endpoint that failed
            const err = exhausted(p.method, [`${first.label}: ${f.why}`], {
              allAuth: f.auth === true,
              several: false,
              deadlineReached: false,
            });
            if (err instanceof TransportError) err.timedOut = f.timedOut === true;
            return gatewayAnswer(upstreamError(err), id);
          }
          rest = endpoints.slice(1);
          quickMoved = 1;
        }
      }
      moves = moveCounter();
      const client = pool.client({
        endpoints: rest,
        timeoutMs,
        signal: ctx.signal,
        onAttempt: moves.onAttempt,
      });
      const { value, endpoint } = await client.exchange<Forwarded>({
        label: p.method,
        body,
        co: {
          ...p.marks,
          pinned,
          timeoutMs: attemptMs,
          deadlineMs: timeoutMs,
        },
        interpret: (http, ep) => interpret(http, ep),
      });
      const moved = quickMoved + (moves?.moved ?? 0);
      if (moved) this.gw.metrics?.failovers.inc({ product: ctx.product.cfg.name }, moved);
      return this.forwarded(value, endpoint, id, plan, ctx);
    } catch (e) {
      const moved = quickMoved + (moves?.moved ?? 0);
      if (moved) this.gw.metrics?.failovers.inc({ product: ctx.product.cfg.name }, moved);
      return gatewayAnswer(upstreamError(e), id);
    } finally {
      if (pinned && p.long) {
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
    id: string,
    plan: CachePlan | undefined,
    ctx: Ctx,
  ): Answer | Promise<Answer> {
    const pool = ctx.product.pool;
    if (value.error !== undefined)
      return {
        status: value.status,
        body: envelopeErr(id, value.error),
        outcome: "node_error",
        upstream: endpoint.label,
      };
    const raw = value.raw ?? "null";
    const ok = (body: string | Buffer): Answer => ({
      status: 200,
      body: envelopeOk(id, body),
      outcome: "ok",
      upstream: endpoint.label,
    });
    if (!plan?.storable(raw, pool.bestHeight)) return ok(raw);
    const bytes = Buffer.from(raw, "utf8");
    return this.gw.state.cacheSet(plan.key, bytes).then(() => ok(plan.serve(bytes, pool.bestHeight) ?? raw));
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
          ? Promise.resolve(
              part.map(({ f }) =>
                gatewayAnswer(
                  new GatewayError(
                    "noUpstream",
                    `product ${ctx.product.cfg.name}`,
                    Math.max(1, Math.ceil(this.gw.cfg.healthIntervalMs / 1000)),
                  ),
                  f.call.id ?? "null",
                ),
              ),
            )
          : (async () => {
              const moves = moveCounter();
              const client = pool.client({ endpoints, signal: ctx.signal, onAttempt: moves.onAttempt });
              const outcomes = await callBatch(
                client,
                part.map(({ f }) => f.p),
                { fresh: chainOf(ctx.product.cfg.chain).freshConnectionsForArrays },
              );
              if (moves.moved) this.gw.metrics?.failovers.inc({ product: ctx.product.cfg.name }, moves.moved);
              return Promise.all(
                outcomes.map(async (o, k): Promise<Answer> => {
                  const { f } = part[k];
                  const id = f.call.id ?? "null";
                  if (o instanceof ChaingwError) {
                    if (o instanceof RpcError)
                      return {
                        status: 200,
                        body: envelopeErr(
                          id,
                          stringifyLossless({
                            code: o.code,
                            message: o.rpcMessage,
                            ...(o.data !== null && o.data !== undefined ? { data: o.data } : {}),
                          }),
                        ),
                        outcome: "node_error",
                        upstream: o.endpoint,
                      };
                    return gatewayAnswer(upstreamError(o), id);
                  }
                  const raw = o.rawBytes ? Buffer.from(o.rawBytes) : Buffer.from(o.raw, "utf8");
                  let served: Buffer | undefined;
                  if (f.plan) {
                    const text = raw.toString("utf8");
                    if (f.plan.storable(text, pool.bestHeight)) {
                      await this.gw.state.cacheSet(f.plan.key, raw);
                      served = f.plan.serve(raw, pool.bestHeight);
                    }
                  }
                  return {
                    status: 200,
                    body: envelopeOk(id, served ?? raw),
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
