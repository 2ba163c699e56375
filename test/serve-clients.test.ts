/**
 * The clients people already use, against `chaingw serve` in front of real litecoind and anvil (issue 48):
 * viem, ethers v6, web3.js 4, the npm `bitcoin-core` client, python `requests` (as web3.py's HTTPProvider uses it:
 * `raise_for_status()` first) and cast — each shows the gateway's own JSON-RPC code and message, and a
 * batch under a rate limit is admitted or refused whole (429 + Retry-After) so a batching client can obey.
 */
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
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
let hash1: string;
const CAP = /eth_getLogs block range of 201 blocks exceeds the limit of 100 on product eth/;

beforeAll(async () => {
  [node, anvil] = await Promise.all([startLitecoind({ blocks: 5 }), startAnvil()]);
  hash1 = await node.rpc<string>("getblockhash", [1]);
  await anvil.rpc("anvil_mine", ["0x10"]);
  gw = await startServe(
    {
      products: {
        ltc: { chain: "utxo", upstreams: [node.url.replace("//", `//${node.user}:${node.password}@`)] },
        eth: {
          chain: "evm",
          upstreams: [anvil.url],
          maxLogsRange: 100,
          limits: {
            methods: {
              eth_getLogs: { perKey: { rate: 1, burst: 2 }, perProduct: { rate: 100, burst: 100 } },
            },
          },
        },
      },
      health: { interval: 0.5, timeout: PROBE_TIMEOUT_S },
    },
    { keys: [["ltc", "eth"]] },
  );
  key = gw.keys[0] as string;
});

afterAll(async () => {
  await gw?.stop();
  await Promise.all([node?.stop(), anvil?.stop()]);
});

const eth = () => `${gw.url}/v1/eth`;

/** What the test uses of web3.js 4. */
interface Web3Module {
  Web3: new (
    provider: unknown,
  ) => { eth: { getBlockNumber(): Promise<bigint>; getPastLogs(filter: object): Promise<unknown> } };
  HttpProvider: new (url: string, options: object) => unknown;
}

describe("EVM clients see the gateway's own code and message", () => {
  it("viem: results, block overrides, -32602 with the range cap's message", async () => {
    const { createPublicClient, http } = await import("viem");
    const client = createPublicClient({
      transport: http(eth(), { fetchOptions: { headers: { "x-api-key": key } }, retryCount: 0 }),
    });
    expect(await client.getBlockNumber()).toBe(BigInt(await anvil.rpc<string>("eth_blockNumber")));
    // viem's call({ blockOverrides }): eth_call's fourth param (and a null state override before it)
    const r = await client.call({
      to: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
      data: "0x",
      blockOverrides: { number: 256n, time: 1_900_000_000n },
    });
    expect(r.data).toBeUndefined();
    const e = await client.getLogs({ fromBlock: 0n, toBlock: 200n }).catch((x: unknown) => x);
    const cause = (e as { walk: (f: (c: unknown) => boolean) => { code?: number; details?: string } }).walk(
      (c) => typeof (c as { code?: unknown }).code === "number",
    );
    expect(cause.code).toBe(-32602);
    expect(cause.details).toMatch(CAP);
  });

  it("ethers v6: results, and -32602 with the cap's message reaches the application (not SERVER_ERROR)", async () => {
    const { FetchRequest, JsonRpcProvider, Network } = await import("ethers");
    const req = new FetchRequest(eth());
    req.setHeader("x-api-key", key);
    const provider = new JsonRpcProvider(req, Network.from(31337), { staticNetwork: true, batchMaxCount: 1 });
    expect(await provider.getBlockNumber()).toBe(Number(await anvil.rpc<string>("eth_blockNumber")));
    const e = (await provider.getLogs({ fromBlock: 0, toBlock: 200 }).catch((x: unknown) => x)) as {
      code: string;
      error?: { code: number; message: string };
    };
    expect(e.code).not.toBe("SERVER_ERROR");
    expect(e.error?.code).toBe(-32602);
    expect(e.error?.message).toMatch(CAP);
    provider.destroy();
  });

  it("web3.js 4: a gateway's error reaches the application with its message and code, in a 200 and in a 401 (its id echoed); the same 401 with id null shows an empty message", async () => {
    // named through a variable: its types are not needed, and tsc stays green in a tree whose node_modules
    // predates this devDependency (worktrees share one)
    const WEB3 = "web3";
    const { Web3, HttpProvider } = (await import(WEB3)) as Web3Module;
    const client = (k: string, url = eth()) =>
      new Web3(new HttpProvider(url, { providerOptions: { headers: { "x-api-key": k } } }));
    const web3 = client(key);
    expect(Number(await web3.eth.getBlockNumber())).toBe(Number(await anvil.rpc<string>("eth_blockNumber")));
    type W3Error = { message: string; cause?: { code: number; message: string } };
    const capped = (await web3.eth
      .getPastLogs({ fromBlock: 0, toBlock: 200 })
      .catch((x: unknown) => x)) as W3Error;
    expect(capped.message).toMatch(CAP);
    expect(capped.cause?.code).toBe(-32602);
    const refused = (await client("cgw_nope")
      .eth.getBlockNumber()
      .catch((x: unknown) => x)) as W3Error;
    expect(refused.message).toBe("Returned error: unauthorized: unknown API key");
    expect(refused.cause).toEqual({ code: -32002, message: "unauthorized: unknown API key" });
    // the control: serve's 401 as it was answered before issue 57 (id null), from a loopback server
    const body = JSON.stringify({ jsonrpc: "2.0", id: null, error: refused.cause });
    const old = createServer((_req, res) => {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(body);
    });
    await new Promise<void>((r) => old.listen(0, "127.0.0.1", () => r()));
    try {
      const url = `http://127.0.0.1:${(old.address() as AddressInfo).port}/`;
      const blank = (await client("cgw_nope", url)
        .eth.getBlockNumber()
        .catch((x: unknown) => x)) as W3Error;
      expect(blank.message).not.toContain("unauthorized");
    } finally {
      old.close();
    }
  });

  it("cast: the code and message as the node's own error, not 'HTTP error'", async () => {
    const cast = await execa(
      join(process.cwd(), "node_modules", ".bin", "cast"),
      [
        "rpc",
        "eth_getLogs",
        '{"fromBlock":"0x0","toBlock":"0xc8"}',
        "--rpc-url",
        eth(),
        "--rpc-headers",
        `X-API-Key: ${key}`,
      ],
      { reject: false },
    );
    // cast 1.7.1 prints the error and exits 0 (as it does for a node's own JSON-RPC error)
    expect(cast.stderr).not.toContain("HTTP error");
    expect(cast.stderr).toContain("-32602");
    expect(cast.stderr).toMatch(CAP);
  });

  it("python requests, as web3.py's HTTPProvider (raise_for_status, then the body): the code and message", () => {
    const script = `
import json, sys, requests
url, key = sys.argv[1], sys.argv[2]
r = requests.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "eth_getLogs", "params": [{"fromBlock": "0x0", "toBlock": "0xc8"}]}, headers={"X-API-Key": key})
r.raise_for_status()
e = r.json()["error"]
print(r.status_code, e["code"], e["message"])
`;
    const out = execFileSync("/usr/bin/python3", ["-c", script, eth(), key], { encoding: "utf8" });
    expect(out).toMatch(/^200 -32602 invalid params: /);
    expect(out).toMatch(CAP);
  });
});

describe("Bitcoin clients: 1.0-style requests answered as litecoind answers them", () => {
  it("the npm bitcoin-core client: calls, a batch with an error, the node's and the gateway's errors", async () => {
    const Client = (await import("bitcoin-core")).default;
    const c = new Client({ host: `${gw.url}/v1/ltc`, headers: { "x-api-key": key }, timeout: 30_000 });
    expect(await c.command("getblockcount")).toBe(await node.rpc<number>("getblockcount"));
    expect(await c.command("getblockhash", 1)).toBe(hash1);
    const batch = await c.command([
      { method: "getblockhash", parameters: [1] },
      { method: "getblockhash", parameters: [99999] },
    ]);
    expect(batch[0]).toBe(hash1);
    expect(batch[1]).toMatchObject({ code: -8, message: "Block height out of range" });
    const nodeErr = await c.command("getblockhash", 99999).catch((x: unknown) => x);
    expect(nodeErr).toMatchObject({ code: -8, message: "Block height out of range" });
    const ours = await c.command("stop").catch((x: unknown) => x);
    expect(ours).toMatchObject({ code: -32601 });
    expect((ours as Error).message).toMatch(/stop is not a method of the utxo group/);
  });

  it("python requests, python-bitcoinrpc's version 1.1: the node's error as litecoind answers it (500)", () => {
    const script = `
import json, sys, requests
url, key = sys.argv[1], sys.argv[2]
r = requests.post(url, data=json.dumps({"version": "1.1", "id": 1, "method": "getblockhash", "params": [99999]}), headers={"X-API-Key": key})
print(r.status_code, r.text)
`;
    const out = execFileSync("/usr/bin/python3", ["-c", script, `${gw.url}/v1/ltc`, key], {
      encoding: "utf8",
    });
    expect(out.trim()).toBe(
      '500 {"result":null,"error":{"code":-8,"message":"Block height out of range"},"id":1}',
    );
  });
});

describe("rate limits a batching client can obey", () => {
  it("ethers' six parallel getLogs in one batch are admitted whole; the next batch is refused whole, 429 + Retry-After; viem's batch waits it out", async () => {
    const { FetchRequest, JsonRpcProvider, Network } = await import("ethers");
    const req = new FetchRequest(eth());
    req.setHeader("x-api-key", key);
    const provider = new JsonRpcProvider(req, Network.from(31337), { staticNetwork: true });
    const before = gw.log().length;
    const logs = await Promise.all(
      Array.from({ length: 6 }, (_, i) => provider.getLogs({ fromBlock: i, toBlock: i + 1 })),
    );
    expect(logs).toHaveLength(6);
    provider.destroy();
    // one request carried the six (ethers batches concurrent calls)
    const methods = () =>
      gw
        .log()
        .slice(before)
        .map((l) => JSON.parse(l).method as string);
    await until("the batch's access-log line", () => methods().includes("batch(6)"));
    expect(methods()).toContain("batch(6)");
    const two = JSON.stringify(
      [1, 2].map((id) => ({ jsonrpc: "2.0", id, method: "eth_getLogs", params: [{ fromBlock: "0x0" }] })),
    );
    const refused = await postRaw(eth(), two, { headers: { "x-api-key": key } });
    expect(refused.status).toBe(429);
    const wait = Number(refused.headers["retry-after"]);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(refused.text).error).toMatchObject({ code: -32005 });
    expect(JSON.parse(refused.text).error.message).toMatch(
      /a batch of 2 eth_getLogs per key on eth \(1\/s, burst 2\)/,
    );
    // viem, batching: its 429 handling waits Retry-After (seconds) and sends the batch again
    const { createPublicClient, http } = await import("viem");
    const client = createPublicClient({
      transport: http(eth(), { batch: true, fetchOptions: { headers: { "x-api-key": key } }, retryCount: 3 }),
    });
    const t0 = Date.now();
    const both = await Promise.all([client.getLogs({ fromBlock: 0n }), client.getLogs({ fromBlock: 1n })]);
    expect(both).toHaveLength(2);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
  });
});
