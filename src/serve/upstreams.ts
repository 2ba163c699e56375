/**
 * A product's upstreams: which are in the rotation (health checks on an interval: the chain's tip method;
 * an upstream that fails, or lags more than maxLag blocks behind the best, leaves it and returns when
 * healthy), how many requests each has at work (a cap per upstream: litecoind's work queue is 16 deep),
 * and a client over the healthy ones for each call. The failover itself is the CLI's own client
 * (src/rpc/client.ts), so the gateway and the CLI move or keep a call by the same marks.
 */

import { groupOf } from "../chains/index.js";
import { TransportError } from "../errors/index.js";
import { quantityOf } from "../json/lossless.js";
import { callBatch } from "../rpc/batch.js";
import { type Attempted, type BatchEntry, type CallResult, JsonRpcClient } from "../rpc/client.js";
import type { Endpoint } from "../rpc/endpoint.js";
import { JSON_HEADERS } from "../rpc/http.js";
import { Slots } from "../rpc/slots.js";
import { WirePool } from "../rpc/wire.js";
import type { GatewayConfig, ProductConfig } from "./config.js";
import type { Metrics, TimingCell } from "./metrics.js";
import { CHECK_MARKS, hashCall, hashIn, walkClaims } from "./reorg.js";
import type { Claims } from "./state.js";
import { GATEWAY_WORDS, GatewayTransport, MAX_ANSWER_BYTES } from "./transport.js";

export class Upstream {
  /** undefined until the first check: counted as healthy, so a fresh gateway serves at once */
  healthy: boolean | undefined;
  /** health checks failed in a row (0 after one that answered) */
  failedChecks = 0;
  /** the last check reached the node (it answered, if with an error): it is alive, if busy */
  reached = false;
  height?: number;
  lastProblem?: string;
  /** the chain it reported (its genesis hash), read at every check beside its tip */
  identity?: string;
  /**
   * A block it reported, as high as any cached answer it gave may depend on: asked again at every check,
   * another hash there (or no block) is a reorg below it, and the cache's entries above the fork go.
   */
  anchor?: { height: number; hash: string };
  /** it reports another chain than its product's: out of the rotation, named */
  otherChain?: string;
  /**
   * its kept-alive connections for the quick path (plain HTTP, made on first use); null: the quick path is
   * not taken (TLS, or a header that cannot be written as it is)
   */
  wire?: WirePool | null;
  /** its /metrics series, bound on first use */
  series?: { inflight: { value: number }; seconds: TimingCell };
  private readonly slots: Slots;
  /** its host:port and host, as a failure's text may name them (node's "connect ECONNREFUSED host:port") */
  readonly hosts: string[];
  constructor(
    readonly endpoint: Endpoint,
    readonly maxConcurrency: number,
    /** what clients are told it is (config.ts: the operator's name, else "upstream N") */
    readonly told: string = endpoint.label,
  ) {
    this.slots = new Slots(maxConcurrency);
    const u = new URL(endpoint.url);
    this.hosts = [u.host, u.hostname.replace(/^\[|\]$/g, "")];
  }
  get inRotation(): boolean {
    return this.healthy !== false;
  }
  /** A slot of the concurrency cap; waits in line (bounded by the request's own timeout and signal). */
  acquire(opts: { signal?: AbortSignal; requestTimeoutMs: number }): Promise<void> {
    return this.slots.acquire(opts, (ms) => `all ${this.maxConcurrency} slots busy for ${ms} ms`);
  }
  /** A free slot taken at once, or false (then `acquire` waits in line). */
  tryAcquire(): boolean {
    return this.slots.tryAcquire();
  }
  release(): void {
    this.slots.release();
  }
  /** requests at work on this upstream now */
  get inflight(): number {
    return this.slots.inUse;
  }
}

/** What one upstream's check saw: its tip, and its anchor block's hash now (null: no block there). */
interface Seen {
  height: number;
  atAnchor?: string | null;
}

/** The product's cache, as its health checks act on it. */
export interface PoolCache {
  /** the product's chain changed: all of it */
  drop(): void;
  claims(scope: string, heights: number): Promise<Claims>;
  /** `shared`: the height for the shared store's entries, when not `height` (-1: its records unread) */
  dropAbove(scope: string, height: number, shared?: number): Promise<number>;
}
const NONE = { claims: [], all: true, read: true };
const NO_CACHE: PoolCache = { drop() {}, claims: async () => NONE, dropAbove: async () => 0 };

/** an IPv4 or bracketed IPv6 address, with its port: never told to a client */
const ADDRESS = /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b|\[[0-9A-Fa-f:.]+\](?::\d+)?/g;

/** Failed health checks in a row that take an upstream out of the rotation. */
export const FAILED_CHECKS_TO_LEAVE = 3;
/** A check brought forward by a failed exchange starts no sooner than this after the last one began. */
const RECHECK_GAP_MS = 200;

export class Pool {
  readonly upstreams: Upstream[];
  readonly byUrl = new Map<string, Upstream>();
  readonly transport: GatewayTransport;
  /** the health checks' connections (their slots and timings counted as any exchange's) */
  private readonly checkTransport: GatewayTransport;
  private timer?: NodeJS.Timeout;
  private checking?: Promise<void>;
  private nextId = 1;
  /** ids of the gateway's own requests to this product's upstreams (answers are matched by them) */
  newId(): number {
    return this.nextId++;
  }
  /**
   * The chain the product's answers come from (its upstreams' genesis hash), undefined until read: the
   * cache's keys carry it, so nothing stored for one chain is served for another.
   */
  identity?: string;

  constructor(
    readonly product: ProductConfig,
    private readonly cfg: GatewayConfig,
    readonly metrics: Metrics | undefined,
    private readonly log: (line: string) => void,
    /** the product's cache: dropped when its chain changes, its entries above a reorg's fork dropped */
    private readonly cache: PoolCache = NO_CACHE,
  ) {
    this.upstreams = product.upstreams.map((u) => new Upstream(u.endpoint, u.maxConcurrency, u.told));
    for (const u of this.upstreams) this.byUrl.set(u.endpoint.url, u);
    this.transport = new GatewayTransport(this);
    this.checkTransport = new GatewayTransport(this, true);
  }

  /**
   * A node's own error object as a client gets it: unchanged, but for the credentials and URL secrets serve
   * sent it (an upstream that echoes the Authorization header or its own URL back).
   */
  readonly scrubbed = (errorJson: string): string => this.cfg.secrets.scrub(errorJson);

  /**
   * A text about the upstreams as /readyz and the logs may show it: each URL by its label, the credentials
   * and URL secrets serve holds scrubbed.
   */
  shown(text: string): string {
    let out = this.cfg.secrets.scrub(text);
    for (const u of this.upstreams) out = out.split(u.endpoint.url).join(u.endpoint.label);
    return out;
  }

  /**
   * A text about the upstreams as a client may be told it (a -32010/-32015 message): as `shown`, and each
   * upstream by its told name — no URL, host or address of the operator's network.
   */
  readonly told = (text: string): string => {
    let out = this.shown(text);
    // the later first: a label with " (2)" starts with the first one's
    for (let i = this.upstreams.length - 1; i >= 0; i--) {
      const u = this.upstreams[i] as Upstream;
      out = out.split(u.endpoint.label).join(u.told);
      for (const h of u.hosts) if (h) out = out.split(h).join(u.told);
    }
    return out.replace(ADDRESS, "(an address)");
  };

  /**
   * The upstream of `url` when the quick path may take its exchange: plain HTTP whose headers can be written
   * as they are (else every attempt goes through node's client).
   */
  quickUpstream(url: string): Upstream | undefined {
    const up = this.byUrl.get(url);
    if (!up) return undefined;
    if (up.wire === undefined)
      up.wire = WirePool.for(up.endpoint.url, { ...JSON_HEADERS, ...up.endpoint.headers }) ?? null;
    return up.wire ? up : undefined;
  }

  /**
   * The cache's namespace for this product: its name and chain; undefined (nothing cached) while a group
   * that names its chain has not named it yet.
   */
  get cacheScope(): string | undefined {
    const scope = this.scopeOfChain();
    // a chain named by its genesis: nothing cached until its records were compared with it (followReorgs)
    return scope === undefined || (this.identity !== undefined && this.compared !== scope)
      ? undefined
      : scope;
  }
  /** The cache's namespace for the product's chain as known, compared or not. */
  private scopeOfChain(): string | undefined {
    // made once per chain, not per call (asked on every cacheable call)
    const id = this.identity ?? (groupOf(this.product.chain).blockHash ? undefined : "-");
    if (id === undefined) return undefined;
    if (this.scope?.[0] !== id) this.scope = [id, `${this.product.name}|${id}`];
    return this.scope[1];
  }
  private scope?: [string, string];
  /**
   * The scope whose records from before this process followed its chain (Redis's: another replica's, or
   * this process's before a restart, or before the product left the chain and came back) were compared
   * with the chain: a reorg then left no anchor here to see it.
   */
  private compared?: string;

  /** The best tip height among the upstreams in the rotation (what "lagging" and "deep" are measured from). */
  get bestHeight(): number | undefined {
    let best: number | undefined;
    for (const u of this.upstreams)
      if (u.inRotation && u.height !== undefined && (best === undefined || u.height > best)) best = u.height;
    return best;
  }

  /** The upstreams in the rotation, in the configured order; those with a free slot first. */
  rotation(): Endpoint[] {
    // one array, no intermediate ones: asked on every call
    const out: Endpoint[] = [];
    for (const u of this.upstreams) if (u.inRotation && u.inflight < u.maxConcurrency) out.push(u.endpoint);
    for (const u of this.upstreams) if (u.inRotation && u.inflight >= u.maxConcurrency) out.push(u.endpoint);
    return out;
  }

  /** A client over `endpoints` (default: the rotation) on the pool's connections. */
  client(
    o: {
      endpoints?: Endpoint[];
      retries?: number;
      timeoutMs?: number;
      signal?: AbortSignal;
      onAttempt?: (a: Attempted) => void;
      transport?: GatewayTransport;
    } = {},
  ): JsonRpcClient {
    const timeout = o.timeoutMs ?? this.cfg.requestTimeoutMs;
    return new JsonRpcClient({
      endpoints: o.endpoints ?? this.rotation(),
      connectTimeoutMs: Math.min(2000, timeout),
      requestTimeoutMs: timeout,
      deadlineMs: timeout,
      retries: o.retries ?? 0,
      maxBodyBytes: MAX_ANSWER_BYTES,
      // the gateway's users set none of the CLI's flags: its limits in its own words, as the quick path's
      words: GATEWAY_WORDS,
      verifyTls: true,
      heavyRate: 0,
      pooled: true,
      transport: o.transport ?? this.transport,
      signal: o.signal,
      onAttempt: o.onAttempt,
    });
  }

  markDown(u: Upstream, why: string): void {
    if (u.healthy !== false)
      this.log(`upstream ${u.endpoint.label} of ${this.product.name} out of the rotation: ${why}`);
    u.healthy = false;
    u.lastProblem = why;
    this.metrics?.upstreamUp.set({ product: this.product.name, upstream: u.endpoint.label }, 0);
  }

  /**
   * One round of health checks: every upstream's tip and chain (its genesis hash) in one request (a batch
   * array; a node that refuses arrays is asked them singly from then on), then who lags and who is on
   * another chain.
   */
  check(): Promise<void> {
    this.checking ??= (async () => {
      this.lastCheck = Date.now();
      const seen = await Promise.all(this.upstreams.map((u) => this.checkOne(u)));
      this.judgeChains();
      // the new tips count (for "deep" and lag) only once the anchors are read: nothing is stored above
      // what they cover
      await this.followReorgs(seen);
      for (const [i, u] of this.upstreams.entries()) u.height = seen[i]?.height;
      let best: number | undefined;
      for (const u of this.upstreams)
        if (u.height !== undefined && !u.otherChain && (best === undefined || u.height > best))
          best = u.height;
      const verdicts = this.upstreams.map((u) => {
        if (u.otherChain) {
          u.lastProblem = u.otherChain;
          return false;
        }
        const lag = best !== undefined && u.height !== undefined ? best - u.height : 0;
        const failed = u.lastProblem !== undefined;
        u.failedChecks = failed ? u.failedChecks + 1 : 0;
        if (lag > this.product.maxLag) {
          u.lastProblem = `${lag} blocks behind the best (${best})`;
          return false;
        }
        // a check that failed once is no verdict on a node in the rotation (a busy litecoind refuses one
        // with "work queue depth exceeded"): it leaves after FAILED_CHECKS_TO_LEAVE in a row; a node not
        // (yet) in it, or unknown at the first round, stays out until a check answers
        if (!failed) return true;
        return u.healthy === true && u.failedChecks < FAILED_CHECKS_TO_LEAVE;
      });
      // the last upstream of a product that still answers never leaves on its checks alone: a node that
      // refuses its health method but answers (busy) serves the other methods better than a 503 does
      if (!verdicts.some(Boolean))
        this.upstreams.forEach((u, i) => {
          if (u.inRotation && u.reached) verdicts[i] = true;
        });
      for (const [i, u] of this.upstreams.entries()) {
        const labels = { product: this.product.name, upstream: u.endpoint.label };
        const ok = verdicts[i] as boolean;
        if (ok !== u.healthy && u.healthy !== undefined)
          this.log(
            `upstream ${u.endpoint.label} of ${this.product.name} ${ok ? "back in the rotation" : `out of the rotation: ${u.lastProblem}`}`,
          );
        u.healthy = ok;
        this.metrics?.upstreamUp.set(labels, ok ? 1 : 0);
        if (u.height !== undefined) this.metrics?.upstreamHeight.set(labels, u.height);
      }
    })().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  /**
   * A check soon, not at the next interval: an exchange with an upstream failed (a node that went away may
   * come back as another: a reset devnet, a swapped node), so its chain is read again before the interval
   * would. One at a time, at most one waiting, and no sooner than RECHECK_GAP_MS after the last began.
   */
  checkSoon(): void {
    if (this.soon || this.stopped) return;
    const wait = Math.max(0, this.lastCheck + RECHECK_GAP_MS - Date.now());
    this.soon = setTimeout(() => {
      // a check already under way may have asked before the failure: the next one starts after it
      void (this.checking ?? Promise.resolve()).then(() => {
        this.soon = undefined;
        if (!this.stopped) return this.check();
      });
    }, wait);
    this.soon.unref();
  }
  private soon?: NodeJS.Timeout;
  private lastCheck = 0;
  private stopped = false;

  /**
   * One upstream's check: its tip, its chain and the hash of its anchor block, asked together (one round
   * trip). What it saw, or undefined (a failed check).
   */
  private async checkOne(u: Upstream): Promise<Seen | undefined> {
    const chain = groupOf(this.product.chain);
    const tip = chain.tip;
    if (!tip) return undefined;
    const bh = chain.blockHash;
    const asked: BatchEntry[] = [{ method: tip.method, params: [], marks: CHECK_MARKS, plain: true }];
    if (bh) asked.push(hashCall(this.product.chain, 0));
    const anchor = bh && u.anchor;
    if (anchor) asked.push(hashCall(this.product.chain, anchor.height));
    try {
      const [t, g, a] = await callBatch(this.checker(u), asked);
      if (t instanceof Error) throw t;
      const h = quantityOf((t as CallResult).result);
      if (h === undefined || !Number.isSafeInteger(h))
        throw new Error(`${tip.method} answered ${(t as CallResult).raw.slice(0, 40)}`);
      if (bh) {
        // a node that answers its tip but not its genesis (yet: one just restarted) cannot be told to be on
        // the product's chain: a failed check, its chain as last read until a check reads it
        const v = hashIn(this.product.chain, g);
        if (typeof v !== "string")
          throw new Error(
            `its chain (${bh.method}) unreadable: ${g instanceof Error ? g.message : (g as CallResult).raw.slice(0, 40)}`,
          );
        u.identity = v;
      }
      if (a instanceof TransportError) throw a;
      u.lastProblem = undefined;
      u.reached = true;
      return { height: h, atAnchor: anchor ? hashIn(this.product.chain, a) : undefined };
    } catch (e) {
      u.lastProblem = (e as Error).message;
      // an answer of any kind is a node that is there (a JSON-RPC error; litecoind's HTTP 503 "Work
      // queue depth exceeded" when busy); refused before anything was sent, or silent, is not
      u.reached = !(e instanceof TransportError) || (!e.neverSent && !e.timedOut);
      return undefined;
    }
  }

  /**
   * After the checks: an upstream whose anchor block changed (another hash, or none: its tip went back
   * below it) has reorganised below it, and the cache's entries above the fork go; then each upstream's
   * anchor is moved up to what the cache may now take from it (min of its tip and the best - safeDepth + 1:
   * a verbose UTXO block depends on its successor), read and the old one asked again after it in the same
   * array (a reorg between the two reads shows in the second).
   */
  private async followReorgs(seen: (Seen | undefined)[]): Promise<void> {
    if (!groupOf(this.product.chain).blockHash || this.cfg.cache.maxBytes <= 0) return;
    let best: number | undefined;
    let top: Upstream | undefined;
    for (const [i, u] of this.upstreams.entries()) {
      const h = seen[i]?.height;
      if (h !== undefined && u.identity === this.identity && (best === undefined || h > best)) {
        best = h;
        top = u;
      }
    }
    const scope = this.scopeOfChain();
    if (top && scope !== undefined && this.compared !== scope) {
      await this.compareRecords(top, scope);
      this.compared = scope;
    }
    await Promise.all(
      this.upstreams.map(async (u, i) => {
        const t = seen[i];
        if (!t || u.identity !== this.identity) {
          // a failed check keeps its anchor (asked again next time); another chain has none of the product's
          if (t) u.anchor = undefined;
          return;
        }
        if (u.anchor && t.atAnchor !== undefined && t.atAnchor !== u.anchor.hash) {
          await this.dropAboveFork(u, u.anchor, t.atAnchor);
          // followed: the anchor is read afresh below
          u.anchor = undefined;
        }
        const want = Math.max(
          0,
          Math.min(
            t.height,
            Math.max(u.anchor?.height ?? 0, (best ?? t.height) - this.cfg.cache.safeDepth + 1),
          ),
        );
        const old = u.anchor;
        if (old?.height === want) return;
        try {
          const asked = [hashCall(this.product.chain, want)];
          if (old) asked.push(hashCall(this.product.chain, old.height));
          const [n, o] = await callBatch(this.checker(u), asked);
          if (n instanceof TransportError || o instanceof TransportError) return;
          if (old && hashIn(this.product.chain, o) !== old.hash)
            await this.dropAboveFork(u, old, hashIn(this.product.chain, o));
          const hash = hashIn(this.product.chain, n);
          u.anchor = hash === null ? undefined : { height: want, hash };
        } catch {
          // asked again at the next check
        }
      }),
    );
  }

  /**
   * A reorg on `u` below `anchor`: every claim (what an entry took the chain to be) at the cache's highest
   * claimed heights against `u`'s blocks there, in arrays (reorg.ts's walkClaims) — every
   * height, not down to the first that agrees: the new chain's answers cached since the reorg (however
   * many) agree above the old chain's. Entries above the lowest claim the node disagrees with go (none
   * disagreeing, none); unsure (`u` unreadable, or claims past the bound below a disagreeing lowest): every
   * entry tied to a block. Not seen: an old entry below WALK_HEIGHTS × WALK_ROUNDS agreeing heights.
   */
  private async dropAboveFork(u: Upstream, anchor: { height: number; hash: string }, now: string | null) {
    const scope = this.scopeOfChain();
    if (scope === undefined) return;
    const { fork, lowestBad, read } = await walkClaims(
      this.cache,
      this.checker(u),
      this.product.chain,
      scope,
    );
    // Redis's records unread: the fork says nothing of its entries that this process does not hold
    const dropped = await this.cache.dropAbove(scope, fork, read ? fork : -1);
    const above = !read
      ? "tied to a block (the shared records could not be read),"
      : fork < 0
        ? "above any block the cache could match"
        : lowestBad === undefined
          ? `above block ${fork}, where the cache and the node agree,`
          : `above block ${fork}, below the lowest the cache and the node disagree on,`;
    this.log(
      `upstream ${u.endpoint.label} of ${this.product.name}: block ${anchor.height} is now ${now ?? "gone"} (was ${anchor.hash}): a reorg; ${dropped} cached answers ${above} dropped`,
    );
  }

  /**
   * The records of a chain this process starts following (first check, or the product moving to it), made
   * while no anchor of its watched (another replica's; its own before a restart or before the product left
   * the chain), compared with `u`'s blocks as after a reorg: those it disagrees with go; unread (Redis not
   * answering): every entry tied to a block. Said only when something disagreed or could not be told.
   */
  private async compareRecords(u: Upstream, scope: string): Promise<void> {
    const { fork, lowestBad, claims, read } = await walkClaims(
      this.cache,
      this.checker(u),
      this.product.chain,
      scope,
    );
    // every record agrees with the node (none: nothing to drop either)
    if (read && lowestBad === undefined && (fork >= 0 || claims === 0)) return;
    const dropped = await this.cache.dropAbove(scope, fork, read ? fork : -1);
    const why = !read
      ? "could not be read from the shared state (every one there tied to a block goes)"
      : lowestBad === undefined
        ? `could not all be compared with upstream ${u.endpoint.label}`
        : `disagree with upstream ${u.endpoint.label} at block ${lowestBad}`;
    this.log(
      `product ${this.product.name}: the cache's records of its chain from before this process followed it ${why}: ${dropped} cached answers above ${fork < 0 ? "any block the cache could match" : `block ${fork}`} dropped`,
    );
  }

  /** An upstream's health client: it alone, no retries, the health timeout (made once). */
  private checker(u: Upstream): JsonRpcClient {
    let c = this.checkers.get(u);
    if (!c) {
      c = this.client({
        endpoints: [u.endpoint],
        retries: 0,
        timeoutMs: this.cfg.healthTimeoutMs,
        transport: this.checkTransport,
      });
      this.checkers.set(u, c);
    }
    return c;
  }
  private readonly checkers = new Map<Upstream, JsonRpcClient>();

  /**
   * The product's chain: the one its upstreams report (kept while one of them still does; else the first
   * upstream's, in the configured order — a reset devnet, every node swapped — and the cache dropped). An
   * upstream reporting another is marked, so the check takes it out of the rotation and names it.
   */
  private judgeChains(): void {
    const known = this.upstreams.filter((u) => u.identity !== undefined);
    if (known.length === 0) return;
    if (this.identity === undefined || !known.some((u) => u.identity === this.identity)) {
      const next = known[0]?.identity as string;
      if (this.identity !== undefined) {
        this.log(
          `product ${this.product.name}: its upstreams now report another chain (genesis ${next}, was ${this.identity}): its cache dropped`,
        );
        this.cache.drop();
        for (const x of this.upstreams) x.anchor = undefined;
      }
      this.identity = next;
    }
    for (const u of this.upstreams) {
      const other =
        u.identity !== undefined && u.identity !== this.identity
          ? `on another chain: genesis ${u.identity}, product ${this.product.name}'s is ${this.identity}`
          : undefined;
      if (other && !u.otherChain && u.healthy !== false)
        this.log(`upstream ${u.endpoint.label} of ${this.product.name} out of the rotation: ${other}`);
      u.otherChain = other;
    }
  }

  start(): void {
    this.timer = setInterval(() => void this.check(), this.cfg.healthIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.soon);
  }

  /**
   * After a reload: no more checks, and the pool's kept-alive connections closed once the requests it
   * still carries are done (bounded by the request timeout), so reloads leave no sockets behind.
   */
  retire(): void {
    this.stop();
    const until = Date.now() + this.cfg.requestTimeoutMs + 1000;
    const close = () => {
      if (this.upstreams.some((u) => u.inflight > 0) && Date.now() < until) setTimeout(close, 100).unref();
      else {
        this.transport.close();
        this.checkTransport.close();
      }
    };
    close();
  }
}
