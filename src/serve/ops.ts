/**
 * The operations pages of `chaingw serve`: GET /healthz (the process serves), /readyz (every product has an
 * upstream in the rotation; each upstream by its label, never its URL's path or credentials) and /metrics
 * (Prometheus text; a worker answers for the whole gateway).
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { Product } from "./admission.js";
import { J } from "./envelope.js";
import { pathOnly, sendAnswer } from "./http.js";
import type { Metrics } from "./metrics.js";
import type { SharedState } from "./state.js";

/** The paths served here, on GET. */
export const OPS_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

/** What the pages read of the running gateway. */
export interface OpsView {
  products: ReadonlyMap<string, Product>;
  state: SharedState;
  closing: boolean;
  metrics?: Metrics;
  /** a worker's: the whole gateway's metrics (the primary's sum), undefined if the primary is gone */
  workerMetrics?: () => Promise<string | undefined>;
}

/** /readyz's body and status: each product's upstreams (label, healthy, height, why not). */
function readiness(v: OpsView): { status: number; body: string } {
  const products: Record<string, unknown> = {};
  let ready = true;
  for (const [name, p] of v.products) {
    const up = p.pool.upstreams.filter((u) => u.inRotation).length;
    if (up === 0) ready = false;
    products[name] = {
      healthy: up,
      upstreams: p.pool.upstreams.map((u) => ({
        upstream: u.endpoint.label,
        healthy: u.inRotation,
        height: u.height ?? null,
        ...(u.lastProblem ? { problem: p.pool.shown(u.lastProblem) } : {}),
      })),
    };
  }
  // a shared state that does not answer is said, not fatal: the process serves from its own memory
  const ok = ready && !v.closing;
  return {
    status: ok ? 200 : 503,
    body: J({ ready: ok, products, state: { kind: v.state.kind, up: v.state.up } }),
  };
}

/** One of OPS_PATHS answered. */
export async function operations(v: OpsView, path: string, res: ServerResponse): Promise<void> {
  if (path === "/healthz") return sendAnswer(res, { status: 200, body: J({ status: "ok" }) }, v.closing);
  if (path === "/readyz") return sendAnswer(res, readiness(v), v.closing);
  if (!v.metrics) return sendAnswer(res, { status: 404, body: J({ error: "metrics are off" }) }, v.closing);
  // a worker answers for the whole gateway (the primary's sum); its own alone if the primary is gone
  const text = (await v.workerMetrics?.()) ?? (await v.metrics.registry.metrics());
  res.writeHead(200, {
    "content-type": v.metrics.registry.contentType,
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * The operations pages on their own address (`opsListen`: a port the load balancer and Prometheus reach,
 * and clients do not); anything else there is 404.
 */
export function opsServer(v: OpsView): Server {
  return createServer((req, res) => {
    req.resume();
    const path = pathOnly(req.url);
    if (req.method === "GET" && OPS_PATHS.has(path)) operations(v, path, res).catch(() => res.destroy());
    else sendAnswer(res, { status: 404, body: J({ error: "not found" }) }, v.closing);
  });
}
