/**
 * `chaingw serve`: the gateway of the spec, POST /v1/{product_id}, in front of a product's node upstreams.
 *
 * The path of one call (this file: HTTP, route, key, body; envelope.ts: the request read; admission.ts:
 * checks, limits, cache; forward.ts: the upstreams): route and key (401/403) → body within the size cap (413) → JSON (-32700) →
 * envelope (-32600) → the method in the product's group of the registry, or its allow list (-32601) →
 * the registry's param checks, the same `prepare` step the CLI runs (-32602 naming the parameter) →
 * eth_getLogs range cap → heavy-method token buckets (429 + Retry-After) → cache → the failover client,
 * whose marks decide what may move to another upstream. Nothing refused before the last step touches a
 * node. A node's own JSON-RPC error is its answer: passed through, with its HTTP status, unchanged.
 */
import { createServer, type Server } from "node:http";
import { createServer as createNetServer, type Server as NetServer, type Socket } from "node:net";
import { groupOf } from "../chains/index.js";
import type { JsonValue } from "../json/lossless.js";
import type { Prepared } from "../methods/prepare.js";
import type { Secrets } from "../util/redact.js";
import {
  type Admitted,
  admit,
  type Checked,
  type Ctx,
  check,
  extraMethods,
  fromCache,
  type GatewayParts,
  methodLabel,
  type Product,
  takeBatch,
} from "./admission.js";
import type { CachePlan } from "./cache.js";
import { type GatewayConfig, loadGatewayConfig } from "./config.js";
import {
  type Answer,
  bodyText,
  type Call,
  gatewayAnswer,
  idOf,
  isAnswered,
  J,
  parseRequest,
  readCall,
  readCallText,
} from "./envelope.js";
import { GatewayError } from "./errors.js";
import { Forwarder } from "./forward.js";
import {
  AccessLine,
  basicCredentials,
  bind,
  connectionSignal,
  type Exchange,
  NodeExchange,
  pathInfo,
  pathOnly,
} from "./http.js";
import { KeyRing, readKeys } from "./keys.js";
import { Lane } from "./lane.js";
import type { Metrics } from "./metrics.js";
import { OPS_PATHS, type OpsView, operations, opsServer } from "./ops.js";
import { connectState, probeListens } from "./preflight.js";
import { MemoryState, type SharedState } from "./state.js";
import { Pool } from "./upstreams.js";

export { loggedPath } from "./http.js";
export { checkServe } from "./preflight.js";

/** The key each connection last presented, and who it was, per key ring. */
const knownKeys = new WeakMap<
  Socket,
  { ring: KeyRing; presented: string; who: ReturnType<KeyRing["find"]> }
>();

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

export class Gateway implements GatewayParts, OpsView {
  cfg!: GatewayConfig;
  private keys!: KeyRing;
  products = new Map<string, Product>();
  private server?: NetServer;
  private readonly sockets = new Set<Socket>();
  private inflight = 0;
  private drained?: () => void;
  closing = false;
  metrics?: Metrics;
  url = "";
  /** forwarding, with the scans of ours each upstream runs */
  private readonly forward = new Forwarder(this);

  private constructor(
    readonly opts: ServeOptions,
    readonly state: SharedState,
  ) {}

  static async start(opts: ServeOptions): Promise<Gateway> {
    const cfg = loadGatewayConfig(opts.configFile, { listen: opts.listen }, opts.secrets);
    // a busy address is bad usage, said before anything starts (no shared state, no health checks); a
    // worker's primary said it already, and holds the address for all of them
    if (!opts.worker) await probeListens(cfg);
    const state: SharedState = opts.stateUrl
      ? await connectState(opts.stateUrl, cfg, opts.log)
      : (opts.worker?.state?.(cfg.cache.maxBytes) ?? new MemoryState(cfg.cache.maxBytes));
    const gw = new Gateway(opts, state);
    if (opts.metrics !== false) {
      const [{ prom }, { Metrics }] = await Promise.all([import("./vendor.js"), import("./metrics.js")]);
      gw.metrics = new Metrics(
        prom,
        () => state.cacheBytes,
        () => state.up,
        () => state.pendingDrops?.() ?? new Map(),
      );
    }
    await gw.apply(cfg);
    await gw.listen();
    return gw;
  }

  /**
   * Takes a config (start, SIGHUP): the keys at once (a revoked key is refused from now on, not after the
   * new pools' first checks), then the products and their pools once their first checks are done; the
   * listen address stays as it was. One at a time (`reload` queues them).
   */
  private async apply(cfg: GatewayConfig): Promise<void> {
    const keys = new KeyRing(readKeys(cfg.keysFile));
    this.keys = keys;
    const log = this.opts.log ?? (() => {});
    const products = new Map<string, Product>();
    for (const [name, p] of cfg.products) {
      // the product's cached answers, dropped when its chain changes (keys carry the chain: shared ones are
      // unreachable then; this process's are freed)
      const pool = new Pool(p, cfg, this.metrics, log, {
        drop: () => this.state.cacheDrop(`${name}|`),
        claims: (scope, limit) => this.state.cacheClaims(scope, limit),
        dropAbove: (scope, height, shared) => this.state.cacheDropAbove(scope, height, shared),
      });
      products.set(name, { cfg: p, pool, extra: extraMethods(p) });
    }
    // the first round of checks before any request: a dead upstream is out of the rotation from the start
    await Promise.all([...products.values()].map((p) => p.pool.check()));
    if (this.closing) {
      for (const p of products.values()) p.pool.retire();
      return;
    }
    for (const p of products.values()) p.pool.start();
    const old = this.products;
    this.cfg = cfg;
    this.products = products;
    // requests in flight keep the old pools they hold; their connections close when those are done
    for (const p of old.values()) p.pool.retire();
  }

  /** The config file as it is now, for a reload (the listen address stays the running one). */
  private loadConfig(): GatewayConfig {
    return loadGatewayConfig(
      this.opts.configFile,
      { listen: `${this.cfg.host}:${this.cfg.port}` },
      this.opts.secrets,
    );
  }

  /** the reload under way (its first checks can take up to health.timeout), and the newest one asked */
  private reloading?: Promise<void>;
  private reloadsAsked = 0;

  /**
   * SIGHUP: config and keys read again; requests in flight finish on what they started with. One reload at
   * a time: one asked while another is under way waits for it, then reads the files as they are then; of
   * several waiting, the newest alone runs ("superseded" for the others). So an older reload whose first
   * checks were slow never finishes after a newer one and brings back what the newer one removed.
   */
  async reload(): Promise<"reloaded" | "superseded"> {
    const asked = ++this.reloadsAsked;
    // the keys at once, even while another reload waits for its checks: a revoked key is refused from now on
    this.keys = new KeyRing(readKeys(this.loadConfig().keysFile));
    if (this.reloading)
      this.opts.log?.("reload asked while one is under way: it follows that one, reading the files then");
    while (this.reloading) await this.reloading.catch(() => {});
    if (asked !== this.reloadsAsked) return "superseded";
    const run = (async () => {
      const cfg = this.loadConfig();
      await this.apply(cfg);
      this.opts.log?.(
        `reloaded ${this.opts.configFile}: ${cfg.products.size} products, ${this.keys.size} keys`,
      );
    })();
    this.reloading = run;
    try {
      await run;
    } finally {
      this.reloading = undefined;
    }
    return "reloaded";
  }

  private async listen(): Promise<void> {
    /** one request, node's or the lane's: `end` once, with no argument when its answer went out, else the error */
    const serve = (ex: Exchange) => {
      this.inflight++;
      // every path through handle calls `end` once (whatever it fails with: a promise rejected with
      // undefined is a failure too)
      let ended = false;
      const end = (...failed: unknown[]) => {
        if (ended) return;
        ended = true;
        if (failed.length > 0) {
          const e = failed[0];
          this.opts.log?.(`internal error: ${(e as Error)?.stack ?? String(e)}`);
          if (!ex.headersSent) ex.send(gatewayAnswer(new GatewayError("internal")), this.closing);
          else ex.destroy();
        }
        if (--this.inflight === 0) this.drained?.();
      };
      try {
        this.handle(ex, end);
      } catch (e) {
        end(e);
      }
    };
    // node's HTTP server reads what the lane does not take (it never listens itself: the lane hands it
    // connections); the operations pages are served there
    const http = createServer({ keepAliveTimeout: KEEP_ALIVE_MS }, (req, res) =>
      serve(new NodeExchange(req, res)),
    );
    // its connection tracking (headers and request timeouts, idle connections) starts on `listening`
    http.emit("listening");
    this.http = http;
    this.lane = new Lane(http, serve, () => this.cfg.maxBodyBytes, KEEP_ALIVE_MS);
    const server = createNetServer(this.lane.connection);
    const track = (s: Socket) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    };
    server.on("connection", track);
    this.url = await bind(server, this.cfg.host, this.cfg.port);
    this.server = server;
    const ops = this.cfg.ops;
    if (ops) {
      this.opsServer = opsServer(this);
      this.opsServer.on("connection", track);
      this.opsUrl = await bind(this.opsServer, ops.host, ops.port);
    }
  }
  private http?: Server;
  private lane?: Lane;
  private opsServer?: Server;
  /** /readyz and /metrics when on their own address (`opsListen`) */
  opsUrl?: string;

  /** SIGTERM: stop accepting, let the requests in flight finish (at most `graceMs`), close. */
  async close(graceMs = 30_000): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const closed = new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
    this.opsServer?.close();
    this.http?.close();
    this.lane?.stop();
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

  /** a worker's: the whole gateway's /metrics (the primary's sum) */
  get workerMetrics(): (() => Promise<string | undefined>) | undefined {
    return this.opts.worker?.metrics;
  }

  get productNames(): string[] {
    return [...this.products.keys()];
  }

  /**
   * One HTTP request: operations, or route and key, the body read, then the call or the batch answered;
   * `end` once it is. The common single call goes through callbacks, not promises (each await on every
   * request's path was a measurable share of its cost); a batch, anything unusual and anything that has to
   * wait (limits, the cache, a scan's pin, the failover loop) take promises.
   */
  private handle(ex: Exchange, end: (...failed: unknown[]) => void): void {
    const t0 = performance.now();
    const path = pathOnly(ex.url);
    // with opsListen, /readyz and /metrics are served there only (/healthz on both); the lane takes no GET
    if (
      ex instanceof NodeExchange &&
      ex.method === "GET" &&
      OPS_PATHS.has(path) &&
      (!this.cfg.ops || path === "/healthz")
    ) {
      ex.discard();
      operations(this, path, ex.res).then(() => end(), end);
      return;
    }
    // the path only up to the product: a key put in the path (/v1/ltc/<KEY>) never reaches the log
    const info = pathInfo(path);
    const log = new AccessLine(info.logged, this.opts.worker?.slot);
    const done = (a: Answer, extra?: Record<string, string>) => {
      try {
        // a client that hung up before its answer: nginx's 499, nothing written
        const gone = ex.gone();
        if (!gone) ex.send(a, this.closing, extra);
        log.status = gone ? 499 : a.status;
        if (gone) log.outcome = "client_closed";
        else log.outcome ??= a.outcome;
        if (a.upstream) log.upstream ??= a.upstream;
        log.ms = Math.round((performance.now() - t0) * 100) / 100;
        this.opts.accessLog?.(log.text());
      } catch (e) {
        end(e);
      }
      end();
    };
    /** an answer now, or once its promise settles */
    const answer = (a: Answer | Promise<Answer>) => {
      if (a instanceof Promise) a.then(done, end);
      else done(a);
    };
    const cap = this.cfg.maxBodyBytes;
    const routed = this.route(ex, path, info.product, log);
    if (routed instanceof GatewayError) {
      const extra = routed.kind === "notPost" ? { allow: "POST" } : undefined;
      if (ex.method !== "POST") {
        ex.discard();
        done(gatewayAnswer(routed), extra);
      }
      // the body read all the same (within the cap), so the refusal carries the request's id
      // (a refused client's body is read only so far: past it, the id is null and the rest drained)
      else
        ex.body(
          Math.min(cap, 65_536),
          (body) => done(gatewayAnswer(routed, idOf(body)), extra),
          () => done(HUNG_UP),
        );
      return;
    }
    ex.body(
      cap,
      (body) => {
        try {
          const text = bodyText(body, cap);
          if (text instanceof GatewayError) return done(gatewayAnswer(text));
          // one signal per connection, not per request: HTTP/1.1 answers a connection's requests one at a
          // time, so a connection that closes early closes on the request in flight
          const ctx = { product: routed.product, keyId: routed.keyId, signal: connectionSignal(ex.socket) };
          // the common single request by the span reader; a batch, or anything unusual, by the full parser
          const call = readCallText(text);
          if (!call) return answer(this.unusual(text, ctx, log));
          const label = methodLabel(routed.product, call.method);
          log.method = label;
          this.runOne(call, label, ctx, (a) =>
            answer(call.id !== undefined ? a : a instanceof Promise ? a.then(notified) : notified(a)),
          );
        } catch (e) {
          end(e);
        }
      },
      // the client hung up mid-body: one line, one count, no error of ours
      () => {
        this.metrics?.requests.inc({
          product: routed.product.cfg.name,
          method: "unread",
          outcome: "client_closed",
        });
        done(HUNG_UP);
      },
    );
  }

  /** A request the span reader left to the full parser: a batch, or a single call written unusually. */
  private async unusual(text: string, ctx: Ctx, log: AccessLine): Promise<Answer> {
    const parsed = parseRequest(text);
    if (parsed instanceof GatewayError) return gatewayAnswer(parsed);
    if (Array.isArray(parsed)) return this.answerBatch(parsed, ctx, log);
    const call = readCall(parsed, legacyOk(ctx));
    if (call instanceof GatewayError) return gatewayAnswer(call);
    const label = methodLabel(ctx.product, call.method);
    log.method = label;
    const a = await new Promise<Answer>((resolve) => this.runOne(call, label, ctx, resolve));
    return call.id === undefined ? notified(a) : a;
  }

  /**
   * Route and key: the product of the path (404), POST (405), a key (401) that may use the product (403).
   * The key is the X-API-Key header, else the password of HTTP Basic auth; a POST to `/` with Basic auth
   * goes to the product its user names — what bitcoin-cli / litecoin-cli send (`-rpcuser=PRODUCT
   * -rpcpassword=KEY`), which can set neither a header nor a path.
   */
  private route(
    ex: Exchange,
    path: string,
    productName: string | undefined,
    log: AccessLine,
  ): { product: Product; keyId: string } | GatewayError {
    const basic = basicCredentials(ex.header("authorization"));
    const name = productName ?? (path === "/" ? basic?.user : undefined);
    const product = name !== undefined && this.products.has(name) ? this.products.get(name) : undefined;
    if (!product) {
      if (productName !== undefined) log.path = "/v1/…";
      return new GatewayError(
        "notFound",
        // neither the path nor the name in it said back: a key pasted there would be
        "the path is not /v1/{product_id} of a product served here",
      );
    }
    log.product = product.cfg.name;
    if (ex.method !== "POST") return new GatewayError("notPost");
    const header = ex.header("x-api-key");
    const presented = header !== undefined && header !== "" ? header : basic?.password;
    if (!presented) return new GatewayError("noKey");
    const who = this.keyOf(ex.socket, presented);
    if (!who) return new GatewayError("badKey");
    log.key_id = who.id;
    if (!who.products.has(product.cfg.name)) return new GatewayError("forbidden", J(product.cfg.name));
    return { product, keyId: who.id };
  }

  /** A batch: its size checked, each entry answered, the answers of the entries that get one, as one array. */
  private async answerBatch(list: JsonValue[], ctx: Ctx, log: AccessLine): Promise<Answer> {
    log.method = `batch(${list.length})`;
    if (list.length === 0) return gatewayAnswer(new GatewayError("invalidRequest", "empty batch"));
    if (list.length > this.cfg.maxBatch)
      return gatewayAnswer(
        new GatewayError("batchTooLarge", `${list.length} requests, at most ${this.cfg.maxBatch}`),
      );
    const answers = await this.batch(list, ctx);
    // a batch whose limited entries the buckets cannot cover: refused whole (429, Retry-After), nothing run
    if (!Array.isArray(answers)) {
      log.outcome = answers.outcome;
      this.metrics?.requests.inc({
        product: ctx.product.cfg.name,
        method: "batch",
        outcome: answers.outcome,
      });
      return answers;
    }
    const outcomes = new Map<string, number>();
    for (const a of answers) outcomes.set(a.outcome, (outcomes.get(a.outcome) ?? 0) + 1);
    const outcome = [...outcomes].map(([k, n]) => `${k}:${n}`).join(",");
    log.outcome = outcome;
    const ups = [...new Set(answers.map((a) => a.upstream).filter(Boolean))];
    if (ups.length) log.upstream = ups.join(",");
    const bodies = answers.filter((a, i) => a.body && isAnswered(list, i)).map((a) => a.body);
    if (bodies.length === 0) return { status: 204, body: "", outcome };
    const parts: Buffer[] = [Buffer.from("[")];
    bodies.forEach((b, i) => {
      if (i) parts.push(Buffer.from(","));
      parts.push(typeof b === "string" ? Buffer.from(b) : b);
    });
    parts.push(Buffer.from("]"));
    return { status: 200, body: Buffer.concat(parts), outcome };
  }

  /**
   * Who a presented key is: hashed and compared once per connection and key ring (a client sends the same
   * key on every request of a kept-alive connection; a reload's new ring is asked afresh).
   */
  private keyOf(socket: Socket, presented: string): ReturnType<KeyRing["find"]> {
    const seen = knownKeys.get(socket);
    if (seen && seen.ring === this.keys && seen.presented === presented) return seen.who;
    const who = this.keys.find(presented);
    knownKeys.set(socket, { ring: this.keys, presented, who });
    return who;
  }

  private async batch(list: JsonValue[], ctx: Ctx): Promise<Answer[] | Answer> {
    const lg = legacyOk(ctx);
    const calls = list.map((e) => readCall(e, lg));
    const good = calls.filter((c): c is Call => !(c instanceof GatewayError));
    const answers = await this.run(good, ctx);
    if (!Array.isArray(answers)) return answers;
    let j = 0;
    return calls.map((c) => (c instanceof GatewayError ? gatewayAnswer(c) : answers[j++]));
  }

  /** One call checked, then forwarded if it passed; its counted answer to `settle` (at once, or a promise). */
  private runOne(call: Call, label: string, ctx: Ctx, settle: (a: Answer | Promise<Answer>) => void): void {
    const checked = admit(this, call, ctx);
    if (checked instanceof Promise)
      settle(
        checked.then((c) => new Promise<Answer>((resolve) => this.admitted(call, c, label, ctx, resolve))),
      );
    else this.admitted(call, checked, label, ctx, settle);
  }

  /** An admitted call: refused or answered by admission, else forwarded; counted either way. */
  private admitted(
    call: Call,
    c: Admitted,
    label: string,
    ctx: Ctx,
    settle: (a: Answer | Promise<Answer>) => void,
  ): void {
    if ("status" in c) settle(this.counted(c, label, ctx));
    else
      this.forward.forward(call, c.p, c.plan, ctx, (a) =>
        settle(
          a instanceof Promise ? a.then((x) => this.counted(x, label, ctx)) : this.counted(a, label, ctx),
        ),
      );
  }

  /**
   * Checks each call of a batch, takes the limits of its limited calls as a whole (all admitted, or the
   * batch refused: the Answer alone), then forwards those that passed (as arrays, or alone).
   */
  private async run(calls: Call[], ctx: Ctx): Promise<Answer[] | Answer> {
    const out: (Answer | Promise<Answer>)[] = new Array(calls.length);
    const forward: { i: number; call: Call; p: Prepared; plan?: CachePlan }[] = [];
    const checks = calls.map((call) => check(this, call, ctx));
    const refused = await takeBatch(
      this,
      checks.filter((c): c is Exclude<Checked, Answer> => !("status" in c)),
      ctx,
    );
    if (refused) return gatewayAnswer(refused);
    for (const [i, call] of calls.entries()) {
      const c = checks[i] as Checked;
      // awaited only when the cache has to be asked: a tick per entry otherwise
      let checked = "status" in c ? c : fromCache(this, c.p, ctx, call);
      if (checked instanceof Promise) checked = await checked;
      if ("status" in checked) out[i] = checked;
      else forward.push({ i, call, ...checked });
    }
    if (forward.length === 1) {
      const f = forward[0];
      out[f.i] = this.forward.forwardOne(f.call, f.p, f.plan, ctx);
    } else if (forward.length) {
      const answered = await this.forward.forwardMany(forward, ctx);
      for (const [k, f] of forward.entries()) out[f.i] = answered[k];
    }
    const list = await Promise.all(out);
    return list.map((a, i) => this.counted(a, methodLabel(ctx.product, calls[i].method), ctx));
  }

  /**
   * A call's answer counted in /metrics; a client that went away is its own outcome (nginx's 499), not an
   * upstream failure that pages people.
   */
  private counted(a: Answer, label: string, ctx: Ctx): Answer {
    // its answer cannot reach it, whatever it was
    const b = ctx.signal.aborted ? { ...a, status: 499, outcome: "client_closed" } : a;
    this.metrics?.requests.inc({ product: ctx.product.cfg.name, method: label, outcome: b.outcome });
    return b;
  }
}

/** How long a kept-alive client connection may idle (node's server and the lane alike). */
const KEEP_ALIVE_MS = 65_000;

/** The product's group takes JSON-RPC 1.0-style requests (bitcoind's), as its nodes do. */
const legacyOk = (ctx: Ctx): boolean => groupOf(ctx.product.cfg.chain).legacyEnvelopes;

/** What a client that hung up before its answer is logged and counted as (nginx's 499). */
const HUNG_UP: Answer = { status: 499, body: "", outcome: "client_closed" };

/** A notification's answer: nothing (204), whatever became of the call. */
const notified = (a: Answer): Answer => ({ ...a, status: 204, body: "" });
