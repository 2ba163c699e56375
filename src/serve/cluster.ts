/**
 * `serve --workers N`: N gateway processes on one address (node:cluster; the primary accepts and hands
 * each connection to a worker in turn). The primary holds no upstream connection and answers no call. It:
 * - checks the config and the address once, before any worker starts (bad usage: exit 2, nothing started);
 * - forwards SIGHUP (config checked first, so a bad one is said once) and SIGTERM to every worker, and stops
 *   when all have drained;
 * - replaces a worker that dies, and counts it (chaingw_serve_worker_restarts_total);
 * - without `--state redis://`, holds the rate-limit buckets and scan pins every worker takes from (one limit
 *   for the whole gateway, not one per worker); each worker keeps its own answer cache;
 * - answers /metrics for the whole gateway: the worker that got the request asks, the primary gathers every
 *   worker's registry and sums them (gauges by their own rule: up is the minimum, height the maximum).
 */
import cluster, { type Worker } from "node:cluster";
import { type CacheDep, MemoryState, type SharedState, type Take } from "./state.js";

/** Every message between primary and workers carries `chaingw` (prom-client and others share the channel). */
type Msg = { chaingw: string; n?: number; [k: string]: unknown };

/** How long a worker waits for the primary before it decides on its own (limits, pins: its own memory). */
const PRIMARY_DEADLINE_MS = 1000;
/** How long the primary waits for the workers' metrics. */
const METRICS_DEADLINE_MS = 2000;
/** A worker that dies this many times in a row before it is ready stops the gateway (a loop, not a fault). */
const MAX_EARLY_DEATHS = 3;

export interface PrimaryOptions {
  workers: number;
  /** the config as the gateway reads it: checked here before any worker starts */
  check: () => Promise<void>;
  /** SIGHUP: the config read again; throws what is wrong with it */
  checkReload: () => Promise<void>;
  note: (line: string) => void;
  /** aborted by the first SIGINT/SIGTERM */
  stop: AbortSignal;
}

type Prom = Awaited<typeof import("./vendor.js")>["prom"];

/** The primary's own metrics, and the workers' gathered for one /metrics request. */
class PrimaryMetrics {
  private readonly registry: InstanceType<Prom["Registry"]>;
  readonly alive: InstanceType<Prom["Gauge"]>;
  readonly restarts: InstanceType<Prom["Counter"]>;
  private seq = 0;
  private readonly gathering = new Map<number, { want: number; got: unknown[]; done: () => void }>();

  constructor(private readonly prom: Prom) {
    this.registry = new prom.Registry();
    this.alive = new prom.Gauge({
      name: "chaingw_serve_workers",
      help: "worker processes serving (serve --workers)",
      registers: [this.registry],
    });
    this.restarts = new prom.Counter({
      name: "chaingw_serve_worker_restarts_total",
      help: "workers that died and were replaced",
      registers: [this.registry],
    });
  }

  /** Every connected worker's registry and the primary's, summed; a worker late past the deadline is left out. */
  async gather(workers: Iterable<Worker>): Promise<string> {
    const n = ++this.seq;
    const list = [...workers].filter((w) => w.isConnected());
    const got: unknown[] = [await this.registry.getMetricsAsJSON()];
    await new Promise<void>((done) => {
      this.gathering.set(n, { want: list.length, got, done });
      for (const w of list) w.send({ chaingw: "metrics-get", n });
      setTimeout(done, METRICS_DEADLINE_MS).unref();
      if (list.length === 0) done();
    });
    this.gathering.delete(n);
    return this.prom.AggregatorRegistry.aggregate(
      got as Parameters<Prom["AggregatorRegistry"]["aggregate"]>[0],
    ).metrics();
  }

  /** A worker's registry, for the gathering numbered `n`. */
  received(n: number, value: unknown): void {
    const g = this.gathering.get(n);
    if (!g) return;
    g.got.push(value);
    if (g.got.length > g.want) g.done();
  }
}

/** The primary's workers: forked into slots, replaced when they die, stopped together. */
class Workers {
  readonly slots = new Map<number, Worker>();
  private readonly ready = new Set<number>();
  stopping = false;
  private listening = false;
  private earlyDeaths = 0;
  failure: number | undefined;
  private allExited: () => void = () => {};
  readonly exited = new Promise<void>((r) => (this.allExited = r));

  constructor(
    private readonly o: PrimaryOptions,
    private readonly metrics: PrimaryMetrics,
    private readonly shared: SharedState,
  ) {}

  fork(slot: number): void {
    const w = cluster.fork({ CHAINGW_WORKER: String(slot) });
    this.slots.set(slot, w);
    w.on("message", (m: Msg) => this.onMessage(slot, w, m));
    w.on("exit", (code, signal) => this.onExit(slot, w, code, signal));
  }

  /** Sends every connected worker a message ("stop", "reload"). */
  tell(chaingw: string): void {
    for (const w of this.slots.values()) w.isConnected() && w.send({ chaingw });
  }

  private onMessage(slot: number, w: Worker, m: Msg): void {
    if (typeof m?.chaingw !== "string") return;
    if (m.chaingw !== "ready") {
      void this.answer(w, m).catch((e: unknown) =>
        this.o.note(`internal error: ${(e as Error)?.message ?? e}`),
      );
      return;
    }
    this.ready.add(slot);
    this.earlyDeaths = 0;
    this.metrics.alive.set(this.ready.size);
    if (!this.listening && this.ready.size === this.o.workers) {
      this.listening = true;
      this.o.note(
        `listening on ${m.url} (${this.o.workers} workers; products ${(m.products as string[]).join(", ")}; state ${m.state}${m.ops ? `; /readyz and /metrics on ${m.ops}` : ""}); SIGHUP reloads, SIGTERM drains and stops`,
      );
    }
  }

  /** A worker's request to the primary: the shared limits and pins, the gateway's metrics. */
  private async answer(w: Worker, m: Msg): Promise<void> {
    const reply = (value: unknown) => w.isConnected() && w.send({ chaingw: "re", n: m.n, value });
    switch (m.chaingw) {
      case "take":
        return void reply(await this.shared.take(m.buckets as Take[]));
      case "getPin":
        return void reply((await this.shared.getPin(m.key as string)) ?? null);
      case "setPin":
        await this.shared.setPin(m.key as string, m.value as string, m.ttlMs as number);
        return void reply(null);
      case "metrics":
        return void reply(await this.metrics.gather(this.slots.values()));
      case "metrics-json":
        return this.metrics.received(m.n as number, m.value);
    }
  }

  /** A worker gone: replaced, unless the gateway is stopping or workers die before they are ready. */
  private onExit(slot: number, w: Worker, code: number, signal: string): void {
    const wasReady = this.ready.delete(slot);
    this.metrics.alive.set(this.ready.size);
    if (this.slots.get(slot) === w) this.slots.delete(slot);
    if (!this.stopping && this.failure === undefined) {
      if (!wasReady && ++this.earlyDeaths >= MAX_EARLY_DEATHS) {
        this.o.note(`worker ${slot} died ${MAX_EARLY_DEATHS} times before it was ready; stopping`);
        this.failure = 1;
      } else if (!wasReady && !this.listening) {
        // a worker that cannot start (Redis unreachable, ...) said why itself: the gateway does not start
        this.failure = code || 1;
      } else {
        this.metrics.restarts.inc();
        this.o.note(
          `worker ${slot} (pid ${w.process.pid}) ${signal ? `killed by ${signal}` : `exited with code ${code}`}; starting another`,
        );
        this.fork(slot);
        return;
      }
      this.stopping = true;
      this.tell("stop");
    }
    if (this.slots.size === 0) this.allExited();
  }
}

/** The primary: forks, forwards, replaces; resolves with the exit code once every worker has stopped. */
export async function runPrimary(o: PrimaryOptions): Promise<number> {
  await o.check();
  const { prom } = await import("./vendor.js");
  const workers = new Workers(o, new PrimaryMetrics(prom), new MemoryState(0));
  const onHup = () => {
    o.checkReload().then(
      () => workers.tell("reload"),
      (e: unknown) => o.note(`reload failed, keeping the running config: ${(e as Error).message}`),
    );
  };
  process.on("SIGHUP", onHup);
  // a second signal ends the primary at once (the run's own handler): the workers go with it
  const killAll = () => {
    for (const w of workers.slots.values()) w.process.kill("SIGKILL");
  };
  process.on("exit", killAll);
  o.stop.addEventListener(
    "abort",
    () => {
      workers.stopping = true;
      o.note(`${String(o.stop.reason)}: draining requests in flight on ${workers.slots.size} workers`);
      workers.tell("stop");
    },
    { once: true },
  );
  for (let i = 1; i <= o.workers; i++) workers.fork(i);
  await workers.exited;
  process.off("SIGHUP", onHup);
  process.off("exit", killAll);
  return workers.failure ?? 0;
}

/** This process is a worker of `serve --workers`: its slot (1..N). */
export function workerSlot(): number | undefined {
  return cluster.isWorker ? Number(process.env.CHAINGW_WORKER ?? cluster.worker?.id) : undefined;
}

/** A worker's requests to the primary, answered in order of their number; undefined past the deadline. */
class PrimaryLink {
  private seq = 0;
  private readonly waiting = new Map<number, (v: unknown) => void>();
  constructor() {
    process.on("message", (m: Msg) => {
      if (m?.chaingw !== "re") return;
      const r = this.waiting.get(m.n as number);
      this.waiting.delete(m.n as number);
      r?.(m.value);
    });
  }
  ask<T>(m: Msg, deadlineMs = PRIMARY_DEADLINE_MS): Promise<T | undefined> {
    if (!process.connected || !process.send) return Promise.resolve(undefined);
    const n = ++this.seq;
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.waiting.delete(n);
        resolve(undefined);
      }, deadlineMs);
      this.waiting.set(n, (v) => {
        clearTimeout(t);
        resolve(v as T);
      });
      process.send?.({ ...m, n });
    });
  }
}

let link: PrimaryLink | undefined;
const primary = (): PrimaryLink => {
  link ??= new PrimaryLink();
  return link;
};

/**
 * A worker's state without Redis: buckets and pins are the primary's (one limit for the gateway); the
 * cache is this worker's. A primary that does not answer (gone) leaves the worker to its own memory.
 */
export class PrimaryState implements SharedState {
  readonly kind = "memory" as const;
  private readonly local: MemoryState;
  constructor(cacheMaxBytes: number) {
    this.local = new MemoryState(cacheMaxBytes);
  }
  get cacheBytes(): number {
    return this.local.cacheBytes;
  }
  get up(): boolean {
    return process.connected;
  }
  async take(buckets: Take[]) {
    return (
      (await primary().ask<{ waitMs: number; short?: number }>({ chaingw: "take", buckets })) ??
      this.local.take(buckets)
    );
  }
  async getPin(key: string) {
    const v = await primary().ask<string | null>({ chaingw: "getPin", key });
    return v === undefined ? this.local.getPin(key) : (v ?? undefined);
  }
  async setPin(key: string, value: string, ttlMs: number) {
    await this.local.setPin(key, value, ttlMs);
    await primary().ask({ chaingw: "setPin", key, value, ttlMs });
  }
  cacheGet(key: string) {
    return this.local.cacheGet(key);
  }
  cacheDrop(prefix: string): void {
    this.local.cacheDrop(prefix);
  }
  cacheSet(key: string, value: Buffer, dep?: CacheDep) {
    return this.local.cacheSet(key, value, dep);
  }
  cacheClaims(scope: string, heights: number) {
    return this.local.cacheClaims(scope, heights);
  }
  cacheDropAbove(scope: string, height: number) {
    return this.local.cacheDropAbove(scope, height);
  }
  async close() {}
}

export interface WorkerHooks {
  /** this worker's metrics, for the primary's sum */
  metricsJson?: () => Promise<unknown>;
  reload: () => void;
  stop: () => void;
}

/** A worker listens to the primary: reload, stop, and its part of /metrics; a primary gone is a stop. */
export function serveAsWorker(h: WorkerHooks): void {
  process.on("message", (m: Msg) => {
    if (m?.chaingw === "reload") h.reload();
    else if (m?.chaingw === "stop") h.stop();
    else if (m?.chaingw === "metrics-get" && h.metricsJson)
      void h.metricsJson().then((value) => process.send?.({ chaingw: "metrics-json", n: m.n, value }));
  });
  process.on("disconnect", () => h.stop());
  // the primary forwards SIGHUP; a terminal's hang-up reaching the whole group must not kill a worker
  process.on("SIGHUP", () => {});
}

/** Tells the primary this worker listens. */
export function announceReady(url: string, products: string[], state: string, ops?: string): void {
  process.send?.({ chaingw: "ready", url, products, state, ops });
}

/** /metrics in a worker: the whole gateway's, summed by the primary (undefined: it did not answer). */
export function gatewayMetrics(): Promise<string | undefined> {
  return primary().ask<string>({ chaingw: "metrics" }, METRICS_DEADLINE_MS + 500);
}
