/**
 * What replicas of the gateway must share: rate-limit buckets, scan pins, the cache. In memory by
 * default; with `--state redis://...` in Redis, so several `serve` processes behind one load balancer
 * enforce one limit and share one cache. Redis trouble fails open to this process's memory (erpc and
 * proxyd do the same): a Redis outage must not take the gateway down with it.
 */
import type { Bucket } from "./config.js";

/** Tokens to take from one bucket. */
export type Take = { key: string; bucket: Bucket; n?: number };

/**
 * The block a cached answer depends on: the answer holds only while the chain's block at `height` is `hash`
 * (a by-height lookup, a transaction's block, a block's successor). `scope` is the product's cache namespace.
 */
export interface CacheDep {
  scope: string;
  height: number;
  hash: string;
}

/** A cached entry's claim about the chain, as recorded when it was stored. */
export interface CacheClaim {
  key: string;
  height: number;
  hash: string;
}

/**
 * A scope's claims at its highest claimed heights, every claim at each of them (a height read in part could
 * hide an old chain's entry behind the new chain's beside it). `all`: there are no others; `read`: false
 * when the shared store could not be read (this process's own alone).
 */
export interface Claims {
  claims: CacheClaim[];
  all: boolean;
  read: boolean;
}

/** Every claim at the `heights` highest of these (each claim once, by key), highest first; whether that is all. */
export function topHeights(list: CacheClaim[], heights: number): { claims: CacheClaim[]; all: boolean } {
  const seen = new Set<string>();
  const out: CacheClaim[] = [];
  let n = 0;
  for (const c of [...list].sort((a, b) => b.height - a.height)) {
    if (seen.has(c.key)) continue;
    seen.add(c.key);
    if (out.length === 0 || (out[out.length - 1] as CacheClaim).height !== c.height) {
      if (n === heights) return { claims: out, all: false };
      n++;
    }
    out.push(c);
  }
  return { claims: out, all: true };
}

export interface SharedState {
  /**
   * Takes `n` tokens (default 1) from every bucket, or none from any: 0 when taken, else the ms until all
   * have them (and the index of the first bucket that was short). A count over a bucket's burst (a batch of
   * more calls than the burst) is taken once the bucket is full, leaving it below zero: the calls after it
   * wait as long as the batch's extra calls would have.
   */
  take(buckets: Take[]): Promise<{ waitMs: number; short?: number }>;
  getPin(key: string): Promise<string | undefined>;
  setPin(key: string, value: string, ttlMs: number): Promise<void>;
  /** `depOf`: the block an answer read from the shared store depends on (recorded with this process's copy) */
  cacheGet(key: string, depOf?: (v: Buffer) => CacheDep | undefined): Promise<Buffer | undefined>;
  /** `dep`: the block the answer depends on (none: it holds on every chain that has it, e.g. raw bytes by hash) */
  cacheSet(key: string, value: Buffer, dep?: CacheDep): Promise<void>;
  /**
   * The claims of a scope's entries that depend on a block, at its `heights` highest claimed heights, highest
   * first: what the cache took the chain to be, for finding a reorg's fork.
   */
  cacheClaims(scope: string, heights: number): Promise<Claims>;
  /**
   * Drops a scope's entries that depend on a block above `height` (a reorg's fork); returns how many.
   * `shared`: above which the shared store's go, when not the same (-1: its records were not read, so the
   * fork says nothing of entries only it holds, nor of this process's copies of them: those go too).
   */
  cacheDropAbove(scope: string, height: number, shared?: number): Promise<number>;
  /**
   * Drops this process's cached entries whose key starts with `prefix` (a product's, when its chain
   * changed). Shared entries are unreachable already: their keys carry the chain they were stored for.
   */
  cacheDrop(prefix: string): void;
  /**
   * Per product: the drops the shared store has not confirmed yet (retried until it does; meanwhile none of
   * the product's shared entries tied to a block is served). Once a product had one, it stays listed (0).
   */
  pendingDrops?(): ReadonlyMap<string, number>;
  /** bytes held by this process's cache */
  readonly cacheBytes: number;
  /** the shared store answers (always true in memory); false while the process falls back on its own */
  readonly up: boolean;
  readonly kind: "memory" | "redis";
  close(): Promise<void>;
}

/**
 * An LRU of byte strings, bounded by the bytes it holds (keys counted too). A hit moves its entry to the end
 * with the key and entry it was stored with, not the caller's fresh key string: a long-lived Map that young
 * objects pass through keeps them alive past the next scavenges (see the in-flight list in upstreams.ts).
 */
export class ByteLru {
  private readonly map = new Map<string, { key: string; value: Buffer; dep?: CacheDep }>();
  bytes = 0;
  /**
   * Each scope's entries that depend on a block: key → its block (kept in step with the map: an entry
   * evicted, replaced or dropped leaves it).
   */
  private readonly deps = new Map<string, Map<string, { height: number; hash: string }>>();
  constructor(readonly maxBytes: number) {}
  get(k: string): Buffer | undefined {
    const e = this.map.get(k);
    if (e === undefined) return undefined;
    // Map keeps insertion order: moving a hit to the end makes the first entry the least recently used
    this.map.delete(e.key);
    this.map.set(e.key, e);
    return e.value;
  }
  set(k: string, v: Buffer, dep?: CacheDep): void {
    const size = v.length + k.length * 2;
    if (size > this.maxBytes / 8) return;
    this.delete(k);
    this.map.set(k, { key: k, value: v, dep });
    this.bytes += size;
    if (dep) {
      const d = this.deps.get(dep.scope) ?? new Map();
      this.deps.set(dep.scope, d);
      d.set(k, { height: dep.height, hash: dep.hash });
    }
    for (const ok of this.map.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.delete(ok);
    }
  }
  /** Drops one entry (and its claim). */
  delete(k: string): boolean {
    const e = this.map.get(k);
    if (!e) return false;
    this.map.delete(k);
    this.bytes -= e.value.length + k.length * 2;
    if (e.dep) {
      const d = this.deps.get(e.dep.scope);
      d?.delete(k);
      if (d?.size === 0) this.deps.delete(e.dep.scope);
    }
    return true;
  }
  get size(): number {
    return this.map.size;
  }
  /** Drops the entries whose key starts with `prefix`. */
  dropPrefix(prefix: string): void {
    for (const k of this.map.keys()) if (k.startsWith(prefix)) this.delete(k);
  }
  /** A scope's claims at its `heights` highest claimed heights, highest first. */
  claims(scope: string, heights: number): { claims: CacheClaim[]; all: boolean } {
    const out: CacheClaim[] = [];
    for (const [key, c] of this.deps.get(scope) ?? []) out.push({ key, height: c.height, hash: c.hash });
    return topHeights(out, heights);
  }
  /** Drops a scope's entries that depend on a block above `height`; how many. */
  dropAbove(scope: string, height: number): number {
    let n = 0;
    for (const [k, c] of [...(this.deps.get(scope) ?? [])]) if (c.height > height && this.delete(k)) n++;
    return n;
  }
}

export class MemoryState implements SharedState {
  readonly kind = "memory" as const;
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly pins = new Map<string, { value: string; until: number }>();
  private readonly lru: ByteLru;
  constructor(cacheMaxBytes: number) {
    this.lru = new ByteLru(cacheMaxBytes);
  }
  get cacheBytes(): number {
    return this.lru.bytes;
  }
  async take(list: Take[]) {
    return this.takeNow(list, Date.now());
  }
  takeNow(list: Take[], now: number): { waitMs: number; short?: number } {
    const states = list.map(({ key, bucket, n = 1 }) => {
      const s = this.buckets.get(key) ?? { tokens: bucket.burst, at: now };
      const tokens = Math.min(bucket.burst, s.tokens + ((now - s.at) / 1000) * bucket.rate);
      return { key, bucket, tokens, n, need: Math.min(n, bucket.burst) };
    });
    let waitMs = 0;
    let short: number | undefined;
    states.forEach((s, i) => {
      if (s.tokens >= s.need) return;
      const w = s.bucket.rate > 0 ? Math.ceil(((s.need - s.tokens) / s.bucket.rate) * 1000) : 3_600_000;
      if (w > waitMs) waitMs = w;
      short ??= i;
    });
    for (const s of states) this.buckets.set(s.key, { tokens: waitMs ? s.tokens : s.tokens - s.n, at: now });
    // idle buckets are full again: forget them, so the map holds only the busy ones
    if (this.buckets.size > 10_000)
      for (const [k, v] of this.buckets) if (now - v.at > 3_600_000) this.buckets.delete(k);
    return { waitMs, short };
  }
  async getPin(key: string) {
    const p = this.pins.get(key);
    if (!p) return undefined;
    if (p.until < Date.now()) {
      this.pins.delete(key);
      return undefined;
    }
    return p.value;
  }
  async setPin(key: string, value: string, ttlMs: number) {
    this.pins.set(key, { value, until: Date.now() + ttlMs });
  }
  async cacheGet(key: string) {
    return this.lru.get(key);
  }
  async cacheSet(key: string, value: Buffer, dep?: CacheDep) {
    this.lru.set(key, value, dep);
  }
  cacheDrop(prefix: string): void {
    this.lru.dropPrefix(prefix);
  }
  async cacheClaims(scope: string, heights: number): Promise<Claims> {
    return { ...this.lru.claims(scope, heights), read: true };
  }
  async cacheDropAbove(scope: string, height: number) {
    return this.lru.dropAbove(scope, height);
  }
  readonly up = true;
  async close() {}
}
