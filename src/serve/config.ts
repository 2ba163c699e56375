/**
 * gateway.json: what `chaingw serve` listens on, where its keys are, and each product's chain group and
 * upstreams. Checked strictly (unknown keys and wrong types refused with their line) by the shared
 * checker in src/util/jsoncheck.ts; every default is written here once.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { CHAIN_NAMES, type GroupName, groupOf } from "../chains/index.js";
import { readCookie } from "../config/config.js";
import { UsageError } from "../errors/index.js";
import { type Endpoint, nodeEndpoint } from "../rpc/endpoint.js";
import { checkJson, type Shape } from "../util/jsoncheck.js";
import { redactUrl, Secrets, urlSecrets } from "../util/redact.js";

export interface Bucket {
  /** tokens added per second */
  rate: number;
  /** tokens the bucket holds at most (the burst allowed) */
  burst: number;
}

export interface Limits {
  perKey: Bucket;
  perProduct: Bucket;
}

export interface UpstreamConfig {
  /** its label (`endpoint.label`): the operator's name, else scheme://host:port — never its path or credentials */
  endpoint: Endpoint;
  /** what clients are told it is: the operator's name, else "upstream N" (never its address) */
  told: string;
  /** requests at work on this upstream at once, at most (litecoind's work queue is 16 deep) */
  maxConcurrency: number;
}

export interface ProductConfig {
  name: string;
  chain: GroupName;
  upstreams: UpstreamConfig[];
  /** methods outside the registry's group this product forwards (marks: none, unless the registry's helpers) */
  allow: string[];
  /** heavy methods: token buckets per key and per product; `methods` overrides them per method */
  limits: Limits & { methods: Record<string, Limits> };
  /** eth_getLogs: the widest block range (toBlock - fromBlock + 1) forwarded; 0 = no cap */
  maxLogsRange: number;
  /** an upstream more than this many blocks behind the best leaves the rotation */
  maxLag: number;
}

export interface GatewayConfig {
  file: string;
  host: string;
  port: number;
  keysFile: string;
  maxBodyBytes: number;
  maxBatch: number;
  requestTimeoutMs: number;
  /** one attempt of an idempotent read on one upstream, when another could answer it (a hung node's reads move) */
  attemptTimeoutMs: number;
  scanTimeoutMs: number;
  healthIntervalMs: number;
  healthTimeoutMs: number;
  /** a Redis command's deadline (`--state`): past it, the process keeps to its own memory a while */
  stateTimeoutMs: number;
  cache: { maxBytes: number; safeDepth: number };
  products: Map<string, ProductConfig>;
  /** /readyz and /metrics on their own address (then not on `host:port`) */
  ops?: { host: string; port: number };
  /** the upstreams' credentials and URL secrets (and the cookies'): scrubbed from what serve says */
  secrets: Secrets;
}

/** The documented defaults (docs/serve.md). */
export const SERVE_DEFAULTS = {
  listen: "127.0.0.1:8545",
  maxBodyBytes: 1024 * 1024,
  maxBatch: 1000,
  requestTimeoutS: 30,
  attemptTimeoutS: 5,
  scanTimeoutS: 3600,
  health: { intervalS: 2, timeoutS: 2 },
  stateTimeoutS: 0.1,
  upstreamConcurrency: 16,
  cache: { maxBytes: 64 * 1024 * 1024, safeDepth: 6 },
  limits: {
    perKey: { rate: 1, burst: 2 },
    perProduct: { rate: 4, burst: 8 },
  },
  maxLogsRange: 10_000,
} as const;

const num = (o: { min?: number; max?: number; integer?: boolean } = {}): Shape => ({ kind: "number", ...o });
const bucket: Shape = {
  kind: "object",
  keys: { rate: num({ min: 0 }), burst: num({ min: 1, integer: true }) },
  required: ["rate", "burst"],
};
const limits: Shape = { kind: "object", keys: { perKey: bucket, perProduct: bucket } };
const METHOD = /^[A-Za-z0-9_.:-]{1,100}$/;
const upstream: Shape = {
  kind: "either",
  expected: 'a URL, or {"url": .., "cookie"?: .., "maxConcurrency"?: ..}',
  shapes: [
    { kind: "string", pattern: /^https?:\/\//i, expected: "an http(s) URL" },
    {
      kind: "object",
      keys: {
        url: { kind: "string", pattern: /^https?:\/\//i, expected: "an http(s) URL" },
        name: {
          kind: "string",
          pattern: /^[A-Za-z0-9_.:-]{1,64}$/,
          expected: "a name (letters, digits, _ . : -)",
        },
        cookie: { kind: "string" },
        maxConcurrency: num({ min: 1, max: 1024, integer: true }),
      },
      required: ["url"],
    },
  ],
};

export const GATEWAY_SHAPE: Shape = {
  kind: "object",
  required: ["products"],
  keys: {
    listen: { kind: "string", pattern: /^[^\s]*:\d{1,5}$/, expected: "host:port, e.g. 127.0.0.1:8545" },
    opsListen: { kind: "string", pattern: /^[^\s]*:\d{1,5}$/, expected: "host:port, e.g. 127.0.0.1:9100" },
    keys: { kind: "string" },
    maxBodyBytes: num({ min: 256, integer: true }),
    maxBatch: num({ min: 1, max: 100_000, integer: true }),
    requestTimeout: num({ min: 0.001, max: 86_400 }),
    attemptTimeout: num({ min: 0.001, max: 86_400 }),
    scanTimeout: num({ min: 0.001, max: 86_400 }),
    health: {
      kind: "object",
      keys: { interval: num({ min: 0.05, max: 3600 }), timeout: num({ min: 0.05, max: 600 }) },
    },
    stateTimeout: num({ min: 0.001, max: 60 }),
    upstreamConcurrency: num({ min: 1, max: 1024, integer: true }),
    cache: {
      kind: "object",
      keys: {
        maxBytes: num({ min: 0, integer: true }),
        safeDepth: num({ min: 0, max: 10_000, integer: true }),
      },
    },
    limits,
    products: {
      kind: "map",
      min: 1,
      keyPattern: /^[A-Za-z0-9_.-]{1,64}$/,
      values: {
        kind: "object",
        required: ["chain", "upstreams"],
        keys: {
          chain: { kind: "string", oneOf: CHAIN_NAMES },
          upstreams: { kind: "array", items: upstream, min: 1, max: 64 },
          allow: { kind: "array", items: { kind: "string", pattern: METHOD, expected: "a method name" } },
          limits: {
            kind: "object",
            keys: {
              perKey: bucket,
              perProduct: bucket,
              methods: { kind: "map", keyPattern: METHOD, values: limits },
            },
          },
          maxLogsRange: num({ min: 0, integer: true }),
          maxLag: num({ min: 0, integer: true }),
        },
      },
    },
  },
};

interface RawBucket {
  rate: number;
  burst: number;
}
interface RawLimits {
  perKey?: RawBucket;
  perProduct?: RawBucket;
}
interface RawProduct {
  chain: GroupName;
  upstreams: (string | { url: string; name?: string; cookie?: string; maxConcurrency?: number })[];
  allow?: string[];
  limits?: RawLimits & { methods?: Record<string, RawLimits> };
  maxLogsRange?: number;
  maxLag?: number;
}
interface RawGateway {
  listen?: string;
  opsListen?: string;
  keys?: string;
  maxBodyBytes?: number;
  maxBatch?: number;
  requestTimeout?: number;
  attemptTimeout?: number;
  scanTimeout?: number;
  health?: { interval?: number; timeout?: number };
  stateTimeout?: number;
  upstreamConcurrency?: number;
  cache?: { maxBytes?: number; safeDepth?: number };
  limits?: RawLimits;
  products: Record<string, RawProduct>;
}

/** A gateway config file's JSON, checked against its shape (a refusal names the file and the field). */
function readGatewayFile(file: string): RawGateway {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(`cannot read gateway config ${file}: ${(e as NodeJS.ErrnoException)?.code ?? e}`);
  }
  return checkJson<RawGateway>(text, file, GATEWAY_SHAPE);
}

/** Reads and checks a gateway config file; relative paths in it are relative to the file. */
export function loadGatewayConfig(
  file: string,
  over: { listen?: string } = {},
  secrets: Secrets = new Secrets(),
): GatewayConfig {
  const raw = readGatewayFile(file);
  const dir = dirname(resolve(file));
  const listen = over.listen ?? raw.listen ?? SERVE_DEFAULTS.listen;
  const at = hostPort(listen, file, "listen");
  const top: Limits = {
    perKey: raw.limits?.perKey ?? SERVE_DEFAULTS.limits.perKey,
    perProduct: raw.limits?.perProduct ?? SERVE_DEFAULTS.limits.perProduct,
  };
  const concurrency = raw.upstreamConcurrency ?? SERVE_DEFAULTS.upstreamConcurrency;
  const products = new Map<string, ProductConfig>();
  for (const [name, p] of Object.entries(raw.products)) {
    const upstreams = p.upstreams.map((u, i): UpstreamConfig => {
      const o = typeof u === "string" ? { url: u } : u;
      const cookie = o.cookie ? readCookie(resolve(dir, o.cookie), secrets) : undefined;
      let endpoint: Endpoint;
      try {
        endpoint = nodeEndpoint(o.url, cookie, secrets);
      } catch {
        throw new UsageError(
          `${file}: products.${name}.upstreams[${i}]: ${JSON.stringify(redactUrl(o.url))} is not a URL`,
        );
      }
      for (const x of urlSecrets(o.url)) secrets.add(x);
      return {
        endpoint: { ...endpoint, label: o.name ?? hostLabel(endpoint.url) },
        told: o.name ?? `upstream ${i + 1}`,
        maxConcurrency: o.maxConcurrency ?? concurrency,
      };
    });
    distinctLabels(upstreams, `${file}: products.${name}.upstreams`);
    const own: Limits = {
      perKey: p.limits?.perKey ?? top.perKey,
      perProduct: p.limits?.perProduct ?? top.perProduct,
    };
    const methods: Record<string, Limits> = {};
    for (const [method, l] of Object.entries(p.limits?.methods ?? {}))
      methods[method] = { perKey: l.perKey ?? own.perKey, perProduct: l.perProduct ?? own.perProduct };
    products.set(name, {
      name,
      chain: p.chain,
      upstreams,
      allow: p.allow ?? [],
      limits: { ...own, methods },
      maxLogsRange: p.maxLogsRange ?? SERVE_DEFAULTS.maxLogsRange,
      maxLag: p.maxLag ?? groupOf(p.chain).maxLag,
    });
  }
  return {
    file,
    host: at.host,
    port: at.port,
    keysFile: resolve(dir, raw.keys ?? "keys.json"),
    maxBodyBytes: raw.maxBodyBytes ?? SERVE_DEFAULTS.maxBodyBytes,
    maxBatch: raw.maxBatch ?? SERVE_DEFAULTS.maxBatch,
    requestTimeoutMs: Math.round((raw.requestTimeout ?? SERVE_DEFAULTS.requestTimeoutS) * 1000),
    attemptTimeoutMs: Math.round((raw.attemptTimeout ?? SERVE_DEFAULTS.attemptTimeoutS) * 1000),
    scanTimeoutMs: Math.round((raw.scanTimeout ?? SERVE_DEFAULTS.scanTimeoutS) * 1000),
    healthIntervalMs: Math.round((raw.health?.interval ?? SERVE_DEFAULTS.health.intervalS) * 1000),
    healthTimeoutMs: Math.round((raw.health?.timeout ?? SERVE_DEFAULTS.health.timeoutS) * 1000),
    stateTimeoutMs: Math.max(1, Math.round((raw.stateTimeout ?? SERVE_DEFAULTS.stateTimeoutS) * 1000)),
    cache: {
      maxBytes: raw.cache?.maxBytes ?? SERVE_DEFAULTS.cache.maxBytes,
      safeDepth: raw.cache?.safeDepth ?? SERVE_DEFAULTS.cache.safeDepth,
    },
    products,
    ops: raw.opsListen === undefined ? undefined : hostPort(raw.opsListen, file, "opsListen"),
    secrets,
  };
}

/** scheme://host:port of an upstream URL: what /readyz, /metrics and the logs call it without a name. */
function hostLabel(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}`;
}

/**
 * Upstreams of one product told apart: a name given twice is refused; two unnamed ones on one host:port
 * (a provider's two keys) get " (2)", " (3)" after their label.
 */
function distinctLabels(list: UpstreamConfig[], where: string): void {
  const seen = new Map<string, number>();
  for (const u of list) {
    const n = (seen.get(u.endpoint.label) ?? 0) + 1;
    seen.set(u.endpoint.label, n);
    if (n === 1) continue;
    if (u.told === u.endpoint.label)
      throw new UsageError(`${where}: the name ${JSON.stringify(u.told)} is given twice`);
    u.endpoint = { ...u.endpoint, label: `${u.endpoint.label} (${n})` };
  }
}

/** host:port of a listen setting, or bad usage naming it. */
function hostPort(listen: string, file: string, what: string): { host: string; port: number } {
  const m = /^\[?([^\]]*)\]?:(\d+)$/.exec(listen);
  if (!m || Number(m[2]) > 65535)
    throw new UsageError(`${file}: ${what}: expected host:port, got ${JSON.stringify(listen)}`);
  return { host: m[1] || "127.0.0.1", port: Number(m[2]) };
}

/** The key file a gateway config names (relative to it), read without touching its upstreams. */
export function keysFileOf(file: string): { keysFile: string; products: string[] } {
  const raw = readGatewayFile(file);
  return {
    keysFile: resolve(dirname(resolve(file)), raw.keys ?? "keys.json"),
    products: Object.keys(raw.products),
  };
}
