/**
 * The gateway's own lane for the common request (issue 57, item 6): a connection's requests read off its
 * bytes and answered on its socket, without node's HTTP server — whose IncomingMessage, ServerResponse and
 * their streams were most of what a request cost beyond the gateway's own work (on the upstream side the
 * quick path, rpc/wire.ts, already went without node's client).
 *
 * The lane takes only what it can read without doubt: one whole request in the bytes that arrived, `POST`
 * of HTTP/1.1, a target of plain path characters, header lines of token names and printable values, one
 * Host, one Content-Length within the body cap and the body all there, no Transfer-Encoding, Expect,
 * Upgrade, no Connection but keep-alive, at most one X-API-Key and one Authorization, at most 100 header
 * lines (node reads only its first 2,000 headers). Anything else — a
 * request in pieces, pipelined requests, a large or chunked body, HTTP/1.0, a GET, a byte it does not
 * expect — goes, from that request on, to node's HTTP server (llhttp, its timeouts, its 400s and 413s), at a
 * request boundary: the lane has answered all it took, and the connection's unread bytes are given back to
 * the socket first. So whatever node refuses or reads otherwise never reaches the lane's reading.
 */
import { type Server, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { Answer } from "./envelope.js";
import type { Exchange } from "./http.js";

/** What the lane hands a request to: the gateway's handler, as for node's. */
export type Serve = (ex: Exchange) => void;

/** A request head larger than this goes to node (its own bound is 16 KiB). */
const MAX_HEAD = 8192;
/**
 * A head of more header lines than this goes to node: node keeps only its first 2,000 headers
 * (`maxHeadersCount`) and drops the rest, so a Host or an X-API-Key past them is one node does not see —
 * an 8 KiB head holds 2,000 two-byte lines, and the lane read them all (a 200 where node's server said 400
 * or 401).
 */
const MAX_LINES = 100;
const CRLF2 = Buffer.from("\r\n\r\n");
/** RFC 3986 path and query characters: what llhttp takes in a target without question. */
const TARGET = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/?]*$/;
/** A header line: a token name, a colon, a value of printable ASCII and tabs. */
const HEADER = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[\t ]*([\t\x20-\x7e]*?)[\t ]*$/;

let dateSecond = -1;
let dateText = "";
/** The Date header's value, made once a second (as node's server does). */
function httpDate(): string {
  const s = Math.floor(Date.now() / 1000);
  if (s !== dateSecond) {
    dateSecond = s;
    dateText = new Date(s * 1000).toUTCString();
  }
  return dateText;
}

/** One request the lane took: its head read, its body in hand. */
class LaneExchange implements Exchange {
  readonly method = "POST";
  sent = false;
  constructor(
    private readonly conn: LaneConnection,
    readonly url: string,
    readonly socket: Socket,
    private readonly apiKey: string | undefined,
    private readonly authorization: string | undefined,
    private readonly bytes: Buffer,
  ) {}
  header(name: "authorization" | "x-api-key"): string | undefined {
    return name === "x-api-key" ? this.apiKey : this.authorization;
  }
  body(cap: number, done: (b: Buffer | undefined) => void): void {
    // all of it is here: past the cap it is dropped (nothing left to drain), as readBody drops it
    done(this.bytes.length > cap ? undefined : this.bytes);
  }
  discard(): void {}
  get headersSent(): boolean {
    return this.sent;
  }
  gone(): boolean {
    return this.socket.destroyed || !this.socket.writable;
  }
  send(
    a: Answer | { status: number; body: string | Buffer },
    closing: boolean,
    extra?: Record<string, string>,
  ) {
    if (this.sent) return;
    this.sent = true;
    const len = typeof a.body === "string" ? Buffer.byteLength(a.body) : a.body.length;
    let head = `HTTP/1.1 ${a.status} ${STATUS_CODES[a.status] ?? "unknown"}\r\ncontent-type: application/json\r\ncontent-length: ${len}\r\n`;
    if (extra) for (const [k, v] of Object.entries(extra)) head += `${k}: ${v}\r\n`;
    const ra = (a as Answer).retryAfterS;
    if (ra !== undefined) head += `retry-after: ${ra}\r\n`;
    head += `Date: ${httpDate()}\r\n`;
    head += closing
      ? "Connection: close\r\n\r\n"
      : `Connection: keep-alive\r\nKeep-Alive: timeout=${this.conn.keepAliveS}\r\n\r\n`;
    if (typeof a.body === "string") this.socket.write(head + a.body);
    else {
      this.socket.cork();
      this.socket.write(head, "latin1");
      this.socket.write(a.body);
      this.socket.uncork();
    }
    this.conn.answered(closing);
  }
  destroy(): void {
    this.socket.destroy();
  }
}

/** A connection while the lane has it. */
class LaneConnection {
  private buf: Buffer | undefined;
  busy = false;
  idleSince = Date.now();
  private handedOff = false;
  constructor(
    private readonly lane: Lane,
    readonly socket: Socket,
    readonly keepAliveS: number,
  ) {
    socket.on("data", this.onData);
    socket.on("error", ignore);
    socket.once("close", () => lane.conns.delete(this));
  }

  private readonly onData = (chunk: Buffer): void => {
    this.buf = this.buf ? Buffer.concat([this.buf, chunk]) : chunk;
    // bytes that come while a request is answered (a pipelining client) wait for its answer; a lot of them
    // stop the reading until then
    if (this.busy) {
      if (this.buf.length > 65_536) this.socket.pause();
      return;
    }
    this.next();
  };

  /** A request's answer is out: the next one read (or the connection closed, when the gateway stops). */
  answered(closing: boolean): void {
    this.busy = false;
    this.idleSince = Date.now();
    if (closing) {
      this.socket.end();
      return;
    }
    if (this.buf) {
      this.socket.resume();
      this.next();
    }
  }

  private next(): void {
    const buf = this.buf as Buffer;
    const ex = this.read(buf);
    if (!ex) {
      this.handOff();
      return;
    }
    this.buf = undefined;
    this.busy = true;
    this.lane.serve(ex);
  }

  /** The buffered bytes as exactly one whole request of the lane's grammar; else undefined. */
  private read(buf: Buffer): LaneExchange | undefined {
    // "POST " — the space too: "POSTX/" or "POST\t/" is a method node refuses (400), not a POST
    if (
      buf.length < 16 ||
      buf[0] !== 0x50 ||
      buf[1] !== 0x4f ||
      buf[2] !== 0x53 ||
      buf[3] !== 0x54 ||
      buf[4] !== 0x20
    )
      return;
    const end = buf.indexOf(CRLF2);
    if (end < 0 || end > MAX_HEAD) return;
    const lines = buf.toString("latin1", 0, end).split("\r\n");
    if (lines.length > MAX_LINES + 1) return;
    const first = lines[0] as string;
    if (!first.endsWith(" HTTP/1.1")) return;
    const url = first.slice(5, -9);
    if (!TARGET.test(url)) return;
    let length: number | undefined;
    let host = 0;
    let apiKey: string | undefined;
    let authorization: string | undefined;
    for (let i = 1; i < lines.length; i++) {
      const m = HEADER.exec(lines[i] as string);
      if (!m) return;
      const name = (m[1] as string).toLowerCase();
      const value = m[2] as string;
      switch (name) {
        case "content-length":
          if (length !== undefined || !/^[0-9]{1,10}$/.test(value)) return;
          length = Number(value);
          break;
        case "host":
          host++;
          break;
        case "x-api-key":
          if (apiKey !== undefined) return;
          apiKey = value;
          break;
        case "authorization":
          if (authorization !== undefined) return;
          authorization = value;
          break;
        case "connection":
          if (value.toLowerCase() !== "keep-alive") return;
          break;
        case "transfer-encoding":
        case "expect":
        case "upgrade":
        case "proxy-connection":
        case "keep-alive":
          return;
      }
    }
    // the whole body here and nothing after it (pipelined requests go to node, which answers them in order)
    if (length === undefined || host !== 1 || length > this.lane.maxBody()) return;
    if (buf.length !== end + 4 + length) return;
    return new LaneExchange(this, url, this.socket, apiKey, authorization, buf.subarray(end + 4));
  }

  /** The rest of the connection to node's HTTP server, from the bytes not yet read (a request boundary). */
  private handOff(): void {
    if (this.handedOff) return;
    this.handedOff = true;
    this.lane.conns.delete(this);
    const s = this.socket;
    s.removeListener("data", this.onData);
    s.removeListener("error", ignore);
    const rest = this.buf;
    this.buf = undefined;
    if (rest) s.unshift(rest);
    s.resume();
    this.lane.http.emit("connection", s);
  }

  /** Closed when idle past the keep-alive time, or at once when the gateway stops. */
  closeIfIdle(before: number): void {
    if (!this.busy && this.idleSince <= before) this.socket.destroy();
  }
}

const ignore = () => {};

/**
 * The lane of one listening address: each new connection starts on it; node's server (`http`, never
 * listening itself) gets those handed off.
 */
export class Lane {
  readonly conns = new Set<LaneConnection>();
  private sweeper?: NodeJS.Timeout;
  constructor(
    readonly http: Server,
    readonly serve: Serve,
    /** the body cap in force (a reload may change it) */
    readonly maxBody: () => number,
    private readonly keepAliveMs: number,
  ) {}

  /** A new connection (the listening net.Server's `connection`). */
  connection = (socket: Socket): void => {
    socket.setNoDelay(true);
    this.conns.add(new LaneConnection(this, socket, Math.round(this.keepAliveMs / 1000)));
    this.sweeper ??= setInterval(() => this.closeIdle(Date.now() - this.keepAliveMs), 1000).unref();
  };

  /** Idle connections closed: those idle since `before` (every second), or all of them (`Infinity`). */
  closeIdle(before = Number.POSITIVE_INFINITY): void {
    for (const c of this.conns) c.closeIfIdle(before);
  }

  stop(): void {
    clearInterval(this.sweeper);
    this.closeIdle();
  }
}
