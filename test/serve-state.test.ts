/**
 * `chaingw serve`'s config check, its cache of answers that cannot change, state shared by two replicas
 * through a real redis-server, and SIGTERM draining the requests in flight.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FaultServer, startFaultServer } from "./fixtures/faults.js";
import { runCli } from "./helpers/cli.js";
import { postRaw } from "./helpers/http.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { HANG_GUARD_MS, until } from "./helpers/procs.js";
import { type RedisServer, startRedis } from "./helpers/redis.js";
import { addKey, gatewayDir, PROBE_TIMEOUT_S, type Served, startServe } from "./helpers/serve.js";

let node: LitecoinNode;
let proxy: FaultServer;
let redis: RedisServer;

beforeAll(async () => {
  [node, redis] = await Promise.all([startLitecoind({ blocks: 20 }), startRedis()]);
  proxy = await startFaultServer({ upstream: { url: node.url, user: node.user, password: node.password } });
});

afterAll(async () => {
  await proxy?.stop();
  await Promise.all([node?.stop(), redis?.stop()]);
});

const post = (gw: Served, key: string, body: unknown) =>
  postRaw(`${gw.url}/v1/ltc`, JSON.stringify(body), { headers: { "x-api-key": key } });
const call = (method: string, params: unknown[], id = 1) => ({ jsonrpc: "2.0", id, method, params });

describe("config check", () => {
  it("unknown keys and wrong types are refused with their line, exit 2", async () => {
    const dir = gatewayDir();
    const f = join(dir, "gateway.json");
    writeFileSync(
      f,
      [
        "{",
        '  "listen": "127.0.0.1:0",',
        '  "products": {',
        '    "ltc": {',
        '      "chain": "utxo",',
        '      "upstream": ["http://127.0.0.1:1/"],',
        '      "maxLag": "two"',
        "    }",
        "  }",
        "}",
      ].join("\n"),
    );
    const r = await runCli(["serve", "--config", f]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("line 6: products.ltc.upstream: unknown key (did you mean upstreams?)");
    expect(r.stderr).toContain("line 7: products.ltc.maxLag: expected a whole number >= 0, got string");
    expect(r.stderr).toContain("line 4: products.ltc.upstreams: missing");
    writeFileSync(f, '{"products": {"ltc": {"chain": "utxo", "upstreams": ["http://127.0.0.1:1/"],}}}');
    const bad = await runCli(["serve", "--config", f]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/line 1: not valid JSON/);
  });
});

describe("cache", () => {
  let gw: Served;
  let key: string;
  beforeAll(async () => {
    gw = await startServe(
      {
        products: { ltc: { chain: "utxo", upstreams: [proxy.url] } },
        cache: { safeDepth: 6 },
        health: { interval: 0.2, timeout: PROBE_TIMEOUT_S },
      },
      { keys: [["ltc"]] },
    );
    [key] = gw.keys;
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it("a deep header by hash is served again without the node; confirmations follow the tip", async () => {
    const hash = await node.rpc<string>("getblockhash", [3]);
    const before = proxy.hitsByMethod.getblockheader ?? 0;
    const first = await post(gw, key, call("getblockheader", [hash]));
    const second = await post(gw, key, call("getblockheader", [hash], 2));
    expect((proxy.hitsByMethod.getblockheader ?? 0) - before).toBe(1);
    expect(JSON.parse(second.text).result).toEqual(JSON.parse(first.text).result);
    expect(second.text).toMatch(/^\{"jsonrpc":"2.0","id":2,"result":/);
    await node.mine(2);
    const tip = await node.rpc<number>("getblockcount");
    await expect
      .poll(
        async () =>
          JSON.parse((await post(gw, key, call("getblockheader", [hash]))).text).result.confirmations,
        { timeout: HANG_GUARD_MS },
      )
      .toBe(tip - 3 + 1);
    expect((proxy.hitsByMethod.getblockheader ?? 0) - before).toBe(1);
    // the cached answer equals the node's own, field for field
    expect(JSON.parse((await post(gw, key, call("getblockheader", [hash]))).text).result).toEqual(
      await node.rpc("getblockheader", [hash]),
    );
    const m = await (await fetch(`${gw.url}/metrics`)).text();
    expect(m).toMatch(/chaingw_serve_cache_hits_total\{product="ltc",method="getblockheader"\} [3-9]/);
  });

  it("nothing that depends on the tip: a header near the tip and getblockhash above the safe depth go to the node", async () => {
    const tip = await node.rpc<number>("getblockcount");
    const near = await node.rpc<string>("getblockhash", [tip - 1]);
    const h0 = proxy.hitsByMethod.getblockheader ?? 0;
    await post(gw, key, call("getblockheader", [near]));
    await post(gw, key, call("getblockheader", [near]));
    expect((proxy.hitsByMethod.getblockheader ?? 0) - h0).toBe(2);
    // (every health check asks getblockhash [0] too: counted by params)
    const asked = () => proxy.hitsOf("getblockhash", [tip]) + proxy.hitsOf("getblockhash", [2]);
    const g0 = asked();
    await post(gw, key, call("getblockhash", [tip]));
    await post(gw, key, call("getblockhash", [tip]));
    await post(gw, key, call("getblockhash", [2]));
    await post(gw, key, call("getblockhash", [2]));
    expect(asked() - g0).toBe(3);
    // a node error is never cached
    const e0 = proxy.hitsByMethod.getblock ?? 0;
    await post(gw, key, call("getblock", ["22".repeat(32)]));
    await post(gw, key, call("getblock", ["22".repeat(32)]));
    expect((proxy.hitsByMethod.getblock ?? 0) - e0).toBe(2);
  });
});

describe("the in-process cache's LRU", () => {
  it("a hit is the most recent; the least recent go first when the bytes pass the bound", async () => {
    const { ByteLru } = await import("../src/serve/state.js");
    const lru = new ByteLru(1000);
    const v = (n: number) => Buffer.alloc(n, 1);
    // each entry: 100 bytes + its 2-character key (4 bytes)
    for (const k of ["aa", "bb", "cc", "dd", "ee", "ff", "gg", "hh", "ii"]) lru.set(k, v(100));
    expect(lru.bytes).toBe(9 * 104);
    expect(lru.get("aa")?.length).toBe(100); // aa is now the most recent
    lru.set("jj", v(100)); // 1,040 bytes: bb, the least recent, goes
    expect(lru.get("bb")).toBeUndefined();
    expect(lru.get("aa")?.length).toBe(100);
    lru.set("cc", v(50)); // replaced in place of its old size
    expect(lru.bytes).toBe(9 * 104 - 50);
    expect(lru.size).toBe(9);
    lru.set("big", v(200)); // over an eighth of the bound: not kept
    expect(lru.get("big")).toBeUndefined();
  });
});

describe("two replicas on one Redis", () => {
  let g1: Served;
  let g2: Served;
  let key: string;
  beforeAll(async () => {
    const dir = gatewayDir();
    const config = {
      products: { ltc: { chain: "utxo", upstreams: [proxy.url] } },
      limits: { perKey: { rate: 0.2, burst: 1 }, perProduct: { rate: 100, burst: 100 } },
    };
    writeFileSync(join(dir, "gateway.json"), JSON.stringify({ keys: "keys.json", ...config }));
    key = await addKey(join(dir, "gateway.json"), ["ltc"]);
    [g1, g2] = await Promise.all([
      startServe(config, { dir, args: ["--state", redis.url] }),
      startServe(config, { dir, args: ["--state", redis.url] }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([g1?.stop(), g2?.stop()]);
  });

  it("enforce one shared limit: the second replica refuses what the first let through", async () => {
    const r1 = await post(g1, key, call("gettxoutsetinfo", ["none"]));
    expect(r1.status).toBe(200);
    const r2 = await post(g2, key, call("gettxoutsetinfo", ["none"]));
    expect(r2.status).toBe(429);
    expect(Number(r2.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(g1.notes()).toContain("state redis");
  });

  it("share one cache: what one replica fetched, the other serves without the node", async () => {
    const hash = await node.rpc<string>("getblockhash", [1]);
    const before = proxy.hitsByMethod.getblock ?? 0;
    const r1 = await post(g1, key, call("getblock", [hash, 0]));
    const r2 = await post(g2, key, call("getblock", [hash, 0]));
    expect(r2.text).toBe(r1.text);
    expect((proxy.hitsByMethod.getblock ?? 0) - before).toBe(1);
  });
});

describe("SIGTERM", () => {
  it("drains the request in flight, then exits 0", async () => {
    const gw = await startServe(
      { products: { ltc: { chain: "utxo", upstreams: [proxy.url] } } },
      { keys: [["ltc"]] },
    );
    // held at the node until the SIGTERM was taken: in flight, however slow the host
    let release = () => {};
    proxy.setMethodFault("getnetworkinfo", { kind: "held", until: new Promise<void>((r) => (release = r)) });
    try {
      const before = proxy.hitsByMethod.getnetworkinfo ?? 0;
      const inflight = post(gw, gw.keys[0], call("getnetworkinfo", []));
      await until("the call at the node", () => (proxy.hitsByMethod.getnetworkinfo ?? 0) > before);
      const code = gw.stop();
      await until("the SIGTERM taken", () => gw.notes().includes("SIGTERM: draining"));
      release();
      const r = await inflight;
      expect(r.status).toBe(200);
      expect(await code).toBe(0);
      expect(gw.notes()).toMatch(/SIGTERM: draining requests in flight[\s\S]*stopped/);
    } finally {
      release();
      proxy.setMethodFault("getnetworkinfo", null);
    }
  });
});
