/**
 * `serve`'s own lane for the common request (issue 57, item 6; src/serve/lane.ts): a whole POST of
 * HTTP/1.1 in a narrow grammar is read and answered without node's HTTP server; everything else goes to
 * node's server from that request on. What a client sees must not depend on which of the two read its
 * request: the same answers, in order, on one connection that moves from one to the other; what node's
 * parser refuses refused (and never served, never logged as a call).
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { PROBE_TIMEOUT_S, type Served, startServe } from "./helpers/serve.js";

let node: LitecoinNode;
let gw: Served;
let key: string;
let port: number;

beforeAll(async () => {
  node = await startLitecoind({ blocks: 3 });
  gw = await startServe(
    {
      products: {
        ltc: { chain: "utxo", upstreams: [node.url.replace("//", `//${node.user}:${node.password}@`)] },
      },
      health: { interval: 0.5, timeout: PROBE_TIMEOUT_S },
    },
    { keys: [["ltc"]] },
  );
  key = gw.keys[0] as string;
  port = Number(new URL(gw.url).port);
});

afterAll(async () => {
  await gw?.stop();
  await node?.stop();
});

const body = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "getblockcount", params: [] });
/** A whole request: the lane's shape unless `edit` makes it another. */
const request = (id: number, edit: (head: string) => string = (h) => h) => {
  const b = body(id);
  const head = `POST /v1/ltc HTTP/1.1\r\nHost: gw\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(b)}\r\n\r\n`;
  return edit(head) + b;
};

interface Parsed {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One connection: `parts` written in turn (a number waits that many ms), then the answers read until
 * `expected` came whole or the server closed; each answer's status, headers (lower-case names) and body.
 */
async function exchange(
  parts: (string | number)[],
  expected: number,
  untilClosed = false,
): Promise<{ answers: Parsed[]; closed: boolean }> {
  const s = connect(port, "127.0.0.1");
  let raw = Buffer.alloc(0);
  let closed = false;
  s.on("data", (c: Buffer) => (raw = Buffer.concat([raw, c])));
  s.on("end", () => (closed = true));
  s.on("close", () => (closed = true));
  s.on("error", () => {});
  await new Promise<void>((r) => s.once("connect", () => r()));
  for (const p of parts) {
    if (typeof p === "number") await new Promise((r) => setTimeout(r, p));
    else s.write(p);
  }
  const parse = (): Parsed[] => {
    const out: Parsed[] = [];
    let at = 0;
    for (;;) {
      const end = raw.indexOf("\r\n\r\n", at);
      if (end < 0) return out;
      const [first, ...lines] = raw.toString("latin1", at, end).split("\r\n");
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(":");
        headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
      }
      const status = Number((first as string).split(" ")[1]);
      if (headers["transfer-encoding"] === "chunked") {
        // node's own refusals (400) come chunked and empty
        const term = raw.indexOf("0\r\n\r\n", end + 4);
        if (term < 0) return out;
        out.push({ status, headers, body: "" });
        at = term + 5;
        continue;
      }
      const len = Number(headers["content-length"] ?? 0);
      if (raw.length < end + 4 + len) return out;
      out.push({ status, headers, body: raw.toString("utf8", end + 4, end + 4 + len) });
      at = end + 4 + len;
    }
  };
  // bounded: 600 × 50 ms (with untilClosed, until the server closed the connection)
  for (let i = 0; i < 600 && (parse().length < expected || untilClosed) && !closed; i++)
    await new Promise((r) => setTimeout(r, 50));
  const answers = parse();
  s.destroy();
  return { answers, closed };
}

const ids = (answers: Parsed[]) => answers.map((a) => [a.status, (JSON.parse(a.body) as { id: unknown }).id]);
/** The access log's lines, once those of the requests before have been written (they leave every 50 ms). */
const accessLines = async () => {
  await new Promise((r) => setTimeout(r, 500));
  return gw.log().length;
};

describe("serve's lane and node's server: one gateway to a client", () => {
  it("a whole request (the lane) and the same request in two pieces (node's server): the same answer and the same headers", async () => {
    const whole = await exchange([request(1)], 1);
    const r = request(2);
    const pieces = await exchange([r.slice(0, 40), 100, r.slice(40)], 1);
    const [a, b] = [whole.answers[0] as Parsed, pieces.answers[0] as Parsed];
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(JSON.parse(a.body)).toEqual({ jsonrpc: "2.0", id: 1, result: 3 });
    expect(JSON.parse(b.body)).toEqual({ jsonrpc: "2.0", id: 2, result: 3 });
    expect(Object.keys(a.headers).sort()).toEqual(Object.keys(b.headers).sort());
    for (const h of ["content-type", "connection", "keep-alive"]) expect(a.headers[h]).toBe(b.headers[h]);
    expect(a.headers.connection).toBe("keep-alive");
  });

  it("pipelined requests in one write are answered in order; requests in pieces, a GET and whole ones follow on one connection", async () => {
    const three = await exchange([request(1) + request(2) + request(3)], 3);
    expect(ids(three.answers)).toEqual([
      [200, 1],
      [200, 2],
      [200, 3],
    ]);
    const r = request(5);
    const mixed = await exchange(
      [
        request(4),
        300,
        r.slice(0, 30),
        100,
        r.slice(30),
        300,
        "GET /healthz HTTP/1.1\r\nHost: gw\r\n\r\n",
        300,
        request(6),
      ],
      4,
    );
    expect(mixed.answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(JSON.parse((mixed.answers[2] as Parsed).body)).toEqual({ status: "ok" });
    expect(
      [mixed.answers[0], mixed.answers[1], mixed.answers[3]].map((a) => JSON.parse((a as Parsed).body).id),
    ).toEqual([4, 5, 6]);
  });

  it("what node's parser refuses is refused, never served: no Host, Content-Length beside Transfer-Encoding, two lengths, a space before a colon", async () => {
    const before = await accessLines();
    const shapes = [
      request(1, (h) => h.replace("Host: gw\r\n", "")),
      request(1, (h) => h.replace("\r\n\r\n", "\r\nTransfer-Encoding: chunked\r\n\r\n")),
      request(1, (h) => h.replace("\r\n\r\n", "\r\nContent-Length: 5\r\n\r\n")),
      request(1, (h) => h.replace("X-API-Key:", "X-API-Key :")),
    ];
    for (const shape of shapes) {
      const { answers, closed } = await exchange([shape], 1, true);
      expect(answers.map((a) => a.status)).toEqual([400]);
      expect(closed).toBe(true);
    }
    expect(await accessLines()).toBe(before);
  });

  it("a repeated X-API-Key is read as node reads it (joined: 401), not by its first value", async () => {
    const { answers } = await exchange(
      [request(7, (h) => h.replace("\r\n\r\n", "\r\nX-API-Key: cgw_other\r\n\r\n"))],
      1,
    );
    expect(ids(answers)).toEqual([[401, 7]]);
  });

  it("Connection: close and HTTP/1.0: answered, then the connection closed", async () => {
    for (const edit of [
      (h: string) => h.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n"),
      (h: string) => h.replace("HTTP/1.1", "HTTP/1.0"),
    ]) {
      const { answers, closed } = await exchange([request(8, edit)], 1, true);
      expect(ids(answers)).toEqual([[200, 8]]);
      expect(answers[0]?.headers.connection).toBe("close");
      expect(closed).toBe(true);
    }
  });
});
