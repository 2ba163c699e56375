// A node that costs almost nothing: an HTTP/1.1 server on raw sockets that answers every POST with one fixed
// getblockheader result in litecoind's 1.0 shape (`{"result":…,"error":null,"id":N}`), the request's id
// echoed. bench/serve.mjs puts it behind the proxies it compares, so what is measured is the proxies, not
// litecoind (whose own cost per request is most of a proxy's round trip and moves with the host's load).
//
//   node bench/fixed-upstream.mjs PORT      # prints "listening" on stderr once it listens
import { createServer } from "node:net";

const RESULT = JSON.stringify({
  hash: "3d1a0e4a2c6d8f1b5e7a9c0b2d4f6e8a1c3b5d7f9e0a2c4b6d8f1e3a5c7b9d0f",
  confirmations: 42,
  height: 258,
  version: 536870912,
  versionHex: "20000000",
  merkleroot: "8b7c2e9f4a1d6c3b0e5f8a2d7c4b9e1f6a3d0c5b8e2f7a4d1c6b9e3f0a5d8c2b",
  time: 1764892800,
  mediantime: 1764892500,
  nonce: 3,
  bits: "207fffff",
  difficulty: 4.656542373906925e-10,
  chainwork: "0000000000000000000000000000000000000000000000000000000000000206",
  nTx: 1,
  previousblockhash: "5f2a8c1e7b4d0a3c6f9e2b5d8a1c4f7e0b3d6a9c2e5f8b1d4a7c0e3f6b9d2a5c",
  nextblockhash: "1e6b3f8a0d5c2e7b4a9f1c6d3e8b0a5f2c7d4e9b1a6f3c8e0d5b2a7f4c9e1d6b",
});
const HEAD = `{"result":${RESULT},"error":null,"id":`;
const TAIL = "}\n";

const idOf = (body) => /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+|null)/.exec(body)?.[1] ?? "null";
const GENESIS = "530827f38f93b43ed12af0b3ad25a288dc02ed74d6d7857862df51fc56c416f9";
/** Anything but the measured call (the gateway's health checks: tip and genesis, often as an array). */
function other(body) {
  const one = (c) => {
    const result =
      c.method === "getblockcount" ? 300 : c.method === "getblockhash" ? GENESIS : JSON.parse(RESULT);
    return { result, error: null, id: c.id ?? null };
  };
  const req = JSON.parse(body);
  return `${JSON.stringify(Array.isArray(req) ? req.map(one) : one(req))}\n`;
}

const port = Number(process.argv[2] ?? 0);
const server = createServer({ noDelay: true }, (socket) => {
  let buf = Buffer.alloc(0);
  socket.on("data", (chunk) => {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    let out = "";
    for (;;) {
      const end = buf.indexOf("\r\n\r\n");
      if (end < 0) break;
      const head = buf.toString("latin1", 0, end);
      const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      const len = m ? Number(m[1]) : 0;
      if (buf.length < end + 4 + len) break;
      const body = buf.toString("utf8", end + 4, end + 4 + len);
      buf = buf.subarray(end + 4 + len);
      const answer = body.includes('"getblockheader"') ? `${HEAD}${idOf(body)}${TAIL}` : other(body);
      out += `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(answer)}\r\n\r\n${answer}`;
    }
    if (out) socket.write(out);
  });
  socket.on("error", () => {});
});
server.listen(port, "127.0.0.1", () => {
  process.stderr.write(`listening on ${server.address().port}\n`);
});
