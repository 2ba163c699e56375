/**
 * The shared state in Redis (`--state redis://…`): buckets in one Lua step on Redis's clock, pins, and the
 * cache beside this process's own LRU, failing open to that memory while Redis does not answer; a reorg's
 * drop Redis did not take is kept and sent again until it does.
 */
import {
  type CacheClaim,
  type CacheDep,
  type Claims,
  MemoryState,
  type SharedState,
  type Take,
  topHeights,
} from "./state.js";

/**
 * One atomic step over N token buckets, on Redis's own clock (replicas' clocks may differ): refill each,
 * and take its count of tokens (ARGV: rate, burst, count per key) from all of them only when all have them.
 */
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = #KEYS
local tokens = {}
local wait = 0
local short = -1
for i = 1, n do
  local rate = tonumber(ARGV[3 * i - 2])
  local burst = tonumber(ARGV[3 * i - 1])
  local need = math.min(tonumber(ARGV[3 * i]), burst)
  local s = redis.call('HMGET', KEYS[i], 'tokens', 'at')
  local tk = tonumber(s[1]) or burst
  local at = tonumber(s[2]) or now
  tk = math.min(burst, tk + (now - at) / 1000 * rate)
  tokens[i] = tk
  if tk < need then
    local w = 3600000
    if rate > 0 then w = math.ceil((need - tk) / rate * 1000) end
    if w > wait then wait = w end
    if short < 0 then short = i - 1 end
  end
end
for i = 1, n do
  local rate = tonumber(ARGV[3 * i - 2])
  local burst = tonumber(ARGV[3 * i - 1])
  local tk = tokens[i]
  if wait == 0 then tk = tk - tonumber(ARGV[3 * i]) end
  redis.call('HSET', KEYS[i], 'tokens', tostring(tk), 'at', tostring(now))
  local ttl = 60000
  if rate > 0 then ttl = math.ceil(burst / rate * 1000) + 1000 end
  redis.call('PEXPIRE', KEYS[i], ttl)
end
return {wait, short}
`;

/**
 * A scope's entries that depend on a block above ARGV[1], dropped from Redis: the answers (ARGV[2] is their
 * keys' prefix), their claims (KEYS[2]: key → block hash) and their heights (KEYS[1], a sorted set).
 */
const DROP_ABOVE = `
local keys = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf')
for i = 1, #keys do
  redis.call('DEL', ARGV[2] .. keys[i])
  redis.call('HDEL', KEYS[2], keys[i])
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf')
return #keys
`;

/** How long the process keeps to its own memory after a Redis command failed (its deadline: `stateTimeout`). */
const REDIS_RETRY_AFTER_MS = 1000;

/**
 * A drop Redis did not confirm is sent again after this, doubling up to the cap while it fails (one
 * command of `stateTimeout` each time: a Redis that hangs costs a probe every 5 s), and at once when any
 * other command finds Redis answering again.
 */
const DROP_RETRY_FIRST_MS = 250;
const DROP_RETRY_MAX_MS = 5000;

/** A drop as the notes name it. */
const dropOf = (height: number) =>
  height < 0 ? "every answer tied to a block" : `the answers above block ${height}`;

/**
 * A scope's drop that Redis did not confirm: every shared entry of the scope tied to a block goes when it
 * lands, not only those above the fork — the fork was found from the claims this process could read, and
 * with Redis failing those may have been its own alone (another replica's entries, lower, unseen).
 * `drops`: the drops it stands for; `seq` moves with each one that joins it while it is being sent.
 */
interface PendingDrop {
  drops: number;
  seq: number;
}

/**
 * A reorg's walk reads the shared claims in pages of this many keys, at most so many pages: the claims at
 * its highest heights, every one (a busy chain's receipts: hundreds a block).
 */
const CLAIMS_PAGE = 1024;
const CLAIMS_PAGES = 16;

/** Cached answers live a day in Redis; Redis's own maxmemory policy bounds the rest. */
const REDIS_CACHE_TTL_S = 86_400;

export class RedisState implements SharedState {
  readonly kind = "redis" as const;
  private readonly local: MemoryState;
  private warned = false;
  /** while Redis does not answer: until when every call skips it (a hung Redis costs nothing meanwhile) */
  private downUntil = 0;
  /** what the last failed command said */
  private problem = "";
  private constructor(
    private readonly redis: import("./vendor.js").Redis,
    cacheMaxBytes: number,
    private readonly prefix: string,
    private readonly warn: (line: string) => void,
  ) {
    // the same process's memory: in front of Redis for the cache (answers that cannot change), and the
    // fallback for buckets and pins while Redis does not answer
    this.local = new MemoryState(cacheMaxBytes);
  }

  static async connect(
    url: string,
    cacheMaxBytes: number,
    commandTimeoutMs: number,
    warn: (line: string) => void,
  ): Promise<RedisState> {
    const { Redis } = await import("./vendor.js");
    const redis = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      // a command's deadline (`stateTimeout`, 100 ms by default): loopback and LAN Redis answer in well
      // under a millisecond; a hung one must cost a request a few ms, not a second
      commandTimeout: commandTimeoutMs,
      connectTimeout: 2000,
    });
    redis.on("error", () => {});
    await redis.connect();
    redis.defineCommand("chaingwTake", { lua: TAKE });
    redis.defineCommand("chaingwDropAbove", { lua: DROP_ABOVE, numberOfKeys: 2 });
    return new RedisState(redis, cacheMaxBytes, "chaingw:", warn);
  }

  get cacheBytes(): number {
    return this.local.cacheBytes;
  }

  /** false from a failed command until one succeeds again */
  up = true;

  /** Runs `f` on Redis unless it is known down (then, or when it fails, `local`). */
  private async use<T>(f: () => Promise<T>, local: () => T | Promise<T>): Promise<T> {
    if (Date.now() < this.downUntil) return local();
    try {
      const v = await f();
      this.answered();
      return v;
    } catch (e) {
      this.fallback(e);
      return local();
    }
  }

  /** A command Redis answered: it is up (said once after an outage); a drop it missed is sent now. */
  private answered(): void {
    this.up = true;
    if (this.warned) {
      this.warned = false;
      this.warn("redis answers again; shared state back in Redis");
    }
    if (this.pending.size > 0 && !this.sending) this.retryDrops(0);
  }

  private fallback(e: unknown): void {
    this.problem = (e as Error)?.message ?? String(e);
    // skip Redis for a while; the first call after it probes again
    this.downUntil = Date.now() + REDIS_RETRY_AFTER_MS;
    this.up = false;
    if (this.warned) return;
    this.warned = true;
    this.warn(
      `redis unavailable (${(e as Error)?.message ?? e}); using this process's memory until it answers`,
    );
  }

  async take(list: Take[]) {
    return this.use(
      async () => {
        const args = list.flatMap((b) => [String(b.bucket.rate), String(b.bucket.burst), String(b.n ?? 1)]);
        const [wait, short] = (await (
          this.redis as unknown as {
            chaingwTake(n: number, ...a: string[]): Promise<[number, number]>;
          }
        ).chaingwTake(list.length, ...list.map((b) => this.prefix + "bucket:" + b.key), ...args)) as [
          number,
          number,
        ];
        return { waitMs: Number(wait), short: Number(short) < 0 ? undefined : Number(short) };
      },
      () => this.local.take(list),
    );
  }
  async getPin(key: string) {
    return this.use(
      async () => (await this.redis.get(this.prefix + "pin:" + key)) ?? undefined,
      () => this.local.getPin(key),
    );
  }
  async setPin(key: string, value: string, ttlMs: number) {
    await this.local.setPin(key, value, ttlMs);
    await this.use(
      async () => {
        await this.redis.set(this.prefix + "pin:" + key, value, "PX", Math.max(1, Math.round(ttlMs)));
      },
      () => {},
    );
  }
  async cacheGet(key: string, depOf?: (v: Buffer) => CacheDep | undefined) {
    const hit = await this.local.cacheGet(key);
    if (hit) return hit;
    return this.use(
      async () => {
        const v = await this.redis.getBuffer(this.prefix + "cache:" + key);
        if (!v) return undefined;
        const dep = depOf?.(v);
        // a drop Redis has not confirmed covers it (read after the answer came: a drop recorded while the
        // read was on its way counts too)
        if (this.awaitsDrop(key, dep, depOf !== undefined)) return undefined;
        await this.local.cacheSet(key, v, dep);
        return v;
      },
      () => undefined,
    );
  }
  /**
   * Whether a shared entry is one a pending drop covers: tied to a block (or of unknown tie: no `depOf`)
   * in a scope whose drop Redis has not confirmed.
   */
  private awaitsDrop(key: string, dep: CacheDep | undefined, tieKnown: boolean): boolean {
    if (this.pending.size === 0) return false;
    if (dep) return this.pending.has(dep.scope);
    if (tieKnown) return false;
    for (const scope of this.pending.keys()) if (key.startsWith(`${scope}|`)) return true;
    return false;
  }
  cacheDrop(prefix: string): void {
    this.local.cacheDrop(prefix);
  }
  /** a scope's heights (sorted set: key by block height) and claims (hash: key → block hash) in Redis */
  private depKeys(scope: string): [string, string] {
    return [`${this.prefix}deps:${scope}`, `${this.prefix}claims:${scope}`];
  }
  async cacheSet(key: string, value: Buffer, dep?: CacheDep) {
    await this.local.cacheSet(key, value, dep);
    await this.use(
      async () => {
        const m = this.redis.multi().set(this.prefix + "cache:" + key, value, "EX", REDIS_CACHE_TTL_S);
        if (dep) {
          // the claim lives as long as the answer (a claim whose answer expired only costs a probe)
          const [heights, claims] = this.depKeys(dep.scope);
          m.zadd(heights, dep.height, key)
            .hset(claims, key, dep.hash)
            .expire(heights, REDIS_CACHE_TTL_S)
            .expire(claims, REDIS_CACHE_TTL_S);
        }
        await m.exec();
      },
      () => {},
    );
  }
  /** This process's claims and the shared ones (an entry another replica stored) together. */
  async cacheClaims(scope: string, heights: number): Promise<Claims> {
    const local = await this.local.cacheClaims(scope, heights);
    const shared = await this.use(
      () => this.sharedClaims(scope, heights),
      () => undefined,
    );
    if (!shared) return { ...local, read: false };
    // a height is whole in both only down to the lowest each returned, unless it returned all it has
    const floor = (r: { claims: CacheClaim[]; all: boolean }) =>
      r.all ? Number.NEGATIVE_INFINITY : Math.min(...r.claims.map((c) => c.height));
    const low = Math.max(floor(local), floor(shared));
    const both = topHeights(
      [...local.claims, ...shared.claims].filter((c) => c.height >= low),
      heights,
    );
    return { claims: both.claims, all: both.all && local.all && shared.all, read: true };
  }
  /**
   * The shared claims at the scope's `heights` highest claimed heights, read in pages of CLAIMS_PAGE keys
   * (each page from where the last ended: its lowest height, past the keys of it already read), at most
   * CLAIMS_PAGES of them: a height the last page may have cut is left out, and the result is not all.
   */
  private async sharedClaims(
    scope: string,
    heights: number,
  ): Promise<{ claims: CacheClaim[]; all: boolean }> {
    const [byHeight, hashes] = this.depKeys(scope);
    const out: CacheClaim[] = [];
    let max = "+inf";
    let skip = 0;
    for (let page = 0; page < CLAIMS_PAGES; page++) {
      const flat = await this.redis.zrevrangebyscore(
        byHeight,
        max,
        "-inf",
        "WITHSCORES",
        "LIMIT",
        skip,
        CLAIMS_PAGE,
      );
      const keys = flat.filter((_, i) => i % 2 === 0);
      const got = keys.length > 0 ? await this.redis.hmget(hashes, ...keys) : [];
      keys.forEach((key, i) => {
        const hash = got[i];
        if (hash) out.push({ key, height: Number(flat[2 * i + 1]), hash });
      });
      const top = topHeights(out, heights);
      if (keys.length < CLAIMS_PAGE || !top.all) return top;
      const low = flat[flat.length - 1] as string;
      const atLow = keys.filter((_, i) => flat[2 * i + 1] === low).length;
      skip = (low === max ? skip : 0) + atLow;
      max = low;
    }
    // pages spent: the lowest height read may have more claims than were read
    const last = out[out.length - 1]?.height;
    return { claims: topHeights(out, heights).claims.filter((c) => c.height !== last), all: false };
  }
  /** The Lua step that drops a scope's shared entries tied to a block above `height`; how many. */
  private async dropShared(scope: string, height: number): Promise<number> {
    return Number(
      await (
        this.redis as unknown as {
          chaingwDropAbove(a: string, b: string, h: string, p: string): Promise<number>;
        }
      ).chaingwDropAbove(...this.depKeys(scope), String(height), this.prefix + "cache:"),
    );
  }
  async cacheDropAbove(scope: string, height: number, sharedHeight = height) {
    // Redis's records unread: this process's copies of its entries (made while the walk asked the node,
    // once Redis answered again) are as unknown as they are, and go with them
    const local = await this.local.cacheDropAbove(scope, Math.min(height, sharedHeight));
    const waiting = this.pending.get(scope);
    if (waiting) {
      // the scope's drop already waits for Redis and covers this one: counted, and sent again soon
      waiting.drops++;
      waiting.seq++;
      this.waitingDrops(scope, 1, `${dropOf(sharedHeight)} joins it`);
      this.retryDrops(0);
      return local;
    }
    const shared = await this.use(
      () => this.dropShared(scope, sharedHeight),
      () => undefined,
    );
    if (shared !== undefined) return Math.max(local, shared);
    this.pending.set(scope, { drops: 1, seq: 0 });
    this.waitingDrops(scope, 1, `${dropOf(sharedHeight)}; redis: ${this.problem}`);
    this.retryDrops(DROP_RETRY_FIRST_MS);
    return local;
  }
  /** Per product, the drops waiting for Redis (kept at 0 once a product had one, for /metrics). */
  private readonly waiting = new Map<string, number>();
  private readonly pending = new Map<string, PendingDrop>();
  private retryTimer?: NodeJS.Timeout;
  private retryMs = DROP_RETRY_FIRST_MS;
  private sending = false;
  private closed = false;
  pendingDrops(): ReadonlyMap<string, number> {
    return this.waiting;
  }
  /** Counts `n` drops more (or fewer) waiting for the scope's product, and says so. */
  private waitingDrops(scope: string, n: number, what: string): void {
    const product = scope.slice(0, scope.indexOf("|"));
    const now = (this.waiting.get(product) ?? 0) + n;
    this.waiting.set(product, now);
    this.warn(
      n > 0
        ? `product ${product}: ${now} cache ${now === 1 ? "drop waits" : "drops wait"} for redis (${what}); until redis confirms, no shared answer of ${product} tied to a block is served`
        : `product ${product}: ${what}; ${now} cache ${now === 1 ? "drop waits" : "drops wait"} for redis`,
    );
  }
  /** Sends the waiting drops again in `ms` (sooner if one is already due sooner); never after close. */
  private retryDrops(ms: number): void {
    if (this.closed || this.pending.size === 0) return;
    if (this.retryTimer) {
      if (ms > 0) return;
      clearTimeout(this.retryTimer);
    }
    this.retryTimer = setTimeout(() => void this.sendDrops(), ms);
    this.retryTimer.unref();
  }
  /**
   * The waiting drops, sent to Redis one scope after another (the Lua step is idempotent: one that timed
   * out and ran anyway is run again harmlessly); a failure backs off, doubling up to DROP_RETRY_MAX_MS.
   */
  private async sendDrops(): Promise<void> {
    this.retryTimer = undefined;
    if (this.sending || this.closed) return;
    this.sending = true;
    try {
      for (const [scope, p] of [...this.pending]) {
        const seq = p.seq;
        const n = await this.dropShared(scope, -1);
        // a drop that joined while this one was on its way is sent again (entries stored meanwhile)
        if (this.pending.get(scope)?.seq !== seq) continue;
        this.pending.delete(scope);
        this.waitingDrops(
          scope,
          -p.drops,
          `redis confirmed the cache ${p.drops === 1 ? "drop" : `drops (${p.drops})`} it had missed: ${n} shared answers tied to a block dropped`,
        );
      }
      this.retryMs = DROP_RETRY_FIRST_MS;
      this.sending = false;
      this.answered();
    } catch (e) {
      this.sending = false;
      this.fallback(e);
      this.retryMs = Math.min(this.retryMs * 2, DROP_RETRY_MAX_MS);
    }
    this.retryDrops(this.retryMs);
  }
  async close() {
    this.closed = true;
    clearTimeout(this.retryTimer);
    if (this.pending.size > 0)
      this.warn(
        `stopping with cache drops redis never confirmed (${[...this.waiting]
          .filter(([, n]) => n > 0)
          .map(([p, n]) => `${p}: ${n}`)
          .join(
            ", ",
          )}): the answers they were to drop stay in redis until a process starting on it compares its records with the chain, or they expire (a day)`,
      );
    this.redis.disconnect();
  }
}
