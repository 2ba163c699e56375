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
import type { Bucket } from "./config.js";
import { MemoryState, type SharedState } from "./state.js";

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

/** The primary: forks, forwards, replaces; resolves with the exit code once every worker has stopped. */
export async function runPrimary(o: PrimaryOptions): Promise<number> {
  await o.check();
  const { prom } = await import("./vendor.js");
  const registry = new prom.Registry();
  const alive = new prom.Gauge({
    name: "chaingw_serve_workers",
    help: "worker processes serving (serve --workers)",
    registers: [registry],
  });
  const restarts = new prom.Counter({
    name: "chaingw_serve_worker_restarts_total",
    help: "workers that died and were replaced",
    registers: [registry],
  });
  const shared = new MemoryState(0);
  const slots = new Map<number, Worker>();
  const ready = new Set<number>();
  let stopping = false;
  let listening = false;
  let earlyDeaths = 0;
  let failure: number | undefined;
  let allExited: () => void = () => {};
  const exited = new Promise<void>((r) => (allExited = r));

  // the workers' metrics, gathered for one /metrics request
  let seq = 0;
  const gathering = new Map<number, { want: number; got: unknown[]; done: () => void }>();
  const gather = async (): Promise<string> => {
    const n = ++seq;
    const list = [...slots.values()].filter((w) => w.isConnected());
    const got: unknown[] = [await registry.getMetricsAsJSON()];
    await new Promise<void>((done) => {
      gathering.set(n, { want: list.length, got, done });
      for (const w of list) w.send({ chaingw: "metrics-get", n });
      setTimeout(done, METRICS_DEADLINE_MS).unref();
      if (list.length === 0) done();
    });
    gathering.delete(n);
    return prom.AggregatorRegistry.aggregate(
      got as Parameters<typeof prom.AggregatorRegistry.aggregate>[0],
    ).metrics();
  };

  const answer = async (w: Worker, m: Msg): Promise<void> => {
    const reply = (value: unknown) => w.isConnected() && w.send({ chaingw: "re", n: m.n, value });
    switch (m.chaingw) {
      case "take":
        return void reply(await shared.take(m.buckets as { key: string; bucket: Bucket }[]));
      case "getPin":
        return void reply((await shared.getPin(m.key as string)) ?? null);
      case "setPin":
        await shared.setPin(m.key as string, m.value as string, m.ttlMs as number);
        return void reply(null);
      case "metrics":
        return void reply(await gather());
      case "metrics-json": {
        const g = gathering.get(m.n as number);
        if (!g) return;
        g.got.push(m.value);
        if (g.got.length > g.want) g.done();
        return;
      }
    }
  };

  const fork = (slot: number): void => {
    const w = cluster.fork({ CHAINGW_WORKER: String(slot) });
    slots.set(slot, w);
    w.on("message", (m: Msg) => {
      if (typeof m?.chaingw !== "string") return;
      if (m.chaingw === "ready") {
        ready.add(slot);
        earlyDeaths = 0;
        alive.set(ready.size);
        if (!listening && ready.size === o.workers) {
          listening = true;
          o.note(
            `listening on ${m.url} (${o.workers} workers; products ${(m.products as string[]).join(", ")}; state ${m.state}); SIGHUP reloads, SIGTERM drains and stops`,
          );
        }
        return;
      }
      void answer(w, m).catch((e: unknown) => o.note(`internal error: ${(e as Error)?.message ?? e}`));
    });
    w.on("exit", (code, signal) => {
      const wasReady = ready.delete(slot);
      alive.set(ready.size);
      if (slots.get(slot) === w) slots.delete(slot);
      if (!stopping && failure === undefined) {
        if (!wasReady && ++earlyDeaths >= MAX_EARLY_DEATHS) {
          o.note(`worker ${slot} died ${MAX_EARLY_DEATHS} times before it was ready; stopping`);
          failure = 1;
        } else if (!wasReady && !listening) {
          // a worker that cannot start (Redis unreachable, ...) said why itself: the gateway does not start
          failure = code || 1;
        } else {
          restarts.inc();
          o.note(
            `worker ${slot} (pid ${w.process.pid}) ${signal ? `killed by ${signal}` : `exited with code ${code}`}; starting another`,
          );
          fork(slot);
          return;
        }
        stopping = true;
        for (const other of slots.values()) other.isConnected() && other.send({ chaingw: "stop" });
      }
      if (slots.size === 0) allExited();
    });
  };

  const onHup = () => {
    o.checkReload().then(
      () => {
        for (const w of slots.values()) w.isConnected() && w.send({ chaingw: "reload" });
      },
      (e: unknown) => o.note(`reload failed, keeping the running config: ${(e as Error).message}`),
    );
  };
  process.on("SIGHUP", onHup);
  // a second signal ends the primary at once (the run's own handler): the workers go with it
  const killAll = () => {
    for (const w of slots.values()) w.process.kill("SIGKILL");
  };
  process.on("exit", killAll);
  o.stop.addEventListener(
    "abort",
    () => {
      stopping = true;
      o.note(`${String(o.stop.reason)}: draining requests in flight on ${slots.size} workers`);
      for (const w of slots.values()) w.isConnected() && w.send({ chaingw: "stop" });
    },
    { once: true },
  );
  for (let i = 1; i <= o.workers; i++) fork(i);
  await exited;
  process.off("SIGHUP", onHup);
  process.off("exit", killAll);
  return failure ?? 0;
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
  async take(buckets: { key: string; bucket: Bucket }[]) {
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
  cacheSet(key: string, value: Buffer) {
    return this.local.cacheSet(key, value);
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
export function announceReady(url: string, products: string[], state: string): void {
  process.send?.({ chaingw: "ready", url, products, state });
}

/** /metrics in a worker: the whole gateway's, summed by the primary (undefined: it did not answer). */
export function gatewayMetrics(): Promise<string | undefined> {
  return primary().ask<string>({ chaingw: "metrics" }, METRICS_DEADLINE_MS + 500);
}
