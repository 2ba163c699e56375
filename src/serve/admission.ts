/**
 * Admission: everything `chaingw serve` decides about a call before an upstream is asked — the method in
 * the product's group of the registry or its allow list (-32601), the registry's param checks (-32602), the
 * eth_getLogs range cap, the rate limits of heavy methods (429), the cache (a hit answers here).
 */
import { groupOf } from "../chains/index.js";
import { UsageError } from "../errors/index.js";
import { plainOf } from "../json/lossless.js";
import { definitions, methodNames, UNKNOWN_MARKS } from "../methods/index.js";
import { type Prepared, prepare, prepareRaw } from "../methods/prepare.js";
import type { MethodDef } from "../methods/types.js";
import { isJsonObject } from "../util/text.js";
import { type CachePlan, cachePlan } from "./cache.js";
import type { GatewayConfig, Limits, ProductConfig } from "./config.js";
import { type Answer, type Call, envelopeOk, gatewayAnswer } from "./envelope.js";
import { GatewayError } from "./errors.js";
import type { Metrics } from "./metrics.js";
import type { SharedState, Take } from "./state.js";
import type { Pool } from "./upstreams.js";

/** What admission and forwarding read of the running gateway (its config changes on SIGHUP). */
export interface GatewayParts {
  readonly cfg: GatewayConfig;
  readonly state: SharedState;
  readonly metrics?: Metrics;
}

/** A product of the config with its upstream pool. */
export interface Product {
  cfg: ProductConfig;
  pool: Pool;
  /** methods the product forwards that are not in its group's registry: name → marks */
  extra: Map<string, { idempotent: boolean; heavy: boolean }>;
}

/** The request a call belongs to: its product, the key's id, the client connection's signal. */
export type Ctx = { product: Product; keyId: string; signal: AbortSignal };

/** The method's name for metrics and the log: "other" for one the product does not serve. */
export function methodLabel(product: Product, method: string): string {
  return definitions(method).some((d) => d.group === product.cfg.chain) || product.extra.has(method)
    ? method
    : "other";
}

/** A call's admission: refused (its answer), answered from the cache, or to forward (with its cache plan). */
export type Admitted = Answer | { p: Prepared; plan?: CachePlan };

/**
 * Everything decided before an upstream is asked: method, params, range cap, rate limits, cache. Decided
 * at once (no promise) unless a limit or the cache has to be asked.
 */
export function admit(gw: GatewayParts, call: Call, ctx: Ctx): Admitted | Promise<Admitted> {
  const c = check(gw, call, ctx);
  if ("status" in c) return c;
  // no limit to take from and no cache configured: nothing to wait for
  if (!c.limited && gw.cfg.cache.maxBytes <= 0) return { p: c.p };
  return limitAndCache(gw, c.p, c.limited, ctx, call.id ?? "null", call.legacy);
}

/** A call checked (method, params, range cap), with the limit it is under; or its refusal. */
export type Checked = Answer | { p: Prepared; limited?: Limits };

/** What admission decides at once: the method in the group, its params, the eth_getLogs range cap. */
export function check(gw: GatewayParts, call: Call, ctx: Ctx): Checked {
  const { product } = ctx;
  const id = call.id ?? "null";
  const fail = (e: GatewayError) => gatewayAnswer(e, id, call.legacy);
  const def: MethodDef | undefined = definitions(call.method).find((d) => d.group === product.cfg.chain);
  let p: Prepared;
  if (def) {
    // what the node itself requires, though the CLI fills it in (eth_getBlockByNumber's second param)
    const missing = def.params.findIndex((d, i) => d.nodeRequires && i >= call.params.length);
    if (missing >= 0)
      return fail(
        new GatewayError(
          "invalidParams",
          `missing value for required argument ${missing} (${def.params[missing]?.name}) of ${def.name}`,
        ),
      );
    try {
      // the span reader's params are plain values already; the full parser's numbers are made numbers
      p = prepare(def, { params: call.paramsText !== undefined ? call.params : call.params.map(plainOf) });
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
      gw.metrics?.limited.inc({ product: product.cfg.name, method: p.method, limit: "block_range" });
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
  return { p, limited };
}

/** The buckets a limited call takes from: per key (and product, method), per product (and method). */
const bucketsOf = (p: Prepared, limited: Limits, ctx: Ctx, n = 1): Take[] => [
  { key: `key:${ctx.keyId}:${ctx.product.cfg.name}:${p.method}`, bucket: limited.perKey, n },
  { key: `product:${ctx.product.cfg.name}:${p.method}`, bucket: limited.perProduct, n },
];

/** A limit that was short, as the gateway's 429: which bucket, its rate, when to come back. */
function limitedError(gw: GatewayParts, ctx: Ctx, method: string, limited: Limits, r: TakeResult, what = "") {
  const name = ctx.product.cfg.name;
  const which = r.short === 0 ? "per key" : "per product";
  const b = r.short === 0 ? limited.perKey : limited.perProduct;
  gw.metrics?.limited.inc({ product: name, method, limit: r.short === 0 ? "per_key" : "per_product" });
  return new GatewayError(
    "rateLimited",
    `${what}${method} ${which} on ${name} (${b.rate}/s, burst ${b.burst}); retry after ${Math.ceil(r.waitMs / 1000)} s`,
    Math.max(1, Math.ceil(r.waitMs / 1000)),
  );
}
type TakeResult = { waitMs: number; short?: number };

/**
 * A batch's limits, taken as a whole: every limited entry's tokens (per bucket, the count of its entries)
 * from all its buckets at once, or none. Short: the refusal of the whole batch (429 with Retry-After), so a
 * batching client backs off as a single call's does; nothing of it was run.
 */
export async function takeBatch(
  gw: GatewayParts,
  entries: { p: Prepared; limited?: Limits }[],
  ctx: Ctx,
): Promise<GatewayError | undefined> {
  const per = new Map<string, { p: Prepared; limited: Limits; n: number }>();
  for (const { p, limited } of entries) {
    if (!limited) continue;
    const e = per.get(p.method);
    if (e) e.n++;
    else per.set(p.method, { p, limited, n: 1 });
  }
  if (per.size === 0) return undefined;
  const groups = [...per.values()];
  const r = await gw.state.take(groups.flatMap((g) => bucketsOf(g.p, g.limited, ctx, g.n)));
  if (r.waitMs <= 0) return undefined;
  // which method's bucket was short (two buckets per method)
  const g = groups[Math.floor((r.short ?? 0) / 2)] as (typeof groups)[number];
  return limitedError(
    gw,
    ctx,
    g.p.method,
    g.limited,
    { waitMs: r.waitMs, short: (r.short ?? 0) % 2 },
    `a batch of ${g.n} `,
  );
}

/** The cache alone (a batch's limits were taken as a whole): a hit answers here. */
export function fromCache(gw: GatewayParts, p: Prepared, ctx: Ctx, call: Call): Admitted | Promise<Admitted> {
  if (gw.cfg.cache.maxBytes <= 0) return { p };
  return limitAndCache(gw, p, undefined, ctx, call.id ?? "null", call.legacy);
}

/** The heavy-method buckets (429), then the cache (a hit answers here). */
async function limitAndCache(
  gw: GatewayParts,
  p: Prepared,
  limited: Limits | undefined,
  ctx: Ctx,
  id: string,
  legacy: boolean | undefined,
): Promise<Admitted> {
  const { product } = ctx;
  const fail = (e: GatewayError) => gatewayAnswer(e, id, legacy);
  if (limited) {
    const r = await gw.state.take(bucketsOf(p, limited, ctx));
    if (r.waitMs > 0) return fail(limitedError(gw, ctx, p.method, limited, r));
  }
  // no cache configured: no plan to make
  if (gw.cfg.cache.maxBytes <= 0) return { p };
  // the cache's keys carry the product's chain: nothing is cached before the chain is known
  const scope = product.pool.cacheScope;
  const plan = scope === undefined ? undefined : cachePlan(scope, p.method, p.params, gw.cfg.cache.safeDepth);
  if (plan) {
    const hit = await gw.state.cacheGet(plan.key, plan.dep);
    const served = hit && plan.serve(hit, product.pool.bestHeight);
    if (served) {
      gw.metrics?.cacheHits.inc({ product: product.cfg.name, method: p.method });
      return { status: 200, body: envelopeOk(id, served, legacy), outcome: "cached" };
    }
    gw.metrics?.cacheMisses.inc({ product: product.cfg.name, method: p.method });
  }
  return { p, plan };
}

/**
 * Methods a product forwards beyond its group's registry definitions: the calls the registry itself
 * makes on that group (the chain's tip method, `--range`'s height-to-hash lookup) with their marks, and
 * the product's allow list (no marks: never moved after a failure that may have reached a node).
 */
export function extraMethods(p: ProductConfig): Map<string, { idempotent: boolean; heavy: boolean }> {
  const m = new Map<string, { idempotent: boolean; heavy: boolean }>();
  const chain = groupOf(p.chain);
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
