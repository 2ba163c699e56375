import type { Attempted, FrontWords } from "../rpc/client.js";
import { HttpFailure, type HttpOptions, type HttpResult, Transport, wireFailure } from "../rpc/http.js";
import { GATEWAY_CAP, type WireExchange, type WirePool } from "../rpc/wire.js";

import type { Pool, Upstream } from "./upstreams.js";

/** One quick exchange: with whom, what, within how long, for whose connection, and who gets the answer. */
export interface QuickCall {
  up: Upstream;
  body: string;
  timeoutMs: number;
  signal: AbortSignal;
  done: (f: HttpFailure | null, r?: HttpResult) => void;
}

/**
 * The connections of the gateway, with each upstream's cap and timings around every exchange. A refused
 * connection takes the upstream out of the rotation at once (the next health check brings it back).
 */
export class GatewayTransport extends Transport {
  constructor(
    private readonly pool: Pool,
    /** the health checks' own connections: their failures are the check's verdict, not a reason for one */
    private readonly forChecks = false,
  ) {
    super({ keepAlive: true });
  }

  /** Node's kept-alive connections and the quick path's, closed (a reload's old pool, a stop). */
  override close(): void {
    super.close();
    for (const u of this.pool.upstreams) u.wire?.close();
  }
  override async post(
    url: string,
    headers: Record<string, string>,
    body: string,
    opts: HttpOptions,
  ): Promise<HttpResult> {
    const up = this.pool.byUrl.get(url);
    if (!up) return super.post(url, headers, body, opts);
    return this.around(up, opts, () => super.post(url, headers, body, opts));
  }

  /**
   * Everything around one exchange with an upstream: its concurrency slot, its in-flight and timing series,
   * and a refused connection taking it out of the rotation (a reset or a timeout may be one request's trouble).
   */
  private async around(
    up: Upstream,
    opts: { signal?: AbortSignal; requestTimeoutMs: number },
    send: () => Promise<HttpResult>,
  ): Promise<HttpResult> {
    if (!up.tryAcquire()) await up.acquire(opts);
    const t0 = this.begin(up);
    try {
      const r = await send();
      this.end(up, t0, null);
      return r;
    } catch (e) {
      this.end(up, t0, e);
      throw e;
    }
  }

  /** An exchange starts on a slot already taken: the upstream's series (bound once) counted in. */
  private begin(up: Upstream): number {
    const m = this.pool.metrics;
    // the upstream's series, bound once: a request bumps numbers, not label sets
    up.series ??= m && {
      inflight: m.inflight.cell(this.pool.product.name, up.endpoint.label),
      seconds: m.upstreamSeconds.cell(this.pool.product.name, up.endpoint.label),
    };
    if (up.series) up.series.inflight.value++;
    return performance.now();
  }

  /** An exchange ended: its time observed, its slot freed, a refused connection taking the upstream out. */
  private end(up: Upstream, t0: number, e: unknown): void {
    // a failed exchange may be a node that went away and came back as another (a reset devnet): its chain is
    // read again at once, not at the next interval (a client that hung up is no news of the node)
    if (e && !this.forChecks && !(e instanceof HttpFailure && e.message === "interrupted"))
      this.pool.checkSoon();
    if (e instanceof HttpFailure && e.phase === "unsent" && !e.timedOut && e.message !== "interrupted")
      this.pool.markDown(up, e.message);
    const m = this.pool.metrics;
    if (m && up.series) {
      m.upstreamSeconds.observe(up.series.seconds, (performance.now() - t0) / 1000);
      up.series.inflight.value--;
    }
    up.release();
  }

  /**
   * One request to one plain-HTTP upstream, the gateway's common case (an idempotent read's first attempt),
   * answered through a callback, not promises: on the upstream's own kept-alive connections (wire.ts), the
   * deadlines watched by one shared timer, the client connection's signal read by it too. `done` gets the answer or
   * a failure (`HttpFailure`, unsent or maybe), once; a refused connection takes the upstream out of the
   * rotation, as in `post`.
   */
  quick(q: QuickCall): void {
    if (q.up.tryAcquire()) {
      this.quickOnSlot(q);
      return;
    }
    // every slot busy: wait in line (bounded by the timeout and the client's connection)
    q.up.acquire({ signal: q.signal, requestTimeoutMs: q.timeoutMs }).then(
      () => this.quickOnSlot(q),
      (e: unknown) => q.done(e instanceof HttpFailure ? e : new HttpFailure(String(e), "unsent")),
    );
  }

  private quickOnSlot(q: QuickCall): void {
    const { up, body, timeoutMs, signal, done } = q;
    const wire = up.wire as WirePool;
    const t0 = this.begin(up);
    const now = Date.now();
    const w: Watched = {
      until: now + timeoutMs,
      connectUntil: now + Math.min(2000, timeoutMs),
      ms: timeoutMs,
      x: undefined,
      slot: -1,
      signal,
      fail: (f) => finish(f),
    };
    let settled = false;
    const finish = (f: HttpFailure | null, r?: HttpResult) => {
      if (settled) return;
      settled = true;
      watched.remove(w);
      if (f) w.x?.destroy();
      this.end(up, t0, f);
      done(f, r);
    };
    if (signal.aborted) {
      finish(new HttpFailure("interrupted", "maybe"));
      return;
    }
    watched.add(w);
    sweeper ??= setInterval(sweep, 50).unref();
    // never left: rpc/http.ts's one rule, as node's client decides it for the other attempts
    w.x = wire.exchange(body, MAX_ANSWER_BYTES, (f, r) => finish(f ? wireFailure(f) : null, r));
  }
}

/**
 * Counts a call's moves to another upstream from the client's attempts: every attempt of an exchange after
 * its first (on the next upstream, or in a later pass).
 */
export function moveCounter(): MoveCounter {
  return new MoveCounter();
}

/** (A class, not an object literal with a getter: see `Answered` in rpc/classify.ts.) */
class MoveCounter {
  private readonly started = new Set<number>();
  moved = 0;
  readonly onAttempt = (a: Attempted): void => {
    if (this.started.has(a.exchange)) this.moved++;
    else this.started.add(a.exchange);
  };
}

/** The gateway's limits in its own words: its users set none of the CLI's flags. */
export const GATEWAY_WORDS: FrontWords = {
  cap: GATEWAY_CAP,
  longer: "the gateway's request timeout bounds it",
  deadline: "the gateway's request timeout",
};

/** An answer larger than this is refused (as the client's maxBodyBytes for the gateway). */
export const MAX_ANSWER_BYTES = 256 * 1024 * 1024;

/** A quick request in flight: its deadlines, checked by one shared timer instead of timers of its own. */
interface Watched {
  until: number;
  connectUntil: number;
  ms: number;
  x: WireExchange | undefined;
  /** its place in the watch list */
  slot: number;
  signal: AbortSignal;
  fail: (f: HttpFailure) => void;
}

/**
 * The requests in flight, in slots reused through a free list. Not a Set: a long-lived Set that young
 * entries pass through keeps them alive past the next scavenges (measured under load: ~1.5 MB promoted to
 * the old generation per scavenge and 4-5 ms pauses, against ~13 KB and ~1 ms with these slots; the
 * promoted garbage then costs a mark-compact every few seconds).
 */
class WatchList {
  private readonly slots: (Watched | undefined)[] = [];
  private readonly free: number[] = [];
  size = 0;
  add(w: Watched): void {
    const i = this.free.pop() ?? this.slots.length;
    this.slots[i] = w;
    w.slot = i;
    this.size++;
  }
  remove(w: Watched): void {
    if (w.slot < 0 || this.slots[w.slot] !== w) return;
    this.slots[w.slot] = undefined;
    this.free.push(w.slot);
    w.slot = -1;
    this.size--;
  }
  /** The requests in flight now (a copy: a failure removes its own). */
  list(): Watched[] {
    return this.slots.filter((w): w is Watched => w !== undefined);
  }
}
const watched = new WatchList();
let sweeper: NodeJS.Timeout | undefined;
/** The request's connection is up: a kept-alive one, or a fresh one past its connect. */
const connected = (x: WireExchange | undefined) => x?.connected() === true;

/** Every 50 ms: requests past their deadline, or whose client went away, are ended. */
function sweep(): void {
  const now = Date.now();
  for (const w of watched.list()) {
    if (w.signal.aborted) w.fail(new HttpFailure("interrupted", "maybe"));
    else if (!connected(w.x) && now >= w.connectUntil) w.fail(new HttpFailure("connect timed out", "unsent"));
    else if (now >= w.until) w.fail(new HttpFailure(`no complete answer within ${w.ms} ms`, "maybe", true));
  }
  if (watched.size === 0 && sweeper) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
}
