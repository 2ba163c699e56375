/** The test helpers themselves: the litecoind and anvil starters, the gateway and fault fixtures answer as the tests assume. */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FaultServer, refusedUrl, startFaultServer } from "./fixtures/faults.js";
import { type Gateway, startGateway } from "./fixtures/gateway.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { postRaw } from "./helpers/http.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { HANG_GUARD_MS, until } from "./helpers/procs.js";

// Proves the harness itself against real nodes; the CLI's own tests build on these pieces.

const body = (method: string, params: unknown[] = [], id = 1): string =>
  JSON.stringify({ jsonrpc: "2.0", id, method, params });

describe("litecoind helper", () => {
  let ltc: LitecoinNode;
  beforeAll(async () => {
    ltc = await startLitecoind({ blocks: 101 });
  });
  afterAll(async () => {
    await ltc?.stop();
  });

  it("mines and answers RPC with user/password", async () => {
    expect(await ltc.rpc<number>("getblockcount")).toBe(101);
    expect(ltc.url).toBe(`http://127.0.0.1:${ltc.port}/`);
    expect(ltc.authUrl).toContain(`${ltc.user}:${ltc.password}@127.0.0.1:${ltc.port}`);
    const addr = await ltc.newAddress();
    expect(addr).toMatch(/^rltc1q/);
    const hashes = await ltc.mine(2, addr);
    expect(hashes).toHaveLength(2);
    expect(await ltc.rpc<number>("getblockcount")).toBe(103);
  });

  it("throws an Error with the RPC code, and rawCall shows the legacy HTTP 500", async () => {
    await expect(ltc.rpc("getblock", ["zz"])).rejects.toMatchObject({ code: -8 });
    const raw = await ltc.rawCall(body("getblock", ["00".repeat(32)]));
    expect(raw.status).toBe(500);
    expect(JSON.parse(raw.text).error.code).toBe(-5);
  });

  it("rejects unauthenticated calls with 401", async () => {
    const r = await postRaw(ltc.url, body("getblockcount"));
    expect(r.status).toBe(401);
  });

  it("works in cookie mode", async () => {
    const c = await startLitecoind({ cookie: true });
    try {
      expect(c.cookieFile).toBe(`${c.datadir}/regtest/.cookie`);
      expect(c.user).toBe("__cookie__");
      expect(c.password).toMatch(/^[0-9a-f]{64}$/);
      await c.mine(3);
      expect(await c.rpc<number>("getblockcount")).toBe(3);
    } finally {
      await c.stop();
    }
  });
});

describe("anvil helper", () => {
  let anvil: AnvilNode;
  beforeAll(async () => {
    anvil = await startAnvil();
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  it("answers eth_blockNumber and mines", async () => {
    expect(await anvil.rpc<string>("eth_blockNumber")).toBe("0x0");
    await anvil.rpc("anvil_mine", ["0x5"]);
    expect(await anvil.rpc<string>("eth_blockNumber")).toBe("0x5");
    await expect(anvil.rpc("no_such_method")).rejects.toHaveProperty("code");
  });
});

describe("gateway and fault fixtures", () => {
  let ltc: LitecoinNode;
  let gw: Gateway;
  let fault: FaultServer;
  beforeAll(async () => {
    ltc = await startLitecoind({ blocks: 5 });
    gw = await startGateway({
      apiKey: "k-123",
      products: { ltc: { url: ltc.url, user: ltc.user, password: ltc.password } },
    });
    fault = await startFaultServer({ upstream: { url: ltc.url, user: ltc.user, password: ltc.password } });
  });
  afterAll(async () => {
    await fault?.stop();
    await gw?.stop();
    await ltc?.stop();
  });

  it("forwards with a valid key and relays the node's bytes", async () => {
    const r = await postRaw(`${gw.baseUrl}/v1/ltc`, body("getblockcount", [], 7), {
      headers: { "x-api-key": "k-123" },
    });
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(r.text)).toMatchObject({ result: 5, error: null, id: 7 });
    expect(gw.lastHeaders?.["x-api-key"]).toBe("k-123");

    // The node's HTTP 500 for an RPC error passes through untouched.
    const e = await postRaw(`${gw.baseUrl}/v1/ltc`, body("getblock", ["zz"]), {
      headers: { "x-api-key": "k-123" },
    });
    expect(e.status).toBe(500);
    expect(JSON.parse(e.text).error.code).toBe(-8);
    expect(gw.hits.byProduct.ltc).toBe(2);
  });

  it("rejects missing key, wrong key, unknown product, other paths and methods", async () => {
    const before = gw.hits.rejected;
    const missing = await postRaw(`${gw.baseUrl}/v1/ltc`, body("getblockcount"));
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.text)).toEqual({
      jsonrpc: "2.0",
      error: { code: -32001, message: "missing API key" },
      id: null,
    });
    const wrong = await postRaw(`${gw.baseUrl}/v1/ltc`, body("getblockcount"), {
      headers: { "x-api-key": "nope" },
    });
    expect(wrong.status).toBe(403);
    expect(JSON.parse(wrong.text).error.message).toBe("invalid API key");
    const unknown = await postRaw(`${gw.baseUrl}/v1/btc`, body("getblockcount"), {
      headers: { "x-api-key": "k-123" },
    });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text).error.message).toBe("unknown product");
    const other = await postRaw(`${gw.baseUrl}/v2/ltc`, body("getblockcount"), {
      headers: { "x-api-key": "k-123" },
    });
    expect(other.status).toBe(404);
    const get = await new Promise<number>((resolve, reject) => {
      request(`${gw.baseUrl}/v1/ltc`, { method: "GET" }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on("error", reject)
        .end();
    });
    expect(get).toBe(405);
    expect(gw.hits.rejected - before).toBe(5);
  });

  it("fault server: pass, status 503, hang with a client timeout, per-method faults", async () => {
    const pass = await postRaw(fault.url, body("getblockcount"));
    expect(pass.status).toBe(200);
    expect(JSON.parse(pass.text).result).toBe(5);

    fault.setFault({ kind: "status", status: 503, body: "Work queue depth exceeded" });
    const busy = await postRaw(fault.url, body("getblockcount"));
    expect(busy.status).toBe(503);
    expect(busy.text).toBe("Work queue depth exceeded");

    fault.setFault({ kind: "hang" });
    const hung = fault.hits + 1;
    await expect(postRaw(fault.url, body("getblockcount"), { timeoutMs: 300 })).rejects.toThrow(/timed out/);
    // the server held it; the client's timeout ended it (the server's log, not a clock)
    await until("the hung request's close", () =>
      fault.events.some((e) => e.request === hung && e.event !== "arrived"),
    );
    expect(fault.events.filter((e) => e.request === hung).map((e) => e.event)).toEqual([
      "arrived",
      "closed unanswered",
    ]);

    fault.setFault({ kind: "pass" });
    fault.setMethodFault(
      "scantxoutset",
      { kind: "status", status: 500, body: "boom" },
      (p) => p[0] === "start",
    );
    const status = await postRaw(fault.url, body("scantxoutset", ["status"]));
    expect(JSON.parse(status.text).result).toBeNull();
    const start = await postRaw(fault.url, body("scantxoutset", ["start", []]));
    expect(start.text).toBe("boom");
    fault.setMethodFault("scantxoutset", null);

    expect(fault.hits).toBe(5);
    expect(fault.hitsByMethod).toEqual({ getblockcount: 3, scantxoutset: 2 });
  });

  it("fault server: body-bending faults", async () => {
    fault.setFault({ kind: "wrongId" });
    expect(JSON.parse((await postRaw(fault.url, body("getblockcount", [], 3))).text).id).toBe(1003);
    fault.setFault({ kind: "truncated" });
    const t = await postRaw(fault.url, body("getblockcount"));
    expect(() => JSON.parse(t.text)).toThrow();
    fault.setFault({ kind: "noResult" });
    expect(JSON.parse((await postRaw(fault.url, body("getblockcount", [], 9))).text)).toEqual({
      jsonrpc: "2.0",
      id: 9,
    });
    fault.setFault({ kind: "huge", bytes: 1_000_000 });
    const huge = await postRaw(fault.url, body("getblockcount", [], 4));
    expect(huge.text.length).toBe(1_000_000);
    expect(JSON.parse(huge.text).id).toBe(4);
    fault.setFault({ kind: "html" });
    const html = await postRaw(fault.url, body("getblockcount"));
    expect(html.status).toBe(502);
    expect(html.headers["content-type"]).toBe("text/html");
    fault.setFault({ kind: "reset" });
    await expect(postRaw(fault.url, body("getblockcount"))).rejects.toThrow(/ECONNRESET|socket hang up/);
    fault.setFault({ kind: "slowBody", chunkEveryMs: 1 });
    expect(JSON.parse((await postRaw(fault.url, body("getblockcount"))).text).result).toBe(5);
    fault.setFault({ kind: "delay", ms: 200 });
    const t0 = Date.now();
    expect((await postRaw(fault.url, body("getblockcount"))).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
    fault.setFault({ kind: "pass" });
  });

  it("gateway in front of a fault server relays a 503 and Retry-After", async () => {
    const gw2 = await startGateway({ apiKey: "k", products: { ltc: { url: fault.url } } });
    try {
      fault.setFault({ kind: "status", status: 503, headers: { "retry-after": "2" } });
      const r = await postRaw(`${gw2.baseUrl}/v1/ltc`, body("getblockcount"), {
        headers: { "x-api-key": "k" },
      });
      expect(r.status).toBe(503);
      expect(r.headers["retry-after"]).toBe("2");
    } finally {
      fault.setFault({ kind: "pass" });
      await gw2.stop();
    }
  });

  it("refusedUrl refuses connections", async () => {
    await expect(postRaw(await refusedUrl(), body("getblockcount"))).rejects.toThrow(/ECONNREFUSED/);
  });

  it("stop() cuts hanging sockets", async () => {
    const f = await startFaultServer({ fault: { kind: "hang" } });
    // the client would wait as long as a hang may last: only the cut ends it before that
    const pending = postRaw(f.url, body("getblockcount"), { timeoutMs: HANG_GUARD_MS });
    await until("the request at the server", () => f.of("arrived").length === 1);
    await f.stop();
    await expect(pending).rejects.toThrow(/ECONNRESET|socket hang up/);
    await until("the cut request's close", () => f.events.length === 2);
    expect(f.events.map((e) => e.event)).toEqual(["arrived", "cut at stop"]);
    // Without an upstream, "pass" is a 502.
    const g = await startFaultServer();
    try {
      expect((await postRaw(g.url, body("getblockcount"))).status).toBe(502);
    } finally {
      await g.stop();
    }
  });
});
