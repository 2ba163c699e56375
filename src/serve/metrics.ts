/**
 * /metrics in Prometheus text format (prom-client). Labels carry product, method, outcome and the
 * upstream's label (credentials stripped): never a key. Methods outside the product's list are counted
 * as "other", so a caller cannot grow the label set without bound.
 */
import type * as Prom from "prom-client";

export class Metrics {
  readonly registry: Prom.Registry;
  readonly requests: Prom.Counter<"product" | "method" | "outcome">;
  readonly upstreamSeconds: Prom.Histogram<"product" | "upstream">;
  readonly failovers: Prom.Counter<"product">;
  readonly limited: Prom.Counter<"product" | "method" | "limit">;
  readonly cacheHits: Prom.Counter<"product" | "method">;
  readonly cacheMisses: Prom.Counter<"product" | "method">;
  readonly upstreamUp: Prom.Gauge<"product" | "upstream">;
  readonly upstreamHeight: Prom.Gauge<"product" | "upstream">;
  readonly inflight: Prom.Gauge<"product" | "upstream">;
  readonly cacheBytes: Prom.Gauge;

  readonly stateUp: Prom.Gauge;
  constructor(
    prom: typeof import("./vendor.js").prom,
    cacheBytes: () => number,
    stateUp: () => boolean = () => true,
  ) {
    const registry = new prom.Registry();
    this.registry = registry;
    const r = [registry];
    this.requests = new prom.Counter({
      name: "chaingw_serve_requests_total",
      help: "JSON-RPC calls by product, method and outcome (ok, node_error, cached, or the gateway error's kind)",
      labelNames: ["product", "method", "outcome"],
      registers: r,
    });
    this.upstreamSeconds = new prom.Histogram({
      name: "chaingw_serve_upstream_seconds",
      help: "time of one HTTP exchange with an upstream",
      labelNames: ["product", "upstream"],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: r,
    });
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
    this.inflight = new prom.Gauge({
      name: "chaingw_serve_upstream_inflight",
      help: "requests at work on the upstream",
      labelNames: ["product", "upstream"],
      registers: r,
    });
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
    prom.collectDefaultMetrics({ register: registry, prefix: "chaingw_serve_" });
  }
}
