/**
 * `chaingw serve`: the gateway of the spec, POST /v1/{product_id}, in front of a product's node upstreams.
 *
 * The path of one call: route and key (401/403) → body within the size cap (413) → JSON (-32700) →
 * envelope (-32600) → the method in the product's group of the registry, or its allow list (-32601) →
 * the registry's param checks, the same `prepare` step the CLI runs (-32602 naming the parameter) →
 * eth_getLogs range cap → heavy-method token buckets (429 + Retry-After) → cache → the failover client,
 * whose marks decide what may move to another upstream. Nothing refused before the last step touches a
 * node. A node's own JSON-RPC error is its answer: passed through, with its HTTP status, unchanged.
 */
import { isUtf8 } from "node:buffer";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { chainOf } from "../chains/index.js";
import { ChaingwError, RpcError, TransportError, UsageError } from "../errors/index.js";
import { JsonNumber, type JsonValue, parseLossless, rawMember, stringifyLossless } from "../json/lossless.js";
import { definitions, isMethodName, methodNames, UNKNOWN_MARKS } from "../methods/index.js";
import { type Prepared, prepare, prepareRaw } from "../methods/prepare.js";
import type { MethodDef } from "../methods/types.js";
import { callBatch } from "../rpc/batch.js";
import { classify, type Failure, type Outcome } from "../rpc/classify.js";
import { exhausted } from "../rpc/client.js";
import type { Endpoint } from "../rpc/endpoint.js";
import { HttpFailure, type HttpResult } from "../rpc/http.js";
import type { Secrets } from "../util/redact.js";
import { isJsonObject } from "../util/text.js";
import { type CachePlan, cachePlan } from "./cache.js";
import { type GatewayConfig, loadGatewayConfig, type ProductConfig } from "./config.js";
import { GatewayError } from "./errors.js";
import { KeyRing, readKeys } from "./keys.js";
import type { Metrics } from "./metrics.js";
import { MemoryState, RedisState, type SharedState } from "./state.js";
import { moveCounter, Pool } from "./upstreams.js";

export interface ServeOptions {
  configFile: string;
  /** overrides the config's listen (tests: 127.0.0.1:0) */
  listen?: string;
  /** redis://... for state shared by replicas; default this process's memory */
  stateUrl?: string;
  /** one JSON access-log line per request */
  accessLog?: (line: string) => void;
  /** the gateway's own notes (upstreams leaving or joining the rotation, reloads) */
  log?: (line: string) => void;
  /** /metrics (prom-client); on by default */
  metrics?: boolean;
  /** where upstream credentials are recorded, so the face scrubs them from anything it prints */
  secrets?: Secrets;
  /**
   * A worker of `serve --workers N` (src/serve/cluster.ts): the primary checked the address, holds the
   * buckets and pins (without --state), and sums /metrics over every worker.
   */
  worker?: {
    slot: number;
    state?: (cacheMaxBytes: number) => SharedState;
    metrics: () => Promise<string | undefined>;
  };
}

interface Product {
  cfg: ProductConfig;
  pool: Pool;
  /** methods the product forwards that are not in its group's registry: name → marks */
  extra: Map<string, { idempotent: boolean; heavy: boolean }>;
}

/** One call of a request (a single request, or one entry of a batch). */
interface Call {
  /** the id's JSON text; undefined for a notification */
  id?: string;
  method: string;
  params: JsonValue[];
}

/** What became of a call: a result's bytes, or an error object, with the HTTP status it carries alone. */
interface Answer {
  status: number;
  /** the whole JSON-RPC response for this call, id included */
  body: string | Buffer;
  outcome: string;
  upstream?: string;
  retryAfterS?: number;
}

const J = (v: unknown) => JSON.stringify(v);
const envelopeOk = (id: string, raw: string | Buffer): Buffer | string =>
  typeof raw === "string"
    ? `{"jsonrpc":"2.0","id":${id},"result":${raw}}`
    : Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":${id},"result":`), raw, Buffer.from("}")]);
const envelopeErr = (id: string, errorJson: string) => `{"jsonrpc":"2.0","id":${id},"error":${errorJson}}`;

function gatewayAnswer(e: GatewayError, id = "null"): Answer {
  return {
    status: e.status,
    body: envelopeErr(e.requestId ?? id, J({ code: e.code, message: e.message })),
    outcome: e.kind,
    retryAfterS: e.retryAfterS,
  };
}

/** The JSON text of a request's id, or a reason it is not one (JSON-RPC: a string, a number or null). */
function idText(v: JsonValue | undefined): string | undefined | GatewayError {
  if (v === undefined) return undefined;
  if (v === null || typeof v === "string" || v instanceof JsonNumber) return stringifyLossless(v);
  return new GatewayError("invalidRequest", "id must be a string, a number or null");
}

/** JsonNumber → number for the registry's checks (its params are small numbers and hex strings). */
function plain(v: JsonValue): unknown {
  if (v instanceof JsonNumber) return Number(v.raw);
  if (Array.isArray(v)) return v.map(plain);
  if (isJsonObject(v))
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x as JsonValue)]));
  return v;
}

export class Gateway {
  cfg!: GatewayConfig;
  private keys!: KeyRing;
  private products = new Map<string, Product>();
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private inflight = 0;
  private drained?: () => void;
  private closing = false;
  metrics?: Metrics;
  url = "";

  private constructor(
    readonly opts: ServeOptions,
    readonly state: SharedState,
  ) {}

  static async start(opts: ServeOptions): Promise<Gateway> {
    const cfg = loadGatewayConfig(opts.configFile, { listen: opts.listen }, opts.secrets);
    // a busy address is bad usage, said before anything starts (no shared state, no health checks); a
    // worker's primary said it already, and holds the address for all of them
    if (!opts.worker) await probeListen(cfg.host, cfg.port);
    const state = opts.stateUrl
      ? await connectState(opts.stateUrl, cfg.cache.maxBytes, opts.log)
      : (opts.worker?.state?.(cfg.cache.maxBytes) ?? new MemoryState(cfg.cache.maxBytes));
    const gw = new Gateway(opts, state);
    if (opts.metrics !== false) {
      const [{ prom }, { Metrics }] = await Promise.all([import("./vendor.js"), import("./metrics.js")]);
      gw.metrics = new Metrics(
        prom,
        () => state.cacheBytes,
        () => state.up,
      );
    }
    await gw.apply(cfg);
    await gw.listen();
    return gw;
  }

  /** Takes a config (start, SIGHUP): keys, products and their pools; the listen address stays as it was. */
  private async apply(cfg: GatewayConfig): Promise<void> {
    const keys = new KeyRing(readKeys(cfg.keysFile));
    const log = this.opts.log ?? (() => {});
    const products = new Map<string, Product>();
    for (const [name, p] of cfg.products) {
      const pool = new Pool(p, cfg, this.metrics, log);
      products.set(name, { cfg: p, pool, extra: extraMethods(p) });
    }
    // the first round of checks before any request: a dead upstream is out of the rotation from the start
    await Promise.all([...products.values()].map((p) => p.pool.check()));
    for (const p of products.values()) p.pool.start();
    const old = this.products;
    this.cfg = cfg;
    this.keys = keys;
    this.products = products;
    // requests in flight keep the old pools they hold; their connections close when those are done
    for (const p of old.values()) p.pool.retire();
  }

  /** SIGHUP: config and keys read again; requests in flight finish on what they started with. */
  async reload(): Promise<void> {
    const cfg = loadGatewayConfig(
      this.opts.configFile,
      { listen: `${this.cfg.host}:${this.cfg.port}` },
      this.opts.secrets,
    );
    await this.apply(cfg);
    this.opts.log?.(
      `reloaded ${this.opts.configFile}: ${cfg.products.size} products, ${this.keys.size} keys`,
    );
  }

  private async listen(): Promise<void> {
    const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
      this.inflight++;
      this.handle(req, res)
        .catch((e: unknown) => {
          this.opts.log?.(`internal error: ${(e as Error)?.stack ?? e}`);
          if (!res.headersSent) this.send(res, gatewayAnswer(new GatewayError("internal")));
          else res.destroy();
        })
        .finally(() => {
          if (--this.inflight === 0) this.drained?.();
        });
    });
    server.on("connection", (s: Socket) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", (e) => reject(listenError(this.cfg.host, this.cfg.port, e)));
      server.listen(this.cfg.port, this.cfg.host, () => resolve());
    });
    this.server = server;
    const a = server.address() as AddressInfo;
    this.url = `http://${a.family === "IPv6" ? `[${a.address}]` : a.address}:${a.port}`;
  }

  /** SIGTERM: stop accepting, let the requests in flight finish (at most `graceMs`), close. */
  async close(graceMs = 30_000): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const closed = new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
    this.server?.closeIdleConnections();
    if (this.inflight > 0)
      await new Promise<void>((resolve) => {
        this.drained = resolve;
        setTimeout(resolve, graceMs).unref();
      });
    for (const s of this.sockets) s.destroy();
    await closed;
    for (const p of this.products.values()) p.pool.retire();
    await this.state.close();
  }

  get productNames(): string[] {
    return [...this.products.keys()];
  }

  private send(
    res: ServerResponse,
    a: Answer | { status: number; body: string | Buffer },
    extra: Record<string, string> = {},
  ): void {
    const headers: Record<string, string> = { "content-type": "application/json", ...extra };
    const ra = (a as Answer).retryAfterS;
    if (ra !== undefined) headers["retry-after"] = String(ra);
    // while draining, tell kept-alive clients to go elsewhere next time
    if (this.closing) headers.connection = "close";
    headers["content-length"] = String(Buffer.byteLength(a.body));
    res.writeHead(a.status, headers);
    res.end(a.body);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const t0 = performance.now();
    const path = (req.url ?? "/").split("?")[0];
    if (req.method === "GET" && (path === "/healthz" || path === "/readyz" || path === "/metrics")) {
      req.resume();
      return this.operations(path, res);
    }
    // the path only up to the product: a key put in the path (/v1/ltc/<KEY>) never reaches the log
    const log: Record<string, unknown> = { ts: new Date().toISOString(), path: loggedPath(path) };
    if (this.opts.worker) log.worker = this.opts.worker.slot;
    const done = (a: Answer, extra: Record<string, string> = {}) => {
      this.send(res, a, extra);
      log.status = a.status;
      log.outcome ??= a.outcome;
      if (a.upstream) log.upstream ??= a.upstream;
      log.ms = Math.round((performance.now() - t0) * 100) / 100;
      this.opts.accessLog?.(J(log));
    };
    const m = /^\/v1\/([^/]+)\/?$/.exec(path);
    let productName: string | undefined;
    try {
      productName = m ? decodeURIComponent(m[1]) : undefined;
    } catch {}
    const product =
      productName !== undefined && this.products.has(productName)
        ? this.products.get(productName)
        : undefined;
    if (!product) {
      req.resume();
      return done(
        gatewayAnswer(
          new GatewayError(
            "notFound",
            productName === undefined ? `${path} is not /v1/{product_id}` : J(productName),
          ),
        ),
      );
    }
    log.product = product.cfg.name;
    if (req.method !== "POST") {
      req.resume();
      return done(gatewayAnswer(new GatewayError("notPost")), { allow: "POST" });
    }
    const presented = req.headers["x-api-key"];
    if (typeof presented !== "string" || presented === "") {
      req.resume();
      return done(gatewayAnswer(new GatewayError("noKey")));
    }
    const who = this.keys.find(presented);
    if (!who) {
      req.resume();
      return done(gatewayAnswer(new GatewayError("badKey")));
    }
    log.key_id = who.id;
    if (!who.products.has(product.cfg.name)) {
      req.resume();
      return done(gatewayAnswer(new GatewayError("forbidden", J(product.cfg.name))));
    }
    const body = await this.readBody(req);
    if (body === undefined) {
      const a = gatewayAnswer(new GatewayError("bodyTooLarge", `more than ${this.cfg.maxBodyBytes} bytes`));
      // the rest of the body is not read: the connection cannot carry another request
      done(a, { connection: "close" });
      return;
    }
    let parsed: JsonValue;
    // bytes that are not UTF-8 would be read as U+FFFD and an id echoed altered: a parse error instead
    if (!isUtf8(body)) return done(gatewayAnswer(new GatewayError("parse", "the body is not UTF-8")));
    const text = body.toString("utf8");
    try {
      parsed = parseLossless(text, { maxDepth: 64 });
    } catch (e) {
      return done(gatewayAnswer(new GatewayError("parse", (e as Error).message)));
    }
    // one signal per connection, not per request: HTTP/1.1 answers a connection's requests one at a time,
    // so a connection that closes early closes on the request in flight
    const ctx = { product, keyId: who.id, signal: connectionSignal(req.socket) };
    if (Array.isArray(parsed)) {
      log.method = `batch(${parsed.length})`;
      if (parsed.length === 0) return done(gatewayAnswer(new GatewayError("invalidRequest", "empty batch")));
      if (parsed.length > this.cfg.maxBatch)
        return done(
          gatewayAnswer(
            new GatewayError("batchTooLarge", `${parsed.length} requests, at most ${this.cfg.maxBatch}`),
          ),
        );
      const answers = await this.batch(parsed, ctx);
      const outcomes = new Map<string, number>();
      for (const a of answers) outcomes.set(a.outcome, (outcomes.get(a.outcome) ?? 0) + 1);
      log.outcome = [...outcomes].map(([k, n]) => `${k}:${n}`).join(",");
      const ups = [...new Set(answers.map((a) => a.upstream).filter(Boolean))];
      if (ups.length) log.upstream = ups.join(",");
      const bodies = answers
        .filter((a, i) => a.body && this.isAnswered(parsed as JsonValue[], i))
        .map((a) => a.body);
      if (bodies.length === 0) return done({ status: 204, body: "", outcome: log.outcome as string });
      const parts: Buffer[] = [Buffer.from("[")];
      bodies.forEach((b, i) => {
        if (i) parts.push(Buffer.from(","));
        parts.push(typeof b === "string" ? Buffer.from(b) : b);
      });
      parts.push(Buffer.from("]"));
      return done({ status: 200, body: Buffer.concat(parts), outcome: log.outcome as string });
    }
    const call = this.readCall(parsed);
    if (call instanceof GatewayError) return done(gatewayAnswer(call));
    log.method = this.methodLabel(product, call.method);
    const [a] = await this.run([call], ctx);
    if (call.id === undefined) return done({ ...a, status: 204, body: "" });
    return done(a);
  }

  /** A batch entry gets an answer unless it was a well-formed notification (no id). */
  private isAnswered(list: JsonValue[], i: number): boolean {
    const e = list[i];
    return !(isJsonObject(e) && !("id" in e) && typeof (e as Record<string, JsonValue>).method === "string");
  }

  private async batch(list: JsonValue[], ctx: Ctx): Promise<Answer[]> {
    const calls = list.map((e) => this.readCall(e));
    const good = calls.filter((c): c is Call => !(c instanceof GatewayError));
    const answers = await this.run(good, ctx);
    let j = 0;
    return calls.map((c) => (c instanceof GatewayError ? gatewayAnswer(c) : answers[j++]));
  }

  private methodLabel(product: Product, method: string): string {
    return definitions(method).some((d) => d.group === product.cfg.chain) || product.extra.has(method)
      ? method
      : "other";
  }

  private readCall(v: JsonValue): Call | GatewayError {
    if (!isJsonObject(v)) return new GatewayError("invalidRequest", "expected a request object");
    const o = v as Record<string, JsonValue>;
    if (o.jsonrpc !== "2.0") return new GatewayError("invalidRequest", 'jsonrpc must be "2.0"');
    const id = idText(o.id);
    if (id instanceof GatewayError) return id;
    if (typeof o.method !== "string" || !isMethodName(o.method))
      return new GatewayError("invalidRequest", "method missing or not a method name");
    const params = o.params ?? [];
    if (isJsonObject(params)) {
      // JSON-RPC 2.0 allows named params; the registry checks (and the CLI sends) positional ones
      const e = new GatewayError(
        "invalidParams",
        `named params (an object) are not taken: give ${o.method}'s params as an array, in order`,
      );
      e.requestId = id ?? "null";
      return e;
    }
    if (!Array.isArray(params))
      return new GatewayError("invalidRequest", "params must be an array (positional)");
    for (const k of Object.keys(o))
      if (!["jsonrpc", "id", "method", "params"].includes(k))
        return new GatewayError("invalidRequest", `unknown member ${J(k)}`);
    return { id, method: o.method, params };
  }

  /** Checks each call, then forwards those that passed (singly, or as arrays for a batch). */
  private async run(calls: Call[], ctx: Ctx): Promise<Answer[]> {
    const out: (Answer | Promise<Answer>)[] = new Array(calls.length);
    const forward: { i: number; call: Call; p: Prepared; plan?: CachePlan }[] = [];
    for (const [i, call] of calls.entries()) {
      const checked = await this.check(call, ctx);
      if ("status" in checked) out[i] = checked;
      else forward.push({ i, call, ...checked });
    }
    if (forward.length === 1 || (calls.length === 1 && forward.length)) {
      const f = forward[0];
      out[f.i] = this.forwardOne(f.call, f.p, f.plan, ctx);
    } else if (forward.length) {
      const answered = await this.forwardMany(forward, ctx);
      for (const [k, f] of forward.entries()) out[f.i] = answered[k];
    }
    // a client that went away is its own outcome (nginx's 499), not an upstream failure that pages people
    const list = (await Promise.all(out)).map((a) =>
      ctx.signal.aborted && a.status >= 500 ? { ...a, status: 499, outcome: "client_closed" } : a,
    );
    for (const [i, a] of list.entries())
      this.metrics?.requests.inc({
        product: ctx.product.cfg.name,
        method: this.methodLabel(ctx.product, calls[i].method),
        outcome: a.outcome,
      });
    return list;
  }

  /** Everything decided before an upstream is asked: method, params, range cap, rate limits, cache. */
  private async check(call: Call, ctx: Ctx): Promise<Answer | { p: Prepared; plan?: CachePlan }> {
    const { product } = ctx;
    const id = call.id ?? "null";
    const fail = (e: GatewayError) => gatewayAnswer(e, id);
    const def: MethodDef | undefined = definitions(call.method).find((d) => d.group === product.cfg.chain);
    let p: Prepared;
    if (def) {
      try {
        p = prepare(def, { params: call.params.map(plain) });
      } catch (e) {
        if (e instanceof UsageError) return fail(new GatewayError("invalidParams", e.message));
        throw e;
      }
    } else {
      const marks = product.extra.get(call.method);
      if (!marks)
        return fail(
          new GatewayError(
            "methodNotFound",
            `${call.method} is not a method of the ${product.cfg.chain} group${
              definitions(call.method).length
                ? ` (it is in ${definitions(call.method)
                    .map((d) => d.group)
                    .join(", ")})`
                : ""
            }, nor allowed on product ${product.cfg.name}`,
          ),
        );
      p = { ...prepareRaw(call.method, call.params, product.cfg.chain), marks };
    }
    if (p.method === "eth_getLogs" && product.cfg.maxLogsRange > 0) {
      const wide = logsRange(p.params[0], product.pool.bestHeight);
      if (wide !== undefined && wide > product.cfg.maxLogsRange) {
        this.metrics?.limited.inc({ product: product.cfg.name, method: p.method, limit: "block_range" });
        return fail(
          new GatewayError(
            "invalidParams",
            `eth_getLogs block range of ${wide} blocks exceeds the limit of ${product.cfg.maxLogsRange} on product ${product.cfg.name}`,
          ),
        );
      }
    }
    // heavy methods are limited; one whose long-running calls are the heavy part (scantxoutset start, not
    // its status polls) only in those
    const limited =
      product.cfg.limits.methods[p.method] ??
      (p.marks.heavy && (def?.longRunning ? p.long : true) ? product.cfg.limits : undefined);
    if (limited) {
      const name = product.cfg.name;
      const r = await this.state.take([
        { key: `key:${ctx.keyId}:${name}:${p.method}`, bucket: limited.perKey },
        { key: `product:${name}:${p.method}`, bucket: limited.perProduct },
      ]);
      if (r.waitMs > 0) {
        const which = r.short === 0 ? "per key" : "per product";
        const b = r.short === 0 ? limited.perKey : limited.perProduct;
        this.metrics?.limited.inc({
          product: name,
          method: p.method,
          limit: r.short === 0 ? "per_key" : "per_product",
        });
        return fail(
          new GatewayError(
            "rateLimited",
            `${p.method} ${which} on ${name} (${b.rate}/s, burst ${b.burst}); retry after ${Math.ceil(r.waitMs / 1000)} s`,
            Math.max(1, Math.ceil(r.waitMs / 1000)),
          ),
        );
      }
    }
    const plan = cachePlan(product.cfg.name, p.method, p.params, this.cfg.cache.safeDepth);
    if (plan && this.cfg.cache.maxBytes > 0) {
      const hit = await this.state.cacheGet(plan.key);
      const served = hit && plan.serve(hit, product.pool.bestHeight);
      if (served) {
        this.metrics?.cacheHits.inc({ product: product.cfg.name, method: p.method });
        return { status: 200, body: envelopeOk(id, served), outcome: "cached" };
      }
      this.metrics?.cacheMisses.inc({ product: product.cfg.name, method: p.method });
    }
    return { p, plan: this.cfg.cache.maxBytes > 0 ? plan : undefined };
  }

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
          Math.ceil(this.cfg.healthIntervalMs / 1000),
        );
      await this.state.setPin(pinKey, ep.url, this.cfg.scanTimeoutMs + 60_000);
      return ep;
    }
    const url = await this.state.getPin(pinKey);
    return url ? pool.byUrl.get(url)?.endpoint : undefined;
  }
  private readonly scanning = new Map<string, number>();

  /** One call forwarded: the node's answer bytes kept, its own error passed through with its status. */
  private async forwardOne(call: Call, p: Prepared, plan: CachePlan | undefined, ctx: Ctx): Promise<Answer> {
    const id = call.id ?? "null";
    const pool = ctx.product.pool;
    const pinned = await this.scanTarget(p, ctx);
    if (pinned instanceof GatewayError) return gatewayAnswer(pinned, id);
    const endpoints = pinned ? [pinned] : pool.rotation();
    if (endpoints.length === 0)
      return gatewayAnswer(
        new GatewayError(
          "noUpstream",
          `product ${ctx.product.cfg.name}`,
          Math.max(1, Math.ceil(this.cfg.healthIntervalMs / 1000)),
        ),
        id,
      );
    const moves = moveCounter();
    const timeoutMs = p.long ? this.cfg.scanTimeoutMs : this.cfg.requestTimeoutMs;
    // an idempotent read that another upstream could answer gets a deadline per attempt: the reads held by a
    // hung node move to a healthy one within attemptTimeout, not after the whole request timeout
    const attemptMs =
      p.marks.idempotent && !pinned && !p.long && endpoints.length > 1
        ? Math.min(timeoutMs, this.cfg.attemptTimeoutMs)
        : timeoutMs;
    const reqId = pool.newId();
    const body = stringifyLossless({ jsonrpc: "2.0", id: reqId, method: p.method, params: p.params });
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
      const moved = quickMoved + moves.moved;
      if (moved) this.metrics?.failovers.inc({ product: ctx.product.cfg.name }, moved);
      return this.forwarded(value, endpoint, id, plan, ctx);
    } catch (e) {
      const moved = quickMoved + moves.moved;
      if (moved) this.metrics?.failovers.inc({ product: ctx.product.cfg.name }, moved);
      return gatewayAnswer(upstreamError(e), id);
    } finally {
      if (pinned && p.long) {
        const n = (this.scanning.get(pinned.url) ?? 1) - 1;
        if (n > 0) this.scanning.set(pinned.url, n);
        else this.scanning.delete(pinned.url);
      }
    }
  }

  /** A forwarded call's answer: the node's error as it sent it, or its result (stored when cacheable). */
  private async forwarded(
    value: Forwarded,
    endpoint: Endpoint,
    id: string,
    plan: CachePlan | undefined,
    ctx: Ctx,
  ): Promise<Answer> {
    const pool = ctx.product.pool;
    if (value.error !== undefined)
      return {
        status: value.status,
        body: envelopeErr(id, value.error),
        outcome: "node_error",
        upstream: endpoint.label,
      };
    const raw = value.raw ?? "null";
    let served: Buffer | undefined;
    if (plan?.storable(raw, pool.bestHeight)) {
      const bytes = Buffer.from(raw, "utf8");
      await this.state.cacheSet(plan.key, bytes);
      served = plan.serve(bytes, pool.bestHeight);
    }
    return { status: 200, body: envelopeOk(id, served ?? raw), outcome: "ok", upstream: endpoint.label };
  }

  /** Calls of a batch forwarded as arrays (the CLI's batch path: per-entry failover by the marks). */
  private async forwardMany(
    list: { call: Call; p: Prepared; plan?: CachePlan }[],
    ctx: Ctx,
  ): Promise<Answer[]> {
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
                    Math.max(1, Math.ceil(this.cfg.healthIntervalMs / 1000)),
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
              if (moves.moved) this.metrics?.failovers.inc({ product: ctx.product.cfg.name }, moves.moved);
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
                      await this.state.cacheSet(f.plan.key, raw);
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

  private async operations(path: string, res: ServerResponse): Promise<void> {
    if (path === "/healthz") return this.send(res, { status: 200, body: J({ status: "ok" }) });
    if (path === "/readyz") {
      const products: Record<string, unknown> = {};
      let ready = true;
      for (const [name, p] of this.products) {
        const up = p.pool.upstreams.filter((u) => u.inRotation).length;
        if (up === 0) ready = false;
        products[name] = {
          healthy: up,
          upstreams: p.pool.upstreams.map((u) => ({
            upstream: u.endpoint.label,
            healthy: u.inRotation,
            height: u.height ?? null,
            ...(u.lastProblem ? { problem: u.lastProblem } : {}),
          })),
        };
      }
      // a shared state that does not answer is said, not fatal: the process serves from its own memory
      return this.send(res, {
        status: ready && !this.closing ? 200 : 503,
        body: J({
          ready: ready && !this.closing,
          products,
          state: { kind: this.state.kind, up: this.state.up },
        }),
      });
    }
    if (!this.metrics) return this.send(res, { status: 404, body: J({ error: "metrics are off" }) });
    // a worker answers for the whole gateway (the primary's sum); its own alone if the primary is gone
    const text = (await this.opts.worker?.metrics()) ?? (await this.metrics.registry.metrics());
    res.writeHead(200, {
      "content-type": this.metrics.registry.contentType,
      "content-length": Buffer.byteLength(text),
    });
    res.end(text);
  }

  /** The body, or undefined when it passes the cap (then the rest is not read). */
  private readBody(req: IncomingMessage): Promise<Buffer | undefined> {
    const cap = this.cfg.maxBodyBytes;
    const declared = Number(req.headers["content-length"] ?? -1);
    if (declared > cap) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let over = false;
      req.on("data", (c: Buffer) => {
        if (over) return;
        size += c.length;
        if (size > cap) {
          over = true;
          resolve(undefined);
        } else chunks.push(c);
      });
      req.on("end", () => over || resolve(Buffer.concat(chunks, size)));
      req.on("error", reject);
    });
  }
}

type Ctx = { product: Product; keyId: string; signal: AbortSignal };

const signals = new WeakMap<Socket, AbortSignal>();
/** Aborted when the client's connection closes (it hung up, or the answer was its last). */
function connectionSignal(socket: Socket): AbortSignal {
  let signal = signals.get(socket);
  if (!signal) {
    const ac = new AbortController();
    socket.once("close", () => ac.abort());
    signal = ac.signal;
    signals.set(socket, signal);
  }
  return signal;
}

/** `/v1/<product>` and no further ("/…" marks that more was there); other paths by their first segment. */
export function loggedPath(path: string): string {
  const m = /^(\/v1\/[^/]*)(\/.*)?$/.exec(path);
  if (m) return `${m[1]}${m[2] && m[2] !== "/" ? "/…" : ""}`;
  const first = /^\/[^/]{0,32}/.exec(path)?.[0] ?? "/";
  return first.length < path.length ? `${first}…` : first;
}

/** Redis as the shared state, or bad usage naming it (credentials hidden). */
async function connectState(url: string, cacheMaxBytes: number, log?: (l: string) => void) {
  return RedisState.connect(url, cacheMaxBytes, log ?? (() => {})).catch((e: unknown) => {
    throw new UsageError(
      `--state: cannot reach ${url.replace(/\/\/[^@]*@/, "//***@")}: ${(e as Error).message}`,
    );
  });
}

/**
 * What `Gateway.start` refuses before it serves, checked without serving (`serve --workers`' primary, before
 * any worker starts; again on SIGHUP with `reload`, where the address is the running one's).
 */
export async function checkServe(opts: ServeOptions, reload = false): Promise<void> {
  const cfg = loadGatewayConfig(opts.configFile, { listen: opts.listen }, opts.secrets);
  readKeys(cfg.keysFile);
  if (reload) return;
  await probeListen(cfg.host, cfg.port);
  if (opts.stateUrl) await (await connectState(opts.stateUrl, 0)).close();
}

/** A listen failure as bad usage naming the address (exit 2). */
function listenError(host: string, port: number, e: unknown): UsageError {
  const code = (e as NodeJS.ErrnoException).code;
  const why =
    code === "EADDRINUSE"
      ? "the address is in use (another process listens there)"
      : code === "EACCES"
        ? "not allowed (ports below 1024 need privileges)"
        : code === "EADDRNOTAVAIL"
          ? "no interface of this machine has that address"
          : (e as Error).message;
  return new UsageError(`--listen ${host}:${port}: ${why}; nothing was started`);
}

/** Binds and releases the address once, so a busy port is refused before anything starts. */
async function probeListen(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const { createServer: tcp } = await import("node:net");
  const s = tcp();
  await new Promise<void>((resolve, reject) => {
    s.once("error", (e) => reject(listenError(host, port, e)));
    s.listen(port, host, () => resolve());
  });
  await new Promise<void>((r) => s.close(() => r()));
}
/** An upstream's answer to one forwarded call: the result's bytes, or the node's error object as it sent it. */
type Forwarded = { status: number; raw?: string; error?: string };

/** A failure of the upstreams, as the gateway's answer: 504 for a timeout, else 502. */
function upstreamError(e: unknown): GatewayError {
  if (e instanceof GatewayError) return e;
  if (e instanceof TransportError) {
    const timedOut = e.timedOut || /no complete answer within|timed out|timeout/.test(e.message);
    return new GatewayError(timedOut ? "timeout" : "upstreamFailed", e.message);
  }
  if (e instanceof ChaingwError) return new GatewayError("upstreamFailed", e.message);
  throw e;
}

/**
 * Methods a product forwards beyond its group's registry definitions: the calls the registry itself
 * makes on that group (the chain's tip method, `--range`'s height-to-hash lookup) with their marks, and
 * the product's allow list (no marks: never moved after a failure that may have reached a node).
 */
function extraMethods(p: ProductConfig): Map<string, { idempotent: boolean; heavy: boolean }> {
  const m = new Map<string, { idempotent: boolean; heavy: boolean }>();
  const chain = chainOf(p.chain);
  if (chain.tip) m.set(chain.tip.method, { idempotent: true, heavy: false });
  for (const name of methodNames()) {
    const def = definitions(name).find((d) => d.group === p.chain);
    // the range's helper call (getblockhash) is a registry method of the group; only one outside it is extra
    const via = def?.range && "via" in def.range ? def.range.via : undefined;
    if (via && !definitions(via).some((d) => d.group === p.chain))
      m.set(via, { idempotent: true, heavy: false });
  }
  for (const a of p.allow) if (!m.has(a)) m.set(a, UNKNOWN_MARKS);
  return m;
}

/** eth_getLogs: how many blocks a filter spans (tags read against the best height); undefined: cannot tell. */
function logsRange(filter: unknown, best: number | undefined): number | undefined {
  if (!isJsonObject(filter)) return best === undefined ? undefined : 1;
  const f = filter as Record<string, unknown>;
  if (typeof f.blockHash === "string") return 1;
  const at = (v: unknown): number | undefined => {
    if (
      v === undefined ||
      v === null ||
      v === "latest" ||
      v === "pending" ||
      v === "safe" ||
      v === "finalized"
    )
      return best;
    if (v === "earliest") return 0;
    if (typeof v === "string" && /^0x[0-9a-fA-F]{1,15}$/.test(v)) return Number.parseInt(v, 16);
    return undefined;
  };
  const from = at(f.fromBlock);
  const to = at(f.toBlock);
  if (from === undefined || to === undefined) return undefined;
  return to - from + 1;
}
