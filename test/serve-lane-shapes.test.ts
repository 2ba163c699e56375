/**
 * `serve`'s lane (src/serve/lane.ts) against node's HTTP server, shape by shape, over real sockets: each
 * request shape is sent once whole (what the lane may take) and once with its first byte alone (the lane
 * takes nothing under 16 bytes: node's server reads all of it). A client must see the same statuses, the
 * same ids and the same closing from both, and the status the table names. Then a request that starts on
 * the lane and is handed to node mid-way, split at every byte.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { PROBE_TIMEOUT_S, type Served, startServe } from "./helpers/serve.js";

let node: LitecoinNode;
let gw: Served;
let key: string;
let port: number;
const MAX_BODY = 4096;

beforeAll(async () => {
  node = await startLitecoind({ blocks: 3 });
  gw = await startServe(
    {
      products: {
        ltc: { chain: "utxo", upstreams: [node.url.replace("//", `//${node.user}:${node.password}@`)] },
      },
      health: { interval: 0.5, timeout: PROBE_TIMEOUT_S },
      maxBodyBytes: MAX_BODY,
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
/** A whole request: the lane's shape unless `edit` makes it another (`K` in the head stands for the key). */
const request = (id: number, edit: (head: string) => string = (h) => h, b = body(id)) => {
  const head = `POST /v1/ltc HTTP/1.1\r\nHost: gw\r\nX-API-Key: K\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(b)}\r\n\r\n`;
  return (edit(head) + b).replaceAll("X-API-Key: K", `X-API-Key: ${key}`);
};
/** a header line added before the head's end */
const add = (line: string) => (h: string) => h.replace(/\r\n\r\n$/, `\r\n${line}\r\n\r\n`);

/** a part that half-closes the client's side (its FIN) */
const FIN = "\u0000FIN";

interface Parsed {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One connection: `parts` written in turn as latin1 bytes (a number waits that many ms), then the answers
 * read until `expected` came whole (and, with `untilClosed`, until the server closed) or the server closed.
 */
async function exchange(
  parts: (string | number)[],
  expected: number,
  untilClosed = false,
): Promise<{ answers: Parsed[]; closed: boolean }> {
  const s = connect(port, "127.0.0.1");
  s.setNoDelay(true);
  let raw = Buffer.alloc(0);
  let closed = false;
  s.on("data", (c: Buffer) => (raw = Buffer.concat([raw, c])));
  s.on("end", () => (closed = true));
  s.on("close", () => (closed = true));
  s.on("error", () => {});
  await new Promise<void>((r) => s.once("connect", () => r()));
  for (const p of parts) {
    if (typeof p === "number") await new Promise((r) => setTimeout(r, p));
    else if (!s.destroyed) {
      const fin = p.endsWith(FIN);
      s.write(Buffer.from(fin ? p.slice(0, -FIN.length) : p, "latin1"));
      if (fin) s.end();
    }
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
  // bounded: 600 × 50 ms
  for (let i = 0; i < 600 && (parse().length < expected || untilClosed) && !closed; i++)
    await new Promise((r) => setTimeout(r, 50));
  const answers = parse();
  s.destroy();
  return { answers, closed };
}

/** status and JSON-RPC id of each answer (id "-" when the body is not JSON: node's own refusals) */
const seen = (answers: Parsed[]) =>
  answers.map((a) => {
    try {
      return `${a.status}:${JSON.stringify((JSON.parse(a.body) as { id: unknown }).id)}`;
    } catch {
      return `${a.status}:-`;
    }
  });

/** A shape and what a client must see: its answers ("status:id"), and whether the connection then closes. */
interface Shape {
  name: string;
  bytes: string;
  answers: string[];
  closes: boolean;
  /**
   * a second outcome either reader may give: a race, not a divergence (a request and the client's FIN in one
   * read: the lane may answer it before it sees the FIN, node's server drops it; both close)
   */
  or?: string;
}

const bigHead = (n: number) =>
  Array.from({ length: n }, (_, i) => `X-Pad-${i}: ${"p".repeat(40)}`).join("\r\n");

const shapes = (): Shape[] => [
  { name: "the lane's own shape", bytes: request(1), answers: ["200:1"], closes: false },
  // the request line
  {
    name: "POSTX as the method",
    bytes: request(2, (h) => h.replace("POST ", "POSTX")),
    answers: ["400:-"],
    closes: true,
  },
  {
    name: "a tab after the method",
    bytes: request(3, (h) => h.replace("POST ", "POST\t")),
    answers: ["400:-"],
    closes: true,
  },
  {
    name: "lower-case method",
    bytes: request(4, (h) => h.replace("POST ", "post ")),
    answers: ["400:-"],
    closes: true,
  },
  {
    name: "absolute-form target",
    bytes: request(5, (h) => h.replace("POST /", "POST http://gw/")),
    answers: ["404:5"],
    closes: false,
  },
  { name: "a CRLF before the request line", bytes: `\r\n${request(6)}`, answers: ["200:6"], closes: false },
  {
    name: "HTTP/1.0 with Connection: keep-alive",
    bytes: request(7, (h) => add("Connection: keep-alive")(h.replace("HTTP/1.1", "HTTP/1.0"))),
    answers: ["200:7"],
    closes: false,
  },
  // framing
  {
    name: "Content-Length beside Transfer-Encoding (CL.TE)",
    bytes: request(8, add("Transfer-Encoding: chunked")),
    answers: ["400:-"],
    closes: true,
  },
  {
    name: "Transfer-Encoding before Content-Length (TE.CL)",
    bytes: request(9, (h) => h.replace("Content-Length", "Transfer-Encoding: chunked\r\nContent-Length")),
    answers: ["400:-"],
    closes: true,
  },
  {
    name: "two equal Content-Lengths",
    bytes: request(10, add(`Content-Length: ${body(10).length}`)),
    answers: ["400:-"],
    closes: true,
  },
  {
    name: "two different Content-Lengths",
    bytes: request(11, add("Content-Length: 5")),
    answers: ["400:-"],
    closes: true,
  },
  {
    name: "Content-Length with a plus",
    bytes: request(12, (h) => h.replace("Content-Length: ", "Content-Length: +")),
    answers: ["400:-"],
    closes: true,
  },
  {
    name: "content-length in lower case",
    bytes: request(13, (h) => h.replace("Content-Length", "content-length")),
    answers: ["200:13"],
    closes: false,
  },
  {
    name: "Content-Length short of the body (bytes after it)",
    bytes: request(14, (h) => h.replace(/Content-Length: \d+/, `Content-Length: ${body(14).length - 1}`)),
    answers: ["400:-"],
    closes: true,
  },
  // header lines
  {
    name: "obs-fold continuation line",
    bytes: request(15, (h) => h.replace("Host: gw\r\n", "Host: gw\r\n folded\r\n")),
    answers: ["400:-"],
    closes: true,
  },
  {
    name: "a space before a colon",
    bytes: request(16, (h) => h.replace("Host:", "Host :")),
    answers: ["400:-"],
    closes: true,
  },
  { name: "a tab in a header name", bytes: request(17, add("X-A\tb: 1")), answers: ["400:-"], closes: true },
  {
    name: "a control byte in a header name",
    bytes: request(18, add("X-A\x01b: 1")),
    answers: ["400:-"],
    closes: true,
  },
  {
    name: "a NUL in a header value",
    bytes: request(19, add("X-A: a\x00b")),
    answers: ["400:-"],
    closes: true,
  },
  {
    name: "bare LF line endings",
    bytes: request(20, (h) => h.replaceAll("\r\n", "\n")),
    answers: ["400:-"],
    closes: true,
  },
  {
    name: "a bare LF inside the head",
    bytes: request(21, (h) => h.replace("Host: gw\r\n", "Host: gw\n")),
    answers: ["400:-"],
    closes: true,
  },
  {
    name: "a bare CR inside a value",
    bytes: request(22, add("X-A: a\rb")),
    answers: ["400:-"],
    closes: true,
  },
  {
    name: "obs-text in a value",
    bytes: request(23, add("X-A: caf\xe9")),
    answers: ["200:23"],
    closes: false,
  },
  {
    name: "an 8 KiB header line (past the lane's head)",
    bytes: request(24, add(`X-Long: ${"a".repeat(8200)}`)),
    answers: ["200:24"],
    closes: false,
  },
  {
    name: "a 17 KiB header line (past node's bound)",
    bytes: request(25, add(`X-Long: ${"a".repeat(17_000)}`)),
    answers: ["431:-"],
    closes: true,
  },
  {
    name: "100 header lines (the lane's)",
    bytes: request(26, add(bigHead(95))),
    answers: ["200:26"],
    closes: false,
  },
  {
    name: "140 header lines (node's)",
    bytes: request(26, add(bigHead(140))),
    answers: ["200:26"],
    closes: false,
  },
  {
    name: "the key after 2,000 other header lines (node keeps 2,000)",
    bytes: request(27, (h) =>
      h
        .replace("X-API-Key: K\r\n", "")
        .replace(
          "Host: gw\r\n",
          `Host: gw\r\n${Array.from({ length: 2000 }, () => "a:").join("\r\n")}\r\nX-API-Key: K\r\n`,
        ),
    ),
    answers: ["401:27"],
    closes: false,
  },
  {
    name: "Host after 2,000 other header lines",
    bytes: request(28, (h) =>
      h.replace("Host: gw\r\n", `${Array.from({ length: 2000 }, () => "a:").join("\r\n")}\r\nHost: gw\r\n`),
    ),
    answers: ["400:-"],
    closes: true,
  },
  // duplicates and case
  {
    name: "no Host",
    bytes: request(29, (h) => h.replace("Host: gw\r\n", "")),
    answers: ["400:-"],
    closes: true,
  },
  {
    name: "an empty Host",
    bytes: request(30, (h) => h.replace("Host: gw", "Host:")),
    answers: ["200:30"],
    closes: false,
  },
  { name: "Host twice", bytes: request(31, add("Host: other")), answers: ["200:31"], closes: false },
  {
    name: "HOST in upper case",
    bytes: request(32, (h) => h.replace("Host:", "HOST:")),
    answers: ["200:32"],
    closes: false,
  },
  {
    name: "X-API-Key twice, the same key",
    bytes: request(33, add("X-API-Key: K")),
    answers: ["401:33"],
    closes: false,
  },
  {
    name: "X-API-Key twice, case variants",
    bytes: request(34, add("x-api-key: cgw_other")),
    answers: ["401:34"],
    closes: false,
  },
  {
    name: "X-API-KEY in upper case",
    bytes: request(35, (h) =>
      h.replace("X-API-Key: K", "X-API-KEY: K").replace("X-API-KEY: K", `X-API-KEY: ${key}`),
    ),
    answers: ["200:35"],
    closes: false,
  },
  {
    name: "the key with spaces and tabs around it",
    bytes: request(36, (h) => h.replace("X-API-Key: K", `X-API-Key: \t ${key} \t`)),
    answers: ["200:36"],
    closes: false,
  },
  {
    name: "a wrong key",
    bytes: request(37, (h) => h.replace("X-API-Key: K", "X-API-Key: cgw_wrong")),
    answers: ["401:37"],
    closes: false,
  },
  {
    name: "an empty key",
    bytes: request(38, (h) => h.replace("X-API-Key: K", "X-API-Key:")),
    answers: ["401:38"],
    closes: false,
  },
  {
    name: "no key",
    bytes: request(39, (h) => h.replace("X-API-Key: K\r\n", "")),
    answers: ["401:39"],
    closes: false,
  },
  {
    name: "Authorization twice",
    bytes: request(40, add("Authorization: Basic eDp5\r\nAuthorization: Basic eDp6")),
    answers: ["200:40"],
    closes: false,
  },
  // connection and expectations
  {
    name: "Connection: close",
    bytes: request(41, add("Connection: close")),
    answers: ["200:41"],
    closes: true,
  },
  {
    name: "Connection: keep-alive, close",
    bytes: request(42, add("Connection: keep-alive, close")),
    answers: ["200:42"],
    closes: true,
  },
  {
    name: "Connection: Keep-Alive",
    bytes: request(43, add("Connection: Keep-Alive")),
    answers: ["200:43"],
    closes: false,
  },
  {
    name: "Expect: 100-continue",
    bytes: request(44, add("Expect: 100-continue")),
    answers: ["100:-", "200:44"],
    closes: false,
  },
  {
    name: "Upgrade: websocket",
    bytes: request(45, add("Connection: Upgrade\r\nUpgrade: websocket")),
    answers: ["200:45"],
    closes: false,
  },
  // size
  {
    name: "a body at the cap",
    bytes: request(46, undefined, body(46).padEnd(MAX_BODY, " ")),
    answers: ["200:46"],
    closes: false,
  },
  {
    name: "a body one byte past the cap",
    bytes: request(47, undefined, body(47).padEnd(MAX_BODY + 1, " ")),
    answers: ["413:null"],
    closes: false,
  },
  {
    name: "a body of ten times the cap",
    bytes: request(48, undefined, body(48).padEnd(MAX_BODY * 10, " ")),
    answers: ["413:null"],
    closes: false,
  },
  { name: "an empty body", bytes: request(49, undefined, ""), answers: ["200:null"], closes: false },
  {
    name: "Content-Length with leading zeros",
    bytes: request(55, (h) => h.replace("Content-Length: ", "Content-Length: 000")),
    answers: ["200:55"],
    closes: false,
  },
  {
    name: "Basic credentials once, no X-API-Key",
    bytes: request(56, (h) => h.replace("X-API-Key: K", "Authorization: Basic eDp5")),
    answers: ["401:56"],
    closes: false,
  },
  {
    name: "the request, then the client's FIN (half-close)",
    bytes: request(57) + FIN,
    answers: [],
    closes: true,
    or: "200:57 closed",
  },
  // pipelining in one write
  {
    name: "three pipelined requests",
    bytes: request(50) + request(51) + request(52),
    answers: ["200:50", "200:51", "200:52"],
    closes: false,
  },
  {
    name: "a pipelined request after Connection: close",
    bytes: request(53, add("Connection: close")) + request(54),
    answers: ["400:-"],
    closes: true,
  },
];

describe("serve's lane answers every shape as node's server does", () => {
  it("whole (the lane's, if it takes it) and from its first byte alone (node's): the same answers and closing", async () => {
    const diverged: string[] = [];
    const one = async (shape: Shape): Promise<void> => {
      const n = shape.answers.length;
      // a connection that stays open is shown open: a request after the shape's is answered on it
      const follow = shape.closes ? [] : [200, request(99)];
      const want = shape.closes ? shape.answers : [...shape.answers, "200:99"];
      const count = n + (shape.closes ? 0 : 1);
      const [whole, split] = await Promise.all([
        exchange([shape.bytes, ...follow], count, shape.closes),
        exchange([shape.bytes.slice(0, 1), 100, shape.bytes.slice(1), ...follow], count, shape.closes),
      ]);
      const line = (r: { answers: Parsed[]; closed: boolean }) =>
        `${seen(r.answers).join(",")}${r.closed ? " closed" : ""}`;
      const expected = `${want.join(",")}${shape.closes ? " closed" : ""}`;
      const fits = (l: string) => l === expected || (shape.or !== undefined && l === shape.or);
      if (!fits(line(whole)) || !fits(line(split)))
        diverged.push(`${shape.name}: whole ${line(whole)} | node ${line(split)} | expected ${expected}`);
    };
    // a few shapes at a time (a loaded machine)
    const all = shapes();
    for (let i = 0; i < all.length; i += 4) await Promise.all(all.slice(i, i + 4).map(one));
    expect(diverged).toEqual([]);
  });

  it("a request answered by the lane, the next one handed to node mid-way, split at every byte: both answered in order", async () => {
    const second = request(2);
    const runs: Promise<string>[] = [];
    const results: string[] = [];
    for (let i = 1; i < second.length; i++) {
      // the second request's first piece comes while the first is answered (i odd) or after (i even)
      runs.push(
        exchange(
          [request(1), ...(i % 2 ? [] : [200]), second.slice(0, i), 100, second.slice(i), 200, request(3)],
          3,
        ).then((r) => `${i}: ${seen(r.answers).join(",")}${r.closed ? " closed" : ""}`),
      );
      // a few connections at a time (a loaded machine)
      if (runs.length === 8) results.push(...(await Promise.all(runs.splice(0))));
    }
    results.push(...(await Promise.all(runs)));
    const wrong = results.filter((r) => !r.endsWith(": 200:1,200:2,200:3"));
    expect(wrong).toEqual([]);
    expect(results.length).toBe(second.length - 1);
  });
});
