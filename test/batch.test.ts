/**
 * `chaingw batch` and `--range`: JSON lines in and out in order, batch arrays on the wire, per-request
 * failover by marks, heavy-method spacing, chain checks per line — against a real litecoind, anvil-free
 * EVM-compat fixture, and real HTTP fixtures.
 */
import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FaultServer, refusedUrl, startFaultServer } from "./fixtures/faults.js";
import { type RawServer, rawServer, sendJson } from "./fixtures/forward.js";
import { startTronFixture, type TronFixture } from "./fixtures/tron.js";
import { runCli } from "./helpers/cli.js";
import { basicAuth, postRaw } from "./helpers/http.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { trackDir } from "./helpers/procs.js";

let ltc: LitecoinNode;
let proxy: FaultServer;
let second: FaultServer;
let tron: TronFixture;
let noBatch: RawServer;
const hashes: string[] = [];

const lines = (reqs: object[]) => reqs.map((r) => JSON.stringify(r)).join("\n") + "\n";
const parseOut = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** An upstream that refuses JSON-RPC batch arrays (HTTP 400), but answers single calls from the node. */
async function startNoBatchServer(): Promise<RawServer> {
  return rawServer(async (raw, _req, res) => {
    const body = raw.toString();
    if (body.trimStart().startsWith("["))
      return sendJson(
        res,
        400,
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch requests are not supported"}}',
      );
    const up = await postRaw(ltc.url, body, {
      headers: { authorization: basicAuth(ltc.user, ltc.password) },
    });
    sendJson(res, up.status, up.text);
  });
}

/**
 * An upstream answering every JSON-RPC array after `delayMs`, counting connections and the requests it is
 * working on at one time (a connection still closing on one side may briefly overlap the next: requests
 * in progress are the exact count).
 */
async function startSlowArrays(delayMs: number) {
  const st = { url: "", busy: 0, maxBusy: 0, connections: 0, server: undefined as unknown as Server };
  st.server = createServer((req, res) => {
    st.maxBusy = Math.max(st.maxBusy, ++st.busy);
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const calls = JSON.parse(Buffer.concat(chunks).toString()) as { id: number }[];
      setTimeout(() => {
        st.busy--;
        if (res.destroyed) return;
        res.writeHead(200, { "content-type": "application/json" });
        const one = (c: { id: number }) => ({ jsonrpc: "2.0", id: c.id, result: c.id % 7 });
        res.end(JSON.stringify(Array.isArray(calls) ? calls.map(one) : one(calls)));
      }, delayMs);
    });
  });
  st.server.on("connection", () => {
    st.connections++;
  });
  await new Promise<void>((r) => st.server.listen(0, "127.0.0.1", r));
  st.url = `http://127.0.0.1:${(st.server.address() as AddressInfo).port}/`;
  return st;
}

beforeAll(async () => {
  ltc = await startLitecoind();
  await ltc.mine(60);
  for (let h = 0; h <= 60; h++) hashes.push(await ltc.rpc<string>("getblockhash", [h]));
  const upstream = { url: ltc.url, user: ltc.user, password: ltc.password };
  [proxy, second, tron] = await Promise.all([
    startFaultServer({ upstream }),
    startFaultServer({ upstream }),
    startTronFixture({ lyingBlock: 0x3fe1c03 }),
  ]);
  noBatch = await startNoBatchServer();
});

afterAll(async () => {
  await Promise.all([proxy?.stop(), second?.stop(), tron?.stop()]);
  await noBatch?.close();
  await ltc?.stop();
});

describe("batch from stdin against a real node", () => {
  it("300 requests: one line each, in input order, sent as batch arrays", async () => {
    const reqs = Array.from({ length: 300 }, (_, i) => ({
      method: "getblockheader",
      params: [hashes[i % 61]],
      id: i,
    }));
    const before = proxy.hits;
    const conns = proxy.connections;
    const r = await runCli(["batch", "--url", proxy.url, "--batch-size", "50"], { input: lines(reqs) });
    expect(r.exitCode).toBe(0);
    const out = parseOut(r.stdout);
    expect(out).toHaveLength(300);
    out.forEach((o, i) => {
      expect(o.id).toBe(i);
      expect(o.result.hash).toBe(hashes[i % 61]);
      expect(o.result.height).toBe(i % 61);
    });
    // 300 / 50 = 6 arrays on the wire, not 300 requests; each array on a connection of its own (plain
    // HTTP: a kept-alive one meets litecoind's 40 ms delayed-ACK stall on large answers)
    expect(proxy.hits - before).toBe(6);
    expect(proxy.connections - conns).toBe(6);
  });

  it("with the heap bound forced low (a full collection after every chunk) the output is the same", async () => {
    const reqs = Array.from({ length: 400 }, (_, i) => ({
      method: "getblockheader",
      params: [hashes[i % 61]],
    }));
    const args = ["batch", "--url", proxy.url, "--batch-size", "20"];
    const normal = await runCli(args, { input: lines(reqs) });
    const bounded = await runCli(args, { input: lines(reqs), env: { CHAINGW_BATCH_HEAP_MB: "0" } });
    expect(bounded.exitCode).toBe(0);
    expect(bounded.stderr).toBe("");
    expect(parseOut(bounded.stdout)).toHaveLength(400);
    expect(bounded.stdout).toBe(normal.stdout);
  });

  it("--batch-size 1 sends single calls", async () => {
    const reqs = Array.from({ length: 20 }, (_, i) => ({ method: "getblockhash", params: [i] }));
    const before = proxy.hits;
    const conns = proxy.connections;
    const r = await runCli(["batch", "--url", proxy.url, "--batch-size", "1"], { input: lines(reqs) });
    expect(r.exitCode).toBe(0);
    expect(parseOut(r.stdout).map((o) => o.result)).toEqual(hashes.slice(0, 20));
    expect(proxy.hits - before).toBe(20);
    // small single answers keep their connections alive: at most one per request in flight (--concurrency 4)
    expect(proxy.connections - conns).toBeLessThanOrEqual(4);
  });

  it("bad lines are reported with line numbers; good lines are not lost; node errors stay per line; exit 2", async () => {
    const input = [
      JSON.stringify({ method: "getblockcount" }),
      "not json",
      JSON.stringify({ method: "getblock", params: ["zz"] }),
      "",
      "# a comment",
      JSON.stringify({ method: "getblock", params: ["00".repeat(32)] }),
      JSON.stringify({ method: "getblockhash", params: [2], id: "two" }),
      JSON.stringify({ params: [] }),
    ].join("\n");
    const before = proxy.hits;
    const r = await runCli(["batch", "--url", proxy.url], { input });
    expect(r.exitCode).toBe(2);
    const out = parseOut(r.stdout);
    expect(out).toEqual([
      { id: 1, result: 60 },
      { id: 2, error: { code: "usage", message: expect.stringContaining("line 2: not JSON") } },
      {
        id: 3,
        error: { code: "usage", message: expect.stringContaining("line 3: getblock: invalid blockhash") },
      },
      { id: 6, error: { code: -5, message: "Block not found" } },
      { id: "two", result: hashes[2] },
      { id: 8, error: { code: "usage", message: expect.stringContaining("line 8: method missing") } },
    ]);
    expect(r.stderr).toContain("2 ok, 1 node errors, 3 bad input lines");
    expect(proxy.hits - before).toBe(1);
  });

  it("results are the node's bytes (amounts keep 8 decimals)", async () => {
    const block = await ltc.rpc<{ tx: string[] }>("getblock", [hashes[3]]);
    const r = await runCli(["batch", "--url", proxy.url], {
      input: lines([{ method: "gettxout", params: [block.tx[0], 0] }]),
    });
    expect(r.stdout).toContain('"value":50.00000000');
  });

  it("an upstream that refuses batch arrays: answered with single calls, nothing lost", async () => {
    const reqs = Array.from({ length: 30 }, (_, i) => ({ method: "getblockhash", params: [i] }));
    const r = await runCli(
      ["batch", "--url", noBatch.url, "--batch-size", "10", "--concurrency", "1", "-v"],
      {
        input: lines(reqs),
      },
    );
    expect(r.exitCode).toBe(0);
    expect(parseOut(r.stdout).map((o) => o.result)).toEqual(hashes.slice(0, 30));
    expect(r.stderr).toContain("sending singly from now on");
  });
});

describe("batch keeps the retry rules per request", () => {
  it("first endpoint refuses connections: everything answered by the second", async () => {
    const dead = await refusedUrl();
    const reqs = Array.from({ length: 40 }, (_, i) => ({ method: "getblockheader", params: [hashes[i]] }));
    const r = await runCli(["batch", "--url", dead, "--url", second.url], { input: lines(reqs) });
    expect(r.exitCode).toBe(0);
    expect(parseOut(r.stdout).every((o, i) => o.result.hash === hashes[i])).toBe(true);
  });

  it("first endpoint answers 503: idempotent lines move on, unmarked lines are not retried (exit 3)", async () => {
    proxy.setFault({ kind: "status", status: 503, body: "Work queue depth exceeded" });
    try {
      const s0 = second.hits;
      const input = lines([
        { method: "getblockheader", params: [hashes[1]] },
        { method: "getblockstats", params: [1, ["height"]] },
        { method: "getblockheader", params: [hashes[2]] },
      ]);
      const r = await runCli(["batch", "--url", proxy.url, "--url", second.url, "--retries", "0"], { input });
      expect(r.exitCode).toBe(3);
      const out = parseOut(r.stdout);
      expect(out[0].result.hash).toBe(hashes[1]);
      expect(out[1].error.message).toContain("not marked idempotent");
      expect(out[2].result.hash).toBe(hashes[2]);
      expect(second.hits - s0).toBe(2);
    } finally {
      proxy.setFault({ kind: "pass" });
    }
  });

  it("heavy methods are spaced by --heavy-rate, not batched", async () => {
    const reqs = Array.from({ length: 4 }, () => ({ method: "gettxoutsetinfo", params: ["none"] }));
    const before = proxy.hitsByMethod.gettxoutsetinfo ?? 0;
    const r = await runCli(["batch", "--url", proxy.url, "--heavy-rate", "4"], { input: lines(reqs) });
    expect(r.exitCode).toBe(0);
    expect(parseOut(r.stdout)).toHaveLength(4);
    expect((proxy.hitsByMethod.gettxoutsetinfo ?? 0) - before).toBe(4);
    // 4 calls at 4/s: the last one starts ≥ 750 ms after the first
    expect(r.durationMs).toBeGreaterThanOrEqual(750);
  });
});

describe("--range", () => {
  it("getblockheader --range streams one line per height, in order", async () => {
    const r = await runCli(["getblockheader", "--range", "10..35", "--url", proxy.url]);
    expect(r.exitCode).toBe(0);
    const out = parseOut(r.stdout);
    expect(out.map((o) => o.id)).toEqual(Array.from({ length: 26 }, (_, i) => 10 + i));
    expect(out.every((o) => o.result.hash === hashes[o.id])).toBe(true);
  });

  it("descending ranges and the other params (getblockstats with a stat list)", async () => {
    const r = await runCli(["getblockstats", "--range", "5..3", '["height","txs"]', "--url", proxy.url]);
    expect(parseOut(r.stdout)).toEqual([
      { id: 5, result: { height: 5, txs: 1 } },
      { id: 4, result: { height: 4, txs: 1 } },
      { id: 3, result: { height: 3, txs: 1 } },
    ]);
  });

  it("a range past the tip stops at the tip and says so; one above the tip is refused", async () => {
    const r = await runCli(["getblockheader", "--range", "59..62", "--url", proxy.url]);
    expect(r.exitCode).toBe(0);
    const out = parseOut(r.stdout);
    expect(out.map((l) => l.id)).toEqual([59, 60]);
    expect(r.stderr).toMatch(
      /chaingw getblockheader --range: the chain's tip is at height 60; the range stops there/,
    );
    // a huge range is bounded by the tip: two requests, not 100 million
    const before = proxy.hits;
    const huge = await runCli([
      "getblockheader",
      "--range",
      "58..99999999",
      "--url",
      proxy.url,
      "--batch-size",
      "1",
    ]);
    expect(huge.exitCode).toBe(0);
    expect(parseOut(huge.stdout)).toHaveLength(3);
    expect(proxy.hits - before).toBeLessThanOrEqual(1 + 3 * 2);
    const above = await runCli(["getblockheader", "--range", "70..80", "--url", proxy.url]);
    expect(above.exitCode).toBe(2);
    expect(above.stderr).toMatch(/tip is at height 60; the range starts above it/);
    expect(above.stdout).toBe("");
  });

  it("a bad range is exit 2 with nothing sent; A-B reads as A..B (one syntax everywhere)", async () => {
    const before = proxy.hits;
    for (const bad of ["10..x", "10", "1..3000000000"]) {
      const r = await runCli(["getblockheader", "--range", bad, "--url", proxy.url]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain("invalid --range");
    }
    expect(proxy.hits).toBe(before);
    const dash = await runCli(["getblockheader", "--range", "10-12", "--url", proxy.url]);
    expect(dash.exitCode).toBe(0);
    expect(parseOut(dash.stdout).map((l) => l.id)).toEqual([10, 11, 12]);
  });

  it("fresh connections are capped like pooled ones: 100 arrays in flight, at most 64 connections open", async () => {
    // litecoind itself would refuse 64 at once: its work queue holds 16
    const slow = await startSlowArrays(300);
    try {
      const reqs = Array.from({ length: 200 }, () => ({ method: "getblockcount" }));
      const r = await runCli(["batch", "--url", slow.url, "--batch-size", "2", "--concurrency", "100"], {
        input: lines(reqs),
      });
      expect(r.exitCode).toBe(0);
      expect(parseOut(r.stdout)).toHaveLength(200);
      // one connection per array (utxo group), never more than 64 at work at once
      expect(slow.connections).toBe(100);
      expect(slow.maxBusy).toBeLessThanOrEqual(64);
      expect(slow.maxBusy).toBeGreaterThan(8);
    } finally {
      await new Promise((r) => slow.server.close(r));
    }
  });

  it("a named pipe as input: read as it is written, the writer not cut off", async () => {
    const dir = mkdtempSync(join(tmpdir(), "chaingw-fifo-"));
    trackDir(dir);
    const fifo = join(dir, "requests");
    execFileSync("mkfifo", [fifo]);
    const reqs = Array.from({ length: 3000 }, (_, i) => ({ method: "getblockhash", params: [i % 61] }));
    const run = runCli(["batch", "--url", proxy.url, fifo]);
    const w = createWriteStream(fifo);
    w.end(lines(reqs));
    const [r] = await Promise.all([run, once(w, "finish")]);
    expect(r.exitCode).toBe(0);
    expect(parseOut(r.stdout)).toHaveLength(3000);
  });

  it("EVM arrays keep their connections alive (only bitcoind-family nodes get fresh ones)", async () => {
    const front = await startFaultServer({ upstream: { url: tron.url } });
    try {
      const first = 0x3fe1c00;
      const r = await runCli([
        "--chain",
        "evm-compat",
        "eth_getBlockByNumber",
        "--range",
        `${first}..${first + 39}`,
        "--url",
        front.url,
        "--batch-size",
        "5",
        "--concurrency",
        "2",
        "--no-verify",
      ]);
      expect(r.exitCode).toBe(0);
      // the fixture's chain has 20 blocks: the range stops at its tip (one eth_blockNumber, four arrays)
      expect(parseOut(r.stdout)).toHaveLength(20);
      expect(front.hits).toBe(5);
      expect(front.connections).toBeLessThanOrEqual(2);
      // methods outside the registry in an EVM namespace too, without --chain
      const before = front.connections;
      const other = await runCli(["batch", "--url", front.url, "--batch-size", "5", "--concurrency", "2"], {
        input: lines(Array.from({ length: 40 }, () => ({ method: "web3_clientVersion" }))),
      });
      expect(parseOut(other.stdout)).toHaveLength(40);
      expect(front.connections - before).toBeLessThanOrEqual(2);
    } finally {
      await front.stop();
    }
  });

  it("EVM-compat eth_getBlockByNumber --range checks each block's hash prefix", async () => {
    const first = 0x3fe1c00;
    const args = [
      "--chain",
      "evm-compat",
      "eth_getBlockByNumber",
      "--range",
      `${first}..${first + 5}`,
      "--url",
      tron.url,
    ];
    const r = await runCli(args);
    expect(r.exitCode).toBe(1);
    const out = parseOut(r.stdout);
    expect(out).toHaveLength(6);
    expect(out[3].error.code).toBe("integrity");
    expect(out[3].error.message).toContain("0x3fe1c03");
    expect(out.filter((o) => o.result).map((o) => o.result.number)).toEqual(
      [0, 1, 2, 4, 5].map((k) => `0x${(first + k).toString(16)}`),
    );
    const skip = await runCli([...args, "--no-verify"]);
    expect(skip.exitCode).toBe(0);
  });
});
