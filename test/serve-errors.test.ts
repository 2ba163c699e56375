/**
 * The gateway's error table (src/serve/errors.ts, the README's copy) row by row: what `chaingw serve`
 * answers (HTTP status, JSON-RPC code), and what the chaingw CLI does with it — and, where the spec's
 * gateway fixture (test/fixtures/gateway.ts) has the same case, that the CLI does the same there.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorTableMarkdown, GATEWAY_ERRORS } from "../src/serve/errors.js";
import { type FaultServer, startFaultServer } from "./fixtures/faults.js";
import { type Gateway, startGateway } from "./fixtures/gateway.js";
import { runCli } from "./helpers/cli.js";
import { postRaw } from "./helpers/http.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { freePort } from "./helpers/ports.js";
import { PROBE_TIMEOUT_S, type Served, startServe } from "./helpers/serve.js";

let node: LitecoinNode;
let proxy: FaultServer;
let gw: Served;
let fixture: Gateway;
let key: string;
let otherKey: string;
const FIXTURE_KEY = "fixture-key-0123";
let hash: string;

beforeAll(async () => {
  node = await startLitecoind({ blocks: 5 });
  hash = await node.rpc<string>("getblockhash", [1]);
  proxy = await startFaultServer({ upstream: { url: node.url, user: node.user, password: node.password } });
  const dead = `http://127.0.0.1:${await freePort()}/`;
  gw = await startServe(
    {
      products: {
        ltc: {
          chain: "utxo",
          upstreams: [proxy.url],
          limits: { methods: { gettxoutsetinfo: { perKey: { rate: 0.5, burst: 1 } } } },
        },
        dead: { chain: "utxo", upstreams: [dead] },
        other: { chain: "utxo", upstreams: [proxy.url] },
      },
      // the timeout row's hang costs this long; every other row shares it, and a loaded host's litecoind can
      // take over a second to answer one of theirs
      requestTimeout: 5,
      maxBodyBytes: 2048,
      maxBatch: 10,
      health: { interval: 0.3, timeout: PROBE_TIMEOUT_S },
    },
    { keys: [["ltc", "dead"], ["other"]] },
  );
  [key, otherKey] = gw.keys;
  fixture = await startGateway({
    apiKey: FIXTURE_KEY,
    products: { ltc: { url: node.url, user: node.user, password: node.password } },
  });
});

afterAll(async () => {
  await gw?.stop();
  await fixture?.stop();
  await proxy?.stop();
  await node?.stop();
});

const serveCli = (args: string[], o: { key?: string; product?: string } = {}) =>
  runCli(["--gateway", gw.url, "--product", o.product ?? "ltc", "--retries", "0", ...args], {
    env: o.key === "" ? {} : { CHAINGW_API_KEY: o.key ?? key },
  });
const fixtureCli = (args: string[], o: { key?: string; product?: string } = {}) =>
  runCli(["--gateway", fixture.baseUrl, "--product", o.product ?? "ltc", "--retries", "0", ...args], {
    env: o.key === "" ? {} : { CHAINGW_API_KEY: o.key ?? FIXTURE_KEY },
  });
const raw = (body: string, o: { product?: string; method?: string } = {}) =>
  postRaw(`${gw.url}/v1/${o.product ?? "ltc"}`, body, { headers: { "x-api-key": key } });
const errorOf = (text: string) => JSON.parse(text).error as { code: number; message: string };

describe("every row of the error table", () => {
  it("parse, invalid request (the CLI never sends them): raw HTTP", async () => {
    for (const [body, row] of [
      ["{", GATEWAY_ERRORS.parse],
      ['{"jsonrpc":"2.0","id":1,"method":"getblockcount","params":"x"}', GATEWAY_ERRORS.invalidRequest],
      // named params: JSON-RPC 2.0 allows them, the registry takes params by position (issue 26)
      ['{"jsonrpc":"2.0","id":1,"method":"getblockcount","params":{}}', GATEWAY_ERRORS.invalidParams],
    ] as const) {
      const r = await raw(body);
      // JSON-RPC-level errors come in a 200 to a 2.0 request (ethers and web3.py read no other body)
      expect([r.status, errorOf(r.text).code]).toEqual([200, row.code]);
    }
    const get = await fetch(`${gw.url}/v1/ltc`, { headers: { "x-api-key": key } });
    expect(get.status).toBe(GATEWAY_ERRORS.notPost.http);
    expect(get.headers.get("allow")).toBe("POST");
  });

  it("unknown product: 404 -32001; the CLI says wrong URL or product, exit 3 (the fixture alike)", async () => {
    const r = await serveCli(["getblockchaininfo"], { product: "nope" });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(
      /HTTP 404: -32001: unknown product: the path is not \/v1\/\{product_id\} of a product served here \(wrong URL or product\?\)/,
    );
    expect(r.stderr).not.toContain('nope"');
    const f = await fixtureCli(["getblockchaininfo"], { product: "nope" });
    expect(f.exitCode).toBe(3);
  });

  it("missing key 401, unknown key 401, other product 403: exit 4 (the fixture: missing 401, wrong 403, exit 4)", async () => {
    const rows: [Awaited<ReturnType<typeof runCli>>, number][] = [
      [await serveCli(["getblockchaininfo"], { key: "" }), 401],
      [await serveCli(["getblockchaininfo"], { key: "cgw_wrong" }), 401],
      [await serveCli(["getblockchaininfo"], { key: otherKey }), 403],
      [await fixtureCli(["getblockchaininfo"], { key: "" }), 401],
      [await fixtureCli(["getblockchaininfo"], { key: "wrong" }), 403],
    ];
    for (const [r, status] of rows) {
      expect(r.exitCode).toBe(4);
      expect(r.stderr).toContain(`HTTP ${status}`);
    }
  });

  it("body too large: 413 -32021, nothing forwarded; the CLI: exit 3 naming HTTP 413", async () => {
    const before = proxy.hitsByMethod.validateaddress ?? 0;
    const r = await serveCli(["rpc", "validateaddress", "x".repeat(3000)]);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/HTTP 413: -32021: request body too large/);
    expect(proxy.hitsByMethod.validateaddress ?? 0).toBe(before);
  });

  it("batch too large: 413 -32014; the CLI's batch re-sends entry by entry, all answered", async () => {
    const body = JSON.stringify(
      Array.from({ length: 11 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "getblockcount", params: [] })),
    );
    const r = await raw(body);
    expect([r.status, errorOf(r.text).code]).toEqual([413, -32014]);
    const input = Array.from({ length: 30 }, () => '{"method":"getblockhash","params":[1]}').join("\n");
    const b = await runCli(["--gateway", gw.url, "--product", "ltc", "batch", "--batch-size", "30"], {
      env: { CHAINGW_API_KEY: key },
      input,
    });
    expect(b.exitCode).toBe(0);
    expect(b.stdout.trim().split("\n")).toHaveLength(30);
  });

  it("method not found: 200 -32601, exit 1 with the message (the fixture passes the node's own -32601: exit 1)", async () => {
    const r = await serveCli(["rpc", "stop"]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/-32601: method not found: stop is not a method of the utxo group/);
    expect(proxy.hitsByMethod.stop ?? 0).toBe(0);
    expect((await fixtureCli(["rpc", "nosuchmethod"])).exitCode).toBe(1);
  });

  it("invalid params: 200 -32602 naming the parameter, exit 1 (the fixture: the node's -8, exit 1)", async () => {
    const r = await serveCli(["rpc", "getblock", "zz"]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/-32602: invalid params: getblock: invalid blockhash/);
    const f = await fixtureCli(["rpc", "getblock", "zz"]);
    expect(f.exitCode).toBe(1);
    expect(f.stderr).toContain("-8");
  });

  it("rate limited: 429 -32005 with Retry-After; the CLI waits it out and gets the answer", async () => {
    const first = await serveCli(["--json", "gettxoutsetinfo", "none"]);
    expect(first.exitCode).toBe(0);
    const r = await raw('{"jsonrpc":"2.0","id":1,"method":"gettxoutsetinfo","params":["none"]}');
    expect(r.status).toBe(429);
    expect(errorOf(r.text)).toMatchObject({ code: -32005 });
    expect(errorOf(r.text).message).toMatch(/gettxoutsetinfo per key on ltc \(0\.5\/s, burst 1\)/);
    expect(Number(r.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    const waited = await runCli(
      ["--gateway", gw.url, "--product", "ltc", "--json", "gettxoutsetinfo", "none"],
      {
        env: { CHAINGW_API_KEY: key },
      },
    );
    expect(waited.exitCode).toBe(0);
    expect(waited.durationMs).toBeGreaterThan(900);
  });

  it("no healthy upstream: 200 -32011 with Retry-After; exit 3", async () => {
    const r = await serveCli(["getblockchaininfo"], { product: "dead" });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/HTTP 200: -32011: no healthy upstream/);
    const a = await raw('{"jsonrpc":"2.0","id":7,"method":"getblockcount","params":[]}', { product: "dead" });
    expect([a.status, Number(a.headers["retry-after"]), JSON.parse(a.text).id]).toEqual([200, 1, 7]);
  });

  it("upstream failed: 200 -32010; a non-idempotent call reached the node once, exit 3 not retried", async () => {
    proxy.setMethodFault("getblockstats", { kind: "reset" });
    try {
      const before = proxy.hitsByMethod.getblockstats ?? 0;
      const r = await runCli(["--gateway", gw.url, "--product", "ltc", "getblockstats", "1"], {
        env: { CHAINGW_API_KEY: key },
      });
      expect(r.exitCode).toBe(3);
      expect(r.stderr).toMatch(/HTTP 200: -32010: upstream failed/);
      expect(r.stderr).toContain("not marked idempotent");
      expect((proxy.hitsByMethod.getblockstats ?? 0) - before).toBe(1);
    } finally {
      proxy.setMethodFault("getblockstats", null);
    }
  });

  it("timeout: 200 -32015 after requestTimeout; exit 3", async () => {
    proxy.setMethodFault("getblock", { kind: "hang" });
    try {
      const r = await serveCli(["getblock", hash]);
      expect(r.exitCode).toBe(3);
      expect(r.stderr).toMatch(/HTTP 200: -32015: upstream timed out/);
    } finally {
      proxy.setMethodFault("getblock", null);
    }
  });

  it("the node's own error: its object in a 200 (litecoind's 500 to 1.0-style requests), exit 1 (the fixture alike)", async () => {
    const body = (v: string) => `{${v}"id":3,"method":"getblock","params":["${"11".repeat(32)}"]}`;
    const two = await raw(body('"jsonrpc":"2.0",'));
    expect([two.status, JSON.parse(two.text)]).toEqual([
      200,
      { jsonrpc: "2.0", id: 3, error: { code: -5, message: "Block not found" } },
    ]);
    const one = await raw(body('"jsonrpc":"1.0",'));
    expect([one.status, JSON.parse(one.text)]).toEqual([
      500,
      { result: null, error: { code: -5, message: "Block not found" }, id: 3 },
    ]);
    const unknown = "11".repeat(32);
    for (const r of [await serveCli(["getblock", unknown]), await fixtureCli(["getblock", unknown])]) {
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toMatch(/-5: Block not found/);
    }
  });

  it("docs/serve.md carries the table as generated (the README links it)", () => {
    const readme = readFileSync(new URL("../docs/serve.md", import.meta.url), "utf8");
    const m = /<!-- serve-errors:start -->\n([\s\S]*?)\n<!-- serve-errors:end -->/.exec(readme);
    expect(m?.[1]).toBe(errorTableMarkdown());
  });
});
