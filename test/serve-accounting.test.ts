/**
 * `serve`, round four (issue 57, items 3-5), with real clients and real nodes:
 *  - every request accounted: a client that hangs up mid-body is one access line and one count (499), never
 *    "internal error"; a 413 that Python's http.client (python-bitcoinlib's transport) can read;
 *  - the node's answers where the node would answer: the request's id in the gateway's refusals (401, 403,
 *    404) when it could be read; eth_getBlockByNumber / ByHash without their second param refused (-32602)
 *    as anvil refuses them;
 *  - litecoin-cli through the gateway (`-rpcuser=PRODUCT -rpcpassword=KEY`), beside litecoin-cli straight at
 *    litecoind: the same output and exit code.
 */
import { execFileSync } from "node:child_process";
import { connect } from "node:net";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { postRaw } from "./helpers/http.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { until } from "./helpers/procs.js";
import { PROBE_TIMEOUT_S, type Served, startServe } from "./helpers/serve.js";

let node: LitecoinNode;
let anvil: AnvilNode;
let gw: Served;
let key: string;
let ethOnly: string;

beforeAll(async () => {
  [node, anvil] = await Promise.all([startLitecoind({ blocks: 5 }), startAnvil()]);
  gw = await startServe(
    {
      products: {
        ltc: { chain: "utxo", upstreams: [node.url.replace("//", `//${node.user}:${node.password}@`)] },
        eth: { chain: "evm", upstreams: [anvil.url] },
      },
      health: { interval: 0.5, timeout: PROBE_TIMEOUT_S },
    },
    { keys: [["ltc", "eth"], ["eth"]] },
  );
  [key, ethOnly] = gw.keys as [string, string];
});

afterAll(async () => {
  await gw?.stop();
  await Promise.all([node?.stop(), anvil?.stop()]);
});

const lines = () => gw.log().map((l) => JSON.parse(l) as Record<string, unknown>);

describe("every request accounted", () => {
  it("a 413 Python's http.client reads: 7 of 7 posts of 1.1 MB and of 8 MB get the answer, not BrokenPipeError", () => {
    const script = `
import http.client, json, sys
host, port, key = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for n in [1100 * 1024] * 7 + [8 * 1024 * 1024] * 7:
    body = b'{"jsonrpc":"2.0","id":1,"method":"getblockcount","params":["' + b"a" * n + b'"]}'
    c = http.client.HTTPConnection(host, port, timeout=30)
    try:
        c.request("POST", "/v1/ltc", body, {"X-API-Key": key, "Content-Type": "application/json"})
        r = c.getresponse()
        print(r.status, json.loads(r.read())["error"]["code"])
    except Exception as e:
        print(type(e).__name__)
    finally:
        c.close()
`;
    const u = new URL(gw.url);
    const out = execFileSync("/usr/bin/python3", ["-c", script, u.hostname, u.port, key], {
      encoding: "utf8",
    });
    // (the code before: 8 MB, larger than loopback's socket buffers, was BrokenPipeError 7 of 7 here)
    expect(out.trim().split("\n")).toEqual(Array(14).fill("413 -32021"));
  });

  it("a client that hangs up mid-body: one access line and one count, 499 client_closed, no internal error", async () => {
    const u = new URL(gw.url);
    const before = lines().filter((l) => l.status === 499).length;
    await new Promise<void>((resolve, reject) => {
      const s = connect(Number(u.port), u.hostname, () => {
        s.write(
          `POST /v1/ltc HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":"2.0",`,
        );
        setTimeout(() => {
          s.destroy();
          resolve();
        }, 100);
      });
      s.on("error", reject);
    });
    await until("the hung-up request's line", () => lines().filter((l) => l.status === 499).length > before);
    const hung = lines().filter((l) => l.status === 499);
    expect(hung).toHaveLength(before + 1);
    expect(hung.at(-1)).toMatchObject({
      path: "/v1/ltc",
      product: "ltc",
      status: 499,
      outcome: "client_closed",
    });
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).toContain(
      'chaingw_serve_requests_total{product="ltc",method="unread",outcome="client_closed"} 1',
    );
    expect(gw.notes()).not.toContain("internal error");
  });
});

describe("the node's answers where the node would answer", () => {
  it("401, 403 and 404 carry the request's id; a 413's body is not read, so its id is null", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: "abc-7", method: "getblockcount", params: [] });
    const noKey = await postRaw(`${gw.url}/v1/ltc`, body);
    const badKey = await postRaw(`${gw.url}/v1/ltc`, body, { headers: { "x-api-key": "cgw_nope" } });
    const forbidden = await postRaw(`${gw.url}/v1/ltc`, body, { headers: { "x-api-key": ethOnly } });
    const notFound = await postRaw(`${gw.url}/v1/nope`, body, { headers: { "x-api-key": key } });
    expect([noKey, badKey, forbidden, notFound].map((r) => [r.status, JSON.parse(r.text).id])).toEqual([
      [401, "abc-7"],
      [401, "abc-7"],
      [403, "abc-7"],
      [404, "abc-7"],
    ]);
    expect(JSON.parse(forbidden.text).error.code).toBe(-32003);
  });

  it("eth_getBlockByNumber and eth_getBlockByHash without their second param: -32602, as anvil answers", async () => {
    const hash = (await anvil.rpc<{ hash: string }>("eth_getBlockByNumber", ["0x0", false])).hash;
    for (const [method, first] of [
      ["eth_getBlockByNumber", "0x0"],
      ["eth_getBlockByHash", hash],
    ] as const) {
      const body = JSON.stringify({ jsonrpc: "2.0", id: 3, method, params: [first] });
      const direct = JSON.parse((await postRaw(anvil.url, body)).text);
      const through = await postRaw(`${gw.url}/v1/eth`, body, { headers: { "x-api-key": key } });
      expect(direct.error.code).toBe(-32602);
      expect(through.status).toBe(200);
      expect(JSON.parse(through.text)).toMatchObject({ id: 3, error: { code: -32602 } });
      expect(JSON.parse(through.text).error.message).toContain("missing value for required argument 1");
      // with it, the node's answer
      const both = JSON.stringify({ jsonrpc: "2.0", id: 4, method, params: [first, false] });
      const ok = await postRaw(`${gw.url}/v1/eth`, both, { headers: { "x-api-key": key } });
      expect(JSON.parse(ok.text).result.hash).toBe(hash);
    }
  });
});

describe("litecoin-cli through the gateway", () => {
  /** litecoin-cli straight at the node, and at the gateway with the product as user and the key as password */
  const cli = (to: "node" | "gateway", args: string[], password = key) => {
    const u = new URL(to === "node" ? node.url : gw.url);
    const auth =
      to === "node"
        ? [`-rpcuser=${node.user}`, `-rpcpassword=${node.password}`]
        : ["-rpcuser=ltc", `-rpcpassword=${password}`];
    return execa(
      "litecoin-cli",
      [`-datadir=${gw.dir}`, `-rpcconnect=${u.hostname}`, `-rpcport=${u.port}`, ...auth, ...args],
      { reject: false },
    );
  };

  it("answers as litecoind does: results, the node's error, exit codes", async () => {
    const hash1 = await node.rpc<string>("getblockhash", [1]);
    for (const args of [
      ["getblockcount"],
      ["getblockhash", "1"],
      ["getblockheader", hash1, "false"],
      ["getblockhash", "1000"],
    ]) {
      const [d, g] = await Promise.all([cli("node", args), cli("gateway", args)]);
      expect({ args, out: g.stdout, err: g.stderr, code: g.exitCode }).toEqual({
        args,
        out: d.stdout,
        err: d.stderr,
        code: d.exitCode,
      });
    }
    expect((await cli("gateway", ["getblockcount"])).stdout).toBe("5");
    // posted to "/", routed by the Basic user; the access log is written in batches (every 50 ms)
    const ok = (l: Record<string, unknown>) =>
      l.path === "/" && l.method === "getblockcount" && l.status === 200;
    await until("its access-log line", () => lines().some(ok));
    expect(lines().find(ok)).toMatchObject({ product: "ltc", outcome: "ok" });
  });

  it("a wrong key is refused as litecoind refuses a wrong password; a key of another product is 403", async () => {
    const wrong = await cli("gateway", ["getblockcount"], "cgw_wrong");
    const direct = await execa(
      "litecoin-cli",
      [
        `-datadir=${gw.dir}`,
        "-rpcconnect=127.0.0.1",
        `-rpcport=${new URL(node.url).port}`,
        `-rpcuser=${node.user}`,
        "-rpcpassword=wrong",
        "getblockcount",
      ],
      { reject: false },
    );
    expect(wrong.stderr).toBe(direct.stderr);
    expect(wrong.exitCode).toBe(direct.exitCode);
    const other = await cli("gateway", ["getblockcount"], ethOnly);
    expect(other.exitCode).not.toBe(0);
    expect(other.stderr).toContain("403");
  });
});
