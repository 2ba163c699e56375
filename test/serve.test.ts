/**
 * `chaingw serve` in front of real nodes (two litecoind regtest behind counting proxies, anvil), driven by
 * the chaingw CLI itself and by raw HTTP: the endpoint, the checks that keep bad calls off the nodes, the
 * keys, and the node's own errors passed through.
 */
import { Agent, request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FaultServer, startFaultServer } from "./fixtures/faults.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { postRaw } from "./helpers/http.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { HANG_GUARD_MS } from "./helpers/procs.js";
import { PROBE_TIMEOUT_S, type Served, startServe } from "./helpers/serve.js";

let a: LitecoinNode;
let b: LitecoinNode;
let anvil: AnvilNode;
let pa: FaultServer;
let pb: FaultServer;
let gw: Served;
let ltcKey: string;
let ethKey: string;
let bothKey: string;

beforeAll(async () => {
  [a, b, anvil] = await Promise.all([startLitecoind({ blocks: 30 }), startLitecoind(), startAnvil()]);
  // b follows a's chain: both upstreams answer the same blocks
  for (let h = 1; h <= 30; h++)
    await b.rpc("submitblock", [await a.rpc("getblock", [await a.rpc("getblockhash", [h]), 0])]);
  [pa, pb] = await Promise.all([
    startFaultServer({ upstream: { url: a.url, user: a.user, password: a.password } }),
    startFaultServer({ upstream: { url: b.url, user: b.user, password: b.password } }),
  ]);
  gw = await startServe(
    {
      products: {
        ltc: { chain: "utxo", upstreams: [pa.url, pb.url] },
        eth: { chain: "evm", upstreams: [anvil.url], maxLogsRange: 100 },
      },
      maxBodyBytes: 4096,
      maxBatch: 500,
      health: { interval: 0.5, timeout: PROBE_TIMEOUT_S },
    },
    { keys: [["ltc"], ["eth"], ["ltc", "eth"]] },
  );
  [ltcKey, ethKey, bothKey] = gw.keys;
});

afterAll(async () => {
  await gw?.stop();
  await Promise.all([pa?.stop(), pb?.stop()]);
  await Promise.all([a?.stop(), b?.stop(), anvil?.stop()]);
});

const cli = (product: string, key: string, ...args: string[]) =>
  runCli(["--gateway", gw.url, "--product", product, ...args], { env: { CHAINGW_API_KEY: key } });
/**
 * calls that reached a node, health checks left out: the gateway's own checks ask only `getblockcount` (the
 * tip) and `getblockhash` (the genesis, and the anchor block a reorg is told by); the counts are compared
 * around calls of other methods
 */
const HEALTH = new Set(["getblockcount", "getblockhash"]);
const hits = () =>
  [pa, pb].reduce(
    (n, p) => n + Object.entries(p.hitsByMethod).reduce((m, [k, v]) => m + (HEALTH.has(k) ? 0 : v), 0),
    0,
  );
const post = (product: string, body: string, key?: string) =>
  postRaw(`${gw.url}/v1/${product}`, body, { headers: key === undefined ? {} : { "x-api-key": key } });

describe("the endpoint", () => {
  it("the CLI through serve answers as the node does, result bytes exact", async () => {
    const hash = await a.rpc<string>("getblockhash", [7]);
    const direct = await a.rawCall(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getblockheader", params: [hash] }),
    );
    const r = await cli("ltc", ltcKey, "--json", "getblockheader", hash);
    expect(r.exitCode).toBe(0);
    // the node's own text of the result, byte for byte (the CLI prints exactly the result's source)
    const m = /"result":(\{.*\}),"error"/.exec(direct.text);
    expect(r.stdout.trim()).toBe(m?.[1]);
  });

  it("EVM product: eth_getBlockByNumber as anvil says it", async () => {
    const r = await cli("eth", ethKey, "--json", "eth_getBlockByNumber", "0");
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(await anvil.rpc("eth_getBlockByNumber", ["0x0", false]));
  });

  it("batch of 300 lines through serve: every line answered once, in order", async () => {
    const input = Array.from({ length: 300 }, (_, i) =>
      JSON.stringify({ method: "getblockhash", params: [i % 31] }),
    ).join("\n");
    const r = await runCli(["--gateway", gw.url, "--product", "ltc", "batch"], {
      env: { CHAINGW_API_KEY: ltcKey },
      input,
    });
    expect(r.exitCode).toBe(0);
    const lines = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(300);
    expect(lines.every((l, i) => l.id === i + 1 && typeof l.result === "string")).toBe(true);
    expect(lines[7].result).toBe(await a.rpc("getblockhash", [7]));
  });

  it("getblockheader --range through serve (getblockcount and getblockhash are the registry's own helpers)", async () => {
    const r = await cli("ltc", ltcKey, "getblockheader", "--range", "1..5");
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim().split("\n")).toHaveLength(5);
  });

  it("raw batch: ids echoed, notifications unanswered, a bad entry answered alone", async () => {
    const body = JSON.stringify([
      { jsonrpc: "2.0", id: "x", method: "getblockcount", params: [] },
      { jsonrpc: "2.0", method: "getblockcount", params: [] },
      { jsonrpc: "2.0", id: 7, method: "getblock", params: ["zz"] },
      { jsonrpc: "2.0", id: 8, method: "getblockhash", params: [1] },
    ]);
    const r = await post("ltc", body, ltcKey);
    expect(r.status).toBe(200);
    const out = JSON.parse(r.text);
    expect(out.map((e: { id: unknown }) => e.id)).toEqual(["x", 7, 8]);
    expect(out[0].result).toBe(30);
    expect(out[1].error.code).toBe(-32602);
    expect(out[1].error.message).toContain("blockhash");
    expect(out[2].result).toBe(await a.rpc("getblockhash", [1]));
    const n = await post(
      "ltc",
      JSON.stringify({ jsonrpc: "2.0", method: "getblockcount", params: [] }),
      ltcKey,
    );
    expect(n.status).toBe(204);
    expect(n.text).toBe("");
  });

  it("a node's error is an answer: the error object passed through unchanged, not failed over; HTTP 200 to a 2.0 request, litecoind's 500 to its own dialect", async () => {
    const unknown = "00".repeat(32);
    const direct = await a.rawCall(
      JSON.stringify({ jsonrpc: "2.0", id: 5, method: "getblockheader", params: [unknown] }),
    );
    const before = hits();
    const r = await post(
      "ltc",
      JSON.stringify({ jsonrpc: "2.0", id: 5, method: "getblockheader", params: [unknown] }),
      ltcKey,
    );
    expect(direct.status).toBe(500);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text).error).toEqual(JSON.parse(direct.text).error);
    expect(hits() - before).toBe(1);
    const c = await cli("ltc", ltcKey, "getblockheader", unknown);
    expect(c.exitCode).toBe(1);
    expect(c.stderr).toContain("-5");
  });
});

describe("a single request is read by the span reader, a batch by the full parser: they answer alike", () => {
  const H = "f".repeat(64);
  // each body answered alone and as the only entry of a batch: the same object (id, result or error)
  const bodies = [
    '{"jsonrpc":"2.0","id":1,"method":"getblockcount","params":[]}',
    ' { "jsonrpc" : "2.0" , "method" : "getblockcount" , "id" : "s" }\n',
    '{"jsonrpc":"2.0","id":1.50,"method":"getblockcount"}',
    '{"jsonrpc":"2.0","id":-0,"method":"getblockcount","params":[ ]}',
    '{"jsonrpc":"2.0","id":null,"method":"getblockcount"}',
    '{"jsonrpc":"2.0","id":"\\u0041\\n","method":"getblockcount"}',
    '{"jsonrpc":"2.0","id":2,"method":"getblock\\u0063ount"}',
    '{"jsonrpc":"\\u0032.0","id":3,"method":"getblockcount"}',
    '{"jsonrpc":"2.0","\\u0069d":4,"method":"getblockcount"}',
    '{"jsonrpc":"2.0","id":5,"id":6,"method":"getblockcount"}',
    '{"jsonrpc":"2.0","id":7,"method":"getblockcount","params":[],"extra":1}',
    '{"jsonrpc":"2.0","id":8,"method":"getblockhash","params":{"height":1}}',
    '{"jsonrpc":"2.0","id":9,"method":"getblockcount","params":"x"}',
    '{"jsonrpc":"2.0","id":true,"method":"getblockcount"}',
    '{"jsonrpc":"2.0","id":10,"method":7}',
    '{"jsonrpc":"2.0","id":11,"method":"getblockhash","params":[1.0]}',
    `{"jsonrpc":"2.0","id":12,"method":"getblockheader","params":["${H}",true]}`,
    '{"jsonrpc":"2.0","id":13,"method":"getblock","params":["zz"]}',
  ];
  it.each(bodies)("%s", async (body) => {
    const [one, batch] = [await post("ltc", body, ltcKey), await post("ltc", `[${body}]`, ltcKey)];
    const entry = JSON.parse(batch.text)[0];
    expect(JSON.parse(one.text)).toEqual(entry);
    // the id as the full parser echoes it, number tokens byte for byte
    const idText = (t: string) => /"id":(-?[0-9.]+|null|"[^"]*")/.exec(t)?.[1];
    expect(idText(one.text)).toBe(idText(batch.text));
  });
});

describe("params reach the node as the client wrote them", () => {
  it("unchanged by the checks: the client's own text, number tokens and spacing kept", async () => {
    const { rawServer, sendJson } = await import("./fixtures/forward.js");
    const seen: string[] = [];
    const node = await rawServer((raw, _req, res) => {
      const text = raw.toString("utf8");
      const { id, method } = JSON.parse(text);
      if (method !== "getblockcount") seen.push(text);
      sendJson(res, 200, `{"result":${method === "getblockcount" ? 5 : '"ok"'},"error":null,"id":${id}}`);
    });
    const stand = await startServe(
      { products: { ltc: { chain: "utxo", upstreams: [node.url], allow: ["x_echo"] } } },
      { keys: [["ltc"]] },
    );
    try {
      const send = (body: string) =>
        postRaw(`${stand.url}/v1/ltc`, body, { headers: { "x-api-key": stand.keys[0] } });
      const hash = "ab".repeat(32);
      for (const [method, params] of [
        ["getblockheader", `[ "${hash}" , true ]`],
        ["x_echo", "[1.000, 123456789012345678901234567890, -0, 1e2]"],
      ]) {
        const r = await send(`{"jsonrpc":"2.0","id":1,"method":"${method}","params":${params}}`);
        expect(r.status).toBe(200);
        expect(seen.pop()).toMatch(
          new RegExp(`"method":"${method}","params":${params.replace(/[[\].+]/g, "\\$&")}}$`),
        );
      }
    } finally {
      await stand.stop();
      await node.close();
    }
  });
});

describe("nothing bad reaches a node", () => {
  const cases: [string, string, number, number, RegExp][] = [
    // JSON-RPC-level errors in a 200 (ethers and web3.py read no other body); 1.0-style requests are
    // served on the utxo group (test/serve-clients.test.ts), another version is not
    ["malformed JSON", '{"jsonrpc":"2.0",', 200, -32700, /parse error/],
    ["not a request", '{"jsonrpc":"2.0","id":1}', 200, -32600, /method/],
    ["jsonrpc 3.0", '{"jsonrpc":"3.0","id":1,"method":"getblockcount","params":[]}', 200, -32600, /2\.0/],
    ["empty batch", "[]", 200, -32600, /empty batch/],
    [
      "method outside the group",
      '{"jsonrpc":"2.0","id":1,"method":"stop","params":[]}',
      200,
      -32601,
      /stop is not a method of the utxo group/,
    ],
    [
      "an EVM method on a UTXO product",
      '{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[]}',
      200,
      -32601,
      /it is in evm/,
    ],
    [
      "bad params, named",
      '{"jsonrpc":"2.0","id":1,"method":"getblock","params":["zz"]}',
      200,
      -32602,
      /invalid blockhash/,
    ],
    [
      "too many params",
      '{"jsonrpc":"2.0","id":1,"method":"getblockchaininfo","params":[1]}',
      200,
      -32602,
      /too many parameters/,
    ],
    [
      "body over the cap",
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getblockcount", params: ["x".repeat(5000)] }),
      413,
      -32021,
      /too large/,
    ],
  ];
  it.each(cases)("%s: HTTP %#, nothing forwarded", async (_name, body, status, code, msg) => {
    const before = hits();
    const r = await post("ltc", body, ltcKey);
    expect(r.status).toBe(status);
    const e = JSON.parse(r.text).error;
    expect(e.code).toBe(code);
    expect(e.message).toMatch(msg);
    expect(hits()).toBe(before);
  });

  it("eth_getLogs wider than the product's cap: -32602 naming the limit, anvil not asked", async () => {
    const r = await post(
      "eth",
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "eth_getLogs",
        params: [{ fromBlock: "0x0", toBlock: "0x1000" }],
      }),
      ethKey,
    );
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text).error.message).toMatch(/block range of 4097 blocks exceeds the limit of 100/);
  });
});

describe("keys", () => {
  it("missing key 401, unknown key 401, other product 403: the CLI exits 4; nothing forwarded", async () => {
    const before = hits();
    const none = await post("ltc", '{"jsonrpc":"2.0","id":1,"method":"getblockcount","params":[]}');
    expect(none.status).toBe(401);
    expect(JSON.parse(none.text).error.message).toMatch(/missing X-API-Key/);
    const CANARY = "cgw_CANARY_not_a_real_key_0123456789";
    const wrong = await cli("ltc", CANARY, "getblockchaininfo");
    expect(wrong.exitCode).toBe(4);
    const other = await cli("ltc", ethKey, "getblockchaininfo");
    expect(other.exitCode).toBe(4);
    expect(other.stderr).toContain("403");
    expect(hits()).toBe(before);
    const both = await cli("ltc", bothKey, "getblockcount".replace("count", "chaininfo"));
    expect(both.exitCode).toBe(0);
    // the canary and real keys never show in the access log, the notes or the metrics
    const metrics = (await fetch(`${gw.url}/metrics`)).text();
    for (const text of [gw.log().join("\n"), gw.notes(), await metrics, wrong.stderr])
      for (const k of [CANARY, ltcKey, ethKey, bothKey]) expect(text).not.toContain(k);
  });

  it("keys list shows ids and products, never a key or its hash; revoke + SIGHUP drops it", async () => {
    const list = await runCli(["serve", "keys", "list", "--config", gw.configFile]);
    expect(list.exitCode).toBe(0);
    expect(list.stdout.trim().split("\n")).toHaveLength(3);
    expect(list.stdout).not.toContain(ltcKey);
    // --json: one array of id, products and created (indented with --pretty, as every command's JSON)
    const json = await runCli(["serve", "keys", "list", "--config", gw.configFile, "--json"]);
    const keys = JSON.parse(json.stdout) as { id: string; products: string[]; created: string }[];
    expect(keys.map((k) => Object.keys(k).sort())).toEqual(Array(3).fill(["created", "id", "products"]));
    expect(keys.map((k) => k.id)).toEqual(
      list.stdout
        .trim()
        .split("\n")
        .map((l) => l.split("  ")[0]),
    );
    expect(json.stdout).not.toContain(ltcKey);
    const pretty = await runCli(["serve", "keys", "list", "--config", gw.configFile, "--json", "--pretty"]);
    expect(JSON.parse(pretty.stdout)).toEqual(keys);
    expect(pretty.stdout).toContain('\n  {\n    "id": ');
    const empty = `${gw.dir}/no-such-keys.json`; // no file yet: no keys
    expect((await runCli(["serve", "keys", "list", "--keys", empty])).stdout).toBe(
      `no keys in ${empty}: no such file yet (serve keys add makes it)\n`,
    );
    expect((await runCli(["serve", "keys", "list", "--keys", empty, "--json"])).stdout).toBe("[]\n");
    const extra = await gw.addKey("ltc");
    gw.proc.kill("SIGHUP");
    await expect.poll(() => gw.notes(), { timeout: HANG_GUARD_MS }).toMatch(/reloaded/);
    expect((await cli("ltc", extra, "getblockcount".replace("count", "chaininfo"))).exitCode).toBe(0);
    expect(await revokeNewestKey()).toBe(0);
    gw.proc.kill("SIGHUP");
    await expect.poll(() => gw.notes().match(/reloaded/g)?.length ?? 0, { timeout: HANG_GUARD_MS }).toBe(2);
    expect((await cli("ltc", extra, "getblockchaininfo")).exitCode).toBe(4);
  });
});

/** `serve keys revoke` of the key listed last (the one added last): its exit code. */
async function revokeNewestKey(): Promise<number> {
  const id = (await runCli(["serve", "keys", "list", "--config", gw.configFile])).stdout
    .trim()
    .split("\n")
    .pop()
    ?.split(/\s+/)[0] as string;
  return (await runCli(["serve", "keys", "revoke", id, "--config", gw.configFile])).exitCode;
}

describe("a key revoked while its client's connection stays open", () => {
  it("is refused on that same kept-alive connection after SIGHUP (the per-connection key check follows the reload)", async () => {
    const key = await gw.addKey("ltc");
    const reloads = () => gw.notes().match(/reloaded/g)?.length ?? 0;
    const before = reloads();
    gw.proc.kill("SIGHUP");
    await expect.poll(reloads, { timeout: HANG_GUARD_MS }).toBe(before + 1);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const sockets: unknown[] = [];
    const ask = () =>
      new Promise<number>((resolve, reject) => {
        const body = '{"jsonrpc":"2.0","id":1,"method":"getblockcount","params":[]}';
        const req = request(
          `${gw.url}/v1/ltc`,
          { method: "POST", agent, headers: { "content-type": "application/json", "x-api-key": key } },
          (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
          },
        );
        req.on("socket", (s) => sockets.push(s));
        req.on("error", reject);
        req.end(body);
      });
    try {
      expect(await ask()).toBe(200);
      expect(await ask()).toBe(200);
      expect(await revokeNewestKey()).toBe(0);
      gw.proc.kill("SIGHUP");
      await expect.poll(reloads, { timeout: HANG_GUARD_MS }).toBe(before + 2);
      expect(await ask()).toBe(401);
      // one connection carried all three requests: the refusal came on the connection the key was accepted on
      expect(new Set(sockets).size).toBe(1);
    } finally {
      agent.destroy();
    }
  });
});

describe("operations", () => {
  it("/healthz, /readyz, /metrics and one JSON access-log line per request", async () => {
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${gw.url}/readyz`);
    expect(ready.status).toBe(200);
    expect((await ready.json()).products.ltc.healthy).toBe(2);
    const m = await (await fetch(`${gw.url}/metrics`)).text();
    expect(m).toMatch(
      /chaingw_serve_requests_total\{product="ltc",method="getblockheader",outcome="ok"\} \d+/,
    );
    expect(m).toMatch(/chaingw_serve_upstream_up\{product="ltc",upstream="http:\/\/127\.0\.0\.1:\d+"\} 1/);
    const line = JSON.parse(gw.log().find((l) => l.includes('"getblockheader"')) as string);
    expect(line).toMatchObject({ product: "ltc", method: "getblockheader", status: 200, outcome: "ok" });
    expect(typeof line.ms).toBe("number");
    expect(line.upstream).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});

describe("JSON-RPC 1.0-style requests (issue 48): served on the utxo group, answered as litecoind answers them", () => {
  // each body sent straight to litecoind and through serve: the same status and the same bytes
  const same: [string, string][] = [
    [
      "Bitcoin Core's curl examples",
      '{"jsonrpc":"1.0","id":"curltest","method":"getblockhash","params":[1]}',
    ],
    ["python-bitcoinrpc", '{"version":"1.1","id":1,"method":"getblockhash","params":[2]}'],
    ["the bitcoin-core npm client", '{"id":"1764336000000","method":"getblockhash","params":[3]}'],
    ["no id: answered with id null (1.0 has no notifications)", '{"method":"getblockhash","params":[4]}'],
    ["the node's error: 500", '{"jsonrpc":"1.0","id":2,"method":"getblockhash","params":[99999]}'],
    [
      "a batch of both dialects and an error",
      '[{"id":1,"method":"getblockhash","params":[1]},{"jsonrpc":"2.0","id":2,"method":"getblockhash","params":[2]},{"jsonrpc":"1.0","id":[3],"method":"getblockhash","params":[99999]}]',
    ],
  ];
  it.each(same)("%s", async (_what, body) => {
    const direct = await a.rawCall(body);
    const r = await post("ltc", body, ltcKey);
    if (body.includes(`"id":[3]`)) {
      // an id that is no JSON-RPC id (an array): the gateway refuses that entry itself, before the node
      expect(r.status).toBe(200);
      const list = JSON.parse(r.text);
      const node = JSON.parse(direct.text);
      expect(list[0]).toEqual(node[0]);
      // a 2.0 entry answered in 2.0 (as Bitcoin Core 28 does; Litecoin Core 0.21 answers every entry in 1.0)
      expect(list[1]).toEqual({ jsonrpc: "2.0", id: 2, result: node[1].result });
      expect(list[2]).toMatchObject({ error: { code: -32600 } });
      return;
    }
    expect([r.status, r.text]).toEqual([direct.status, direct.text.trimEnd()]);
  });

  it("the gateway's own refusals in the caller's dialect, the id echoed; 2.0 only on the evm group", async () => {
    const nf = await post("ltc", '{"jsonrpc":"1.0","id":"q","method":"nosuch","params":[]}', ltcKey);
    const direct = await a.rawCall('{"jsonrpc":"1.0","id":"q","method":"nosuch","params":[]}');
    expect([nf.status, direct.status]).toEqual([404, 404]);
    expect(JSON.parse(nf.text)).toMatchObject({ result: null, error: { code: -32601 }, id: "q" });
    expect(Object.keys(JSON.parse(nf.text))).toEqual(["result", "error", "id"]);
    const bad = await post("ltc", '{"id":7,"method":"getblock","params":["zz"]}', ltcKey);
    expect(bad.status).toBe(500);
    expect(JSON.parse(bad.text)).toMatchObject({ result: null, error: { code: -32602 }, id: 7 });
    const evm = await post("eth", '{"jsonrpc":"1.0","id":9,"method":"eth_chainId","params":[]}', ethKey);
    expect(evm.status).toBe(200);
    expect(JSON.parse(evm.text)).toEqual({
      jsonrpc: "2.0",
      id: 9,
      error: {
        code: -32600,
        message:
          'invalid request: jsonrpc must be "2.0" (JSON-RPC 1.0-style requests are served on the utxo group only)',
      },
    });
    const v = await post("ltc", '{"version":"9","id":5,"method":"getblockcount","params":[]}', ltcKey);
    expect(JSON.parse(v.text)).toMatchObject({ id: 5, error: { code: -32600 } });
  });
});
