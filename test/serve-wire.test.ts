/**
 * `serve`'s quick path speaks HTTP/1.1 on kept-alive sockets of its own (src/rpc/wire.ts), not through
 * node's client. A raw TCP node here answers each way HTTP allows an answer to be framed and each way a
 * broken one breaks: the gateway must pass the exact result, reuse connections only when it may, and treat
 * anything it cannot read as a failed attempt (another upstream for an idempotent read, else -32010).
 */
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { postRaw } from "./helpers/http.js";
import { sleep } from "./helpers/procs.js";
import { PROBE_TIMEOUT_S, type Served, startServe } from "./helpers/serve.js";

const HASH = "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206";

/** parts that are not bytes: the node resets the connection (RST), or ends it (FIN), there */
const RESET = "\u0000reset";
const END = "\u0000end";

/** How the raw node writes the answer to a getbestblockhash call: the parts, written apart. */
type Shape = (json: string) => (string | Buffer)[];

interface RawNode {
  url: string;
  /** connections that carried a getbestblockhash request */
  callConnections: Set<Socket>;
  calls: number;
  shape: Shape;
  /** after an answer, the node closes the connection this many ms later (undefined: keeps it) */
  closeIdleAfterMs?: number;
  /** the node drops a connection, unanswered, when its second call arrives on it (an idle close's race) */
  dropSecondCall?: boolean;
  /** calls dropped so */
  dropped: number;
  stop(): Promise<void>;
}

const withLength: Shape = (json) => [
  `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`,
];

/** A node on a raw socket: reads HTTP/1.1 requests (Content-Length bodies) and answers JSON-RPC. */
async function rawNode(): Promise<RawNode> {
  const sockets = new Set<Socket>();
  const node: RawNode = {
    url: "",
    callConnections: new Set(),
    calls: 0,
    dropped: 0,
    shape: withLength,
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server: Server = createServer((sock) => {
    sockets.add(sock);
    sock.on("close", () => sockets.delete(sock));
    sock.on("error", () => {});
    let buf = Buffer.alloc(0);
    let callsHere = 0;
    sock.on("data", async (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const end = buf.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = buf.toString("latin1", 0, end);
        const len = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buf.length < end + 4 + len) return;
        const req = JSON.parse(buf.toString("utf8", end + 4, end + 4 + len));
        buf = buf.subarray(end + 4 + len);
        if (Array.isArray(req)) {
          // the health checks: the tip and the genesis hash in one array
          const out = req.map((c) => ({
            result: c.method === "getblockhash" ? HASH : 100,
            error: null,
            id: c.id,
          }));
          for (const part of withLength(JSON.stringify(out))) sock.write(part);
          continue;
        }
        if (req.method === "getbestblockhash") {
          if (++callsHere === 2 && node.dropSecondCall) {
            node.dropped++;
            sock.destroy();
            return;
          }
          node.calls++;
          node.callConnections.add(sock);
          const json = JSON.stringify({ result: HASH, error: null, id: req.id });
          for (const part of node.shape(json)) {
            if (sock.destroyed) return;
            if (part === RESET) return void sock.resetAndDestroy();
            if (part === END) return void sock.end();
            sock.write(part);
            await sleep(2);
          }
          if (node.closeIdleAfterMs !== undefined) setTimeout(() => sock.end(), node.closeIdleAfterMs);
        } else {
          // anything else: a plain answer
          for (const part of withLength(JSON.stringify({ result: 100, error: null, id: req.id })))
            sock.write(part);
        }
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const a = server.address() as { port: number };
  node.url = `http://127.0.0.1:${a.port}/`;
  return node;
}

const nodes: RawNode[] = [];
const gateways: Served[] = [];
afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()));
  await Promise.all(nodes.map((n) => n.stop()));
});

async function setup(count = 1): Promise<{ gw: Served; ns: RawNode[] }> {
  const ns = await Promise.all(Array.from({ length: count }, () => rawNode()));
  nodes.push(...ns);
  const gw = await startServe(
    {
      products: { ltc: { chain: "utxo", upstreams: ns.map((n) => n.url) } },
      health: { interval: 60, timeout: PROBE_TIMEOUT_S },
    },
    { keys: [["ltc"]] },
  );
  gateways.push(gw);
  return { gw, ns };
}

const call = (gw: Served, id = 7) =>
  postRaw(
    `${gw.url}/v1/ltc`,
    JSON.stringify({ jsonrpc: "2.0", id, method: "getbestblockhash", params: [] }),
    {
      headers: { "x-api-key": gw.keys[0] as string },
    },
  );
const expectHash = (r: { status: number; text: string }, id = 7) => {
  expect(r.status, r.text).toBe(200);
  expect(r.text).toBe(`{"jsonrpc":"2.0","id":${id},"result":"${HASH}"}`);
};

describe("serve's quick path on its own HTTP/1.1 connections", () => {
  it("reuses one kept-alive connection for calls made one after another", async () => {
    const { gw, ns } = await setup();
    for (let i = 0; i < 20; i++) expectHash(await call(gw, i), i);
    expect(ns[0]?.calls).toBe(20);
    expect(ns[0]?.callConnections.size).toBe(1);
  });

  it("reads a chunked answer (size extensions, a trailer, split across writes) and keeps the connection", async () => {
    const { gw, ns } = await setup();
    (ns[0] as RawNode).shape = (json) => {
      const a = json.slice(0, 10);
      const b = json.slice(10);
      return [
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
        `${a.length.toString(16)};ext=1\r\n${a}\r`,
        `\n${b.length.toString(16)}\r\n${b}\r\n`,
        "0\r\nX-Trailer: yes\r\n",
        "\r\n",
      ];
    };
    for (let i = 0; i < 5; i++) expectHash(await call(gw, i), i);
    expect(ns[0]?.callConnections.size).toBe(1);
  });

  it("reads an answer framed by the connection's end (HTTP/1.0, no length) and opens a new one next time", async () => {
    const { gw, ns } = await setup();
    (ns[0] as RawNode).shape = (json) => [`HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n${json}`];
    (ns[0] as RawNode).closeIdleAfterMs = 0;
    for (let i = 0; i < 3; i++) expectHash(await call(gw, i), i);
    expect(ns[0]?.callConnections.size).toBe(3);
  });

  it("does not reuse a connection the node said it closes; reads an answer written byte by byte", async () => {
    const { gw, ns } = await setup();
    (ns[0] as RawNode).shape = (json) => [
      ...`HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: ${json.length}\r\n\r\n${json}`,
    ];
    (ns[0] as RawNode).closeIdleAfterMs = 0;
    for (let i = 0; i < 2; i++) expectHash(await call(gw, i), i);
    expect(ns[0]?.callConnections.size).toBe(2);
  });

  it("a connection the node closed while idle is not used again: the next call answers", async () => {
    const { gw, ns } = await setup();
    (ns[0] as RawNode).closeIdleAfterMs = 20;
    expectHash(await call(gw, 1), 1);
    await sleep(200);
    expectHash(await call(gw, 2), 2);
    expect(ns[0]?.callConnections.size).toBe(2);
  });

  it("a kept-alive connection the node drops as the call arrives: the call is sent again on a fresh one", async () => {
    const { gw, ns } = await setup();
    (ns[0] as RawNode).dropSecondCall = true;
    // each connection answers one call and drops the next: calls 2 and 3 each go again on a fresh one
    for (let i = 0; i < 3; i++) expectHash(await call(gw, i), i);
    expect(ns[0]?.dropped).toBe(2);
    expect(ns[0]?.calls).toBe(3);
    expect(ns[0]?.callConnections.size).toBe(3);
  });

  it("an answer it cannot read fails the attempt: -32010 naming the upstream alone, another upstream when there is one", async () => {
    const broken: [string, Shape][] = [
      ["not HTTP", () => ["SSH-2.0-OpenSSH_9.2\r\n\r\n"]],
      // in the same write as the answer: an answer followed by bytes nobody asked for is not trusted
      ["bytes after the length", (json) => [`${withLength(json)[0]}HTTP/1.1 200 OK\r\n`]],
      ["an unreadable length", (json) => [`HTTP/1.1 200 OK\r\nContent-Length: 12x\r\n\r\n${json}`]],
      [
        "a bad chunk",
        (json) => [`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n${json}\r\n0\r\n\r\n`],
      ],
      // framed by the connection's end, but the connection is reset, not ended: cut short, not an answer
      [
        "a close-framed answer cut by a reset",
        (json) => [`HTTP/1.0 200 OK\r\n\r\n${json.slice(0, 12)}`, RESET],
      ],
      // no body whatever the framing says: answered at once (not read until a close that never comes)
      ["204 without a length", () => ["HTTP/1.1 204 No Content\r\n\r\n"]],
    ];
    const alone = await setup(1);
    const pair = await setup(2);
    for (const [what, shape] of broken) {
      (alone.ns[0] as RawNode).shape = shape;
      const r = await call(alone.gw);
      expect([r.status, JSON.parse(r.text).error.code], what).toEqual([200, -32010]);
      // named to the client as the operator's upstream, never by its host:port (issue 57)
      expect(JSON.parse(r.text).error.message, what).toMatch(/upstream 1: /);
      expect(JSON.parse(r.text).error.message, what).not.toMatch(/127\.0\.0\.1/);
      (pair.ns[0] as RawNode).shape = shape;
      const before = pair.ns[1]?.calls ?? 0;
      expectHash(await call(pair.gw));
      expect(pair.ns[1]?.calls, what).toBe(before + 1);
    }
    // a kept-alive connection that ends after an interim 1xx: the node heard the call, so it is not sent again
    (alone.ns[0] as RawNode).shape = withLength;
    expectHash(await call(alone.gw));
    (alone.ns[0] as RawNode).shape = () => ["HTTP/1.1 100 Continue\r\n\r\n", END];
    const calls = alone.ns[0]?.calls ?? 0;
    expect(JSON.parse((await call(alone.gw)).text).error.code).toBe(-32010);
    expect(alone.ns[0]?.calls).toBe(calls + 1);
    // and a sound answer on the same upstream afterwards: nothing of the broken one was kept
    (alone.ns[0] as RawNode).shape = withLength;
    expectHash(await call(alone.gw));
  });
});
