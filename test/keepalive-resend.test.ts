/**
 * A kept-alive connection the upstream's server closed while it sat idle (issue 60, item 3): a proxy that
 * closes idle connections made 4,500 rows of an exchange's file read "signed, not re-read", because
 * eth_getBlockByNumber (a read, not marked idempotent) was not sent again. Here a real loopback HTTP server
 * closes a connection idle longer than IDLE_MS when the next request arrives on it — a reset before any
 * byte of an answer, what the client sees when the server's idle close crosses its request — and counts
 * what its application answered. A read goes once more on a new connection; a method outside the registry
 * (eth_sendRawTransaction: it may change the node's state) never does.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TransportError } from "../src/errors/index.js";
import { findMethod } from "../src/methods/index.js";
import { prepare, prepareRaw, send } from "../src/methods/prepare.js";
import { callBatch } from "../src/rpc/batch.js";
import { JsonRpcClient } from "../src/rpc/client.js";
import { nodeEndpoint } from "../src/rpc/endpoint.js";
import { sleep } from "./helpers/procs.js";

/** a connection idle this long is closed by the server when the next request arrives on it */
const IDLE_MS = 50;

let server: Server;
let url: string;
/** requests the server's application answered, by method; connections it reset as idle */
const answered = new Map<string, number>();
/** requests the server read whole before it reset their connection as idle, by method */
const resetAfterReading = new Map<string, number>();
/** read a request whole before resetting its idle connection (a node that got it, then the reset) */
let readThenReset = false;
let resets = 0;
/** every request reset, on any connection (a server that fails outright) */
let resetEvery = false;
const lastAnswer = new WeakMap<Socket, number>();

const BLOCK = { number: "0x10", hash: `0x${"ab".repeat(32)}`, timestamp: "0x5", transactions: [] };

function answer(m: { id: unknown; method: string }) {
  answered.set(m.method, (answered.get(m.method) ?? 0) + 1);
  const result = m.method === "eth_getBlockByNumber" ? BLOCK : `0x${"cd".repeat(32)}`;
  return { jsonrpc: "2.0", id: m.id, result };
}

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const sock = req.socket;
    const last = lastAnswer.get(sock);
    const idle = last !== undefined && Date.now() - last >= IDLE_MS;
    if (idle && readThenReset) {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const { method } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { method: string };
        resetAfterReading.set(method, (resetAfterReading.get(method) ?? 0) + 1);
        resets++;
        sock.resetAndDestroy();
      });
      return;
    }
    if (resetEvery || idle) {
      // idle too long: closed, and the request that came on it reset unanswered
      resets++;
      sock.resetAndDestroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const out = Array.isArray(body) ? body.map(answer) : answer(body);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(out), () => lastAnswer.set(sock, Date.now()));
    });
  });
  // the server's own idle close (5 s by default) is not what is tested
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((ok) => server.close(ok));
});

/** a client of many calls (kept-alive connections), one endpoint, no retry passes */
const pooled = () =>
  new JsonRpcClient({
    endpoints: [nodeEndpoint(url)],
    connectTimeoutMs: 5_000,
    requestTimeoutMs: 30_000,
    deadlineMs: 0,
    retries: 0,
    maxBodyBytes: 1 << 20,
    verifyTls: true,
    heavyRate: 0,
    pooled: true,
  });

const counts = () => ({ answered: Object.fromEntries(answered), resets });
const reset = () => {
  answered.clear();
  resetAfterReading.clear();
  resets = 0;
};

describe("a kept-alive connection closed idle by the server", () => {
  it("eth_getBlockByNumber (a read, not idempotent): sent once more on a new connection, answered", async () => {
    reset();
    const client = pooled();
    const def = findMethod("eth_getBlockByNumber", "evm");
    expect(def.marks.idempotent).toBe(false);
    try {
      const first = await send(client, prepare(def, { params: ["0x10", false] }), { scanTimeoutMs: 0 });
      await sleep(4 * IDLE_MS);
      const second = await send(client, prepare(def, { params: ["0x10", false] }), { scanTimeoutMs: 0 });
      expect([first.result, second.result]).toEqual([BLOCK, BLOCK]);
    } finally {
      client.transport.close();
    }
    // the second call's first copy was reset unanswered; its second copy answered
    expect(counts()).toEqual({ answered: { eth_getBlockByNumber: 2 }, resets: 1 });
  });

  it("a batch array of reads: sent once more, every entry answered", async () => {
    reset();
    const client = pooled();
    const def = findMethod("eth_getBlockByNumber", "evm");
    const entries = () => [1, 2, 3].map((n) => prepare(def, { params: [`0x${n}`, false] }));
    try {
      const a = await callBatch(client, entries());
      await sleep(4 * IDLE_MS);
      const b = await callBatch(client, entries());
      expect([...a, ...b].map((o) => (o instanceof Error ? o.message : o.result))).toEqual(
        Array(6).fill(BLOCK),
      );
    } finally {
      client.transport.close();
    }
    expect(counts()).toEqual({ answered: { eth_getBlockByNumber: 6 }, resets: 1 });
  });

  it("eth_sendRawTransaction (outside the registry, may change state): never sent twice, cannot say", async () => {
    reset();
    const client = pooled();
    const raw = () => prepareRaw("eth_sendRawTransaction", ["0x02f8"], "evm");
    try {
      const first = await send(client, raw(), { scanTimeoutMs: 0 });
      expect(first.result).toBe(`0x${"cd".repeat(32)}`);
      await sleep(4 * IDLE_MS);
      const second = await send(client, raw(), { scanTimeoutMs: 0 }).catch((e: unknown) => e);
      expect(second).toBeInstanceOf(TransportError);
      expect((second as Error).message).toMatch(
        /connection reset by the upstream; eth_sendRawTransaction is not marked idempotent, so it was not retried/,
      );
    } finally {
      client.transport.close();
    }
    expect(counts()).toEqual({ answered: { eth_sendRawTransaction: 1 }, resets: 1 });
  });

  it("scantxoutset start (marked writes: it starts a scan) is not sent again; getblockchaininfo, a read, is", async () => {
    reset();
    readThenReset = true;
    const client = pooled();
    const scan = findMethod("scantxoutset", "utxo");
    const info = findMethod("getblockchaininfo", "utxo");
    expect(scan.writes?.when).toEqual(["start", "abort"]);
    const start = () => prepare(scan, { params: ["start", ["addr(mzBc4XEFSdzCDcTxAgf6EZXgsZWpztRhef)"]] });
    let failure: unknown;
    try {
      await send(client, prepare(info, { params: [] }), { scanTimeoutMs: 0 });
      await sleep(4 * IDLE_MS);
      // the node read the start, then the kept-alive connection was reset: sent again, a real node would
      // answer "Scan already in progress"
      failure = await send(client, start(), { scanTimeoutMs: 0 }).catch((e: unknown) => e);
      // a new connection (the reset one is gone), kept alive, then left idle
      await send(client, prepare(info, { params: [] }), { scanTimeoutMs: 0 });
      await sleep(4 * IDLE_MS);
      // the control: a read reset the same way goes once more on a new connection, answered
      await send(client, prepare(info, { params: [] }), { scanTimeoutMs: 0 });
    } finally {
      readThenReset = false;
      client.transport.close();
    }
    expect(failure).toBeInstanceOf(TransportError);
    expect((failure as Error).message).toBe(
      `${url}/: connection reset by the upstream; scantxoutset changes the node's state (the registry marks it writes: the node may have started it), so it was not sent again`,
    );
    expect({ ...counts(), read: Object.fromEntries(resetAfterReading) }).toEqual({
      answered: { getblockchaininfo: 3 },
      resets: 2,
      read: { scantxoutset: 1, getblockchaininfo: 1 },
    });
  });

  it("a reset on a new connection is not sent again: only a reused one closed idle is", async () => {
    reset();
    resetEvery = true;
    const client = pooled();
    const def = findMethod("eth_getBlockByNumber", "evm");
    try {
      const r = await send(client, prepare(def, { params: ["0x10", false] }), { scanTimeoutMs: 0 }).catch(
        (e: unknown) => e,
      );
      expect(r).toBeInstanceOf(TransportError);
    } finally {
      resetEvery = false;
      client.transport.close();
    }
    expect(counts()).toEqual({ answered: {}, resets: 1 });
  });
});
