/**
 * /metrics in Prometheus text format (prom-client). Labels carry product, method, outcome and the
 * upstream's label (credentials stripped): never a key. Methods outside the product's list are counted
 * as "other", so a caller cannot grow the label set without bound.
 */
import type * as Prom from "prom-client";

/** One series of a metric: its labels and value(s). */
interface Cell<L extends string> {
  labels: Record<L, string>;
  value: number;
}

/** A histogram's series: cumulative bucket counts are made at scrape time from per-bucket ones. */
export interface TimingCell {
  labels: Record<string, string>;
  counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * A metric on the request path, kept in a Map and read at scrape time. prom-client hashes and checks the
 * label object on every increment (~30 µs a request over four metrics, measured); here a hot series is a
 * cell bound once and bumped as numbers. Registered in the prom-client registry as any metric (text format,
 * JSON for the workers' sum).
 */
abstract class Series<L extends string, C extends { labels: Record<L, string> }> {
  /** the cells in the order they were made */
  protected readonly cells: C[] = [];
  /** label value → … → cell, one level per label: found without building a key string */
  private tree = new Map<string, unknown>();
  readonly aggregator = "sum";
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly L[],
    registry: Prom.Registry,
  ) {
    registry.registerMetric(this as unknown as Prom.Metric);
  }
  protected abstract make(labels: Record<L, string>): C;
  /** The series of these label values (in labelNames' order), made on first use: keep it to bump it. */
  cell(...values: string[]): C {
    const labels = {} as Record<L, string>;
    this.labelNames.forEach((n, i) => {
      labels[n] = values[i] as string;
    });
    return this.find(labels);
  }
  /** The series of these labels, found through the tree (no key string), made on first use. */
  protected find(labels: Record<L, string>): C {
    const names = this.labelNames;
    const last = names.length - 1;
    const at = (i: number) => labels[names[i] as L];
    let level = this.tree;
    for (let i = 0; i < last; i++) {
      let next = level.get(at(i)) as Map<string, unknown> | undefined;
      if (!next) {
        next = new Map();
        level.set(at(i), next);
      }
      level = next;
    }
    let c = level.get(at(last)) as C | undefined;
    if (!c) {
      const own = {} as Record<L, string>;
      for (const n of names) own[n] = labels[n];
      c = this.make(own);
      level.set(at(last), c);
      this.cells.push(c);
    }
    return c;
  }
  reset(): void {
    this.cells.length = 0;
    this.tree = new Map();
  }
}

/** A counter or a gauge of the request path. */
export class Tally<L extends string> extends Series<L, Cell<L>> {
  constructor(
    name: string,
    help: string,
    labelNames: readonly L[],
    registry: Prom.Registry,
    readonly type: "counter" | "gauge" = "counter",
  ) {
    super(name, help, labelNames, registry);
  }
  protected make(labels: Record<L, string>): Cell<L> {
    return { labels, value: 0 };
  }
  inc(labels: Record<L, string>, n = 1): void {
    this.find(labels).value += n;
  }
  async get() {
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values: this.cells.map((c) => ({ labels: { ...c.labels }, value: c.value })),
    };
  }
}

/** The histogram of the request path (upstream exchange times). */
export class Timings extends Series<string, TimingCell> {
  readonly type = "histogram";
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    readonly buckets: readonly number[],
    registry: Prom.Registry,
  ) {
    super(name, help, labelNames, registry);
  }
  protected make(labels: Record<string, string>): TimingCell {
    return { labels, counts: new Float64Array(this.buckets.length), sum: 0, count: 0 };
  }
  observe(c: TimingCell, seconds: number): void {
    const b = this.buckets;
    let i = 0;
    while (i < b.length && seconds > b[i]) i++;
    if (i < b.length) c.counts[i]++;
    c.sum += seconds;
    c.count++;
  }
  async get() {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const c of this.cells) {
      let acc = 0;
      this.buckets.forEach((le, i) => {
        acc += c.counts[i];
        values.push({ labels: { ...c.labels, le }, value: acc, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { ...c.labels, le: "+Inf" }, value: c.count, metricName: `${this.name}_bucket` });
      values.push({ labels: { ...c.labels }, value: c.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...c.labels }, value: c.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

export class Metrics {
  readonly registry: Prom.Registry;
  readonly requests: Tally<"product" | "method" | "outcome">;
  readonly upstreamSeconds: Timings;
  readonly failovers: Prom.Counter<"product">;
  readonly limited: Prom.Counter<"product" | "method" | "limit">;
  readonly cacheHits: Prom.Counter<"product" | "method">;
  readonly cacheMisses: Prom.Counter<"product" | "method">;
  readonly upstreamUp: Prom.Gauge<"product" | "upstream">;
  readonly upstreamHeight: Prom.Gauge<"product" | "upstream">;
  readonly inflight: Tally<"product" | "upstream">;
  readonly cacheBytes: Prom.Gauge;

  readonly stateUp: Prom.Gauge;
  readonly pendingDrops: Prom.Gauge<"product">;
  constructor(
    prom: typeof import("./vendor.js").prom,
    cacheBytes: () => number,
    stateUp: () => boolean = () => true,
    pendingDrops: () => ReadonlyMap<string, number> = () => new Map(),
  ) {
    const registry = new prom.Registry();
    this.registry = registry;
    const r = [registry];
    this.requests = new Tally(
      "chaingw_serve_requests_total",
      "JSON-RPC calls by product, method and outcome (ok, node_error, cached, or the gateway error's kind)",
      ["product", "method", "outcome"],
      registry,
    );
    this.upstreamSeconds = new Timings(
      "chaingw_serve_upstream_seconds",
      "time of one HTTP exchange with an upstream",
      ["product", "upstream"],
      [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registry,
    );
    this.failovers = new prom.Counter({
      name: "chaingw_serve_failovers_total",
      help: "calls moved to another upstream after a failure",
      labelNames: ["product"],
      registers: r,
    });
    this.limited = new prom.Counter({
      name: "chaingw_serve_limited_total",
      help: "calls refused by a rate limit (HTTP 429) or a block-range cap",
      labelNames: ["product", "method", "limit"],
      registers: r,
    });
    this.cacheHits = new prom.Counter({
      name: "chaingw_serve_cache_hits_total",
      help: "answers served from the cache",
      labelNames: ["product", "method"],
      registers: r,
    });
    this.cacheMisses = new prom.Counter({
      name: "chaingw_serve_cache_misses_total",
      help: "cacheable calls that went upstream",
      labelNames: ["product", "method"],
      registers: r,
    });
    this.upstreamUp = new prom.Gauge({
      name: "chaingw_serve_upstream_up",
      help: "1 when the upstream is in the rotation (last health check passed, not lagging)",
      labelNames: ["product", "upstream"],
      // serve --workers: 1 only when every worker has it in rotation
      aggregator: "min",
      registers: r,
    });
    this.upstreamHeight = new prom.Gauge({
      name: "chaingw_serve_upstream_height",
      help: "the upstream's tip height at its last health check",
      labelNames: ["product", "upstream"],
      aggregator: "max",
      registers: r,
    });
    this.inflight = new Tally(
      "chaingw_serve_upstream_inflight",
      "requests at work on the upstream",
      ["product", "upstream"],
      registry,
      "gauge",
    );
    this.cacheBytes = new prom.Gauge({
      name: "chaingw_serve_cache_bytes",
      help: "bytes held by the answer caches (each worker's summed)",
      registers: r,
      collect() {
        this.set(cacheBytes());
      },
    });
    this.stateUp = new prom.Gauge({
      name: "chaingw_serve_state_up",
      help: "1 while the shared state (--state redis://) answers; 0 while the process uses its own memory",
      aggregator: "min",
      registers: r,
      collect() {
        this.set(stateUp() ? 1 : 0);
      },
    });
    this.pendingDrops = new prom.Gauge({
      name: "chaingw_serve_cache_pending_drops",
      help: "a reorg's cache drops the shared state (--state redis://) has not confirmed yet, by product: until it does, none of the product's shared answers tied to a block is served",
      labelNames: ["product"],
      registers: r,
      collect() {
        for (const [product, n] of pendingDrops()) this.set({ product }, n);
      },
    });
    prom.collectDefaultMetrics({ register: registry, prefix: "chaingw_serve_" });
  }
}
