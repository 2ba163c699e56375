/**
 * The upstream leg of `serve`'s quick path as plain HTTP/1.1 on kept-alive sockets: one write per request,
 * the answer framed by Content-Length, chunked transfer coding or the connection's end. Node's
 * `http.request` costs a bare proxy about a third of its CPU per request (its request and response objects,
 * the agent, the parser's events: measured, bench/serve.mjs's notes in docs/serve.md); this is the part of
 * HTTP an idempotent read's first attempt needs, and nothing else. Anything it does not take — a status
 * line or header it cannot read, a 1xx, bytes after the answer — fails the attempt ("maybe"), and the call
 * moves on as after any failure (the failover client, node's HTTP). Plain HTTP only; TLS upstreams and every
 * other attempt use node's client.
 */
import { connect, type Socket } from "node:net";
import { describeNetError, WireResult } from "./answer.js";

/** A failed exchange: what happened, the socket error's code, and whether the request provably never left. */
export interface WireFailure {
  message: string;
  code: string;
  /** no byte of the request can have reached the node: the connection was never made */
  unsent: boolean;
  /** a kept-alive connection ended before any byte of the answer (the node closed it as it went idle) */
  stale?: boolean;
}

/**
 * A header block's lines (after the status line, each ending in CRLF) as a raw list — lower-case name,
 * trimmed value, … — or undefined when a line is not a header.
 */
function headerFields(head: string, from: number): string[] | undefined {
  const out: string[] = [];
  let at = from;
  while (at < head.length) {
    const end = head.indexOf("\r\n", at);
    if (end < 0) return undefined;
    const colon = head.indexOf(":", at);
    if (colon <= at || colon > end) return undefined;
    out.push(head.slice(at, colon).toLowerCase(), head.slice(colon + 1, end).trim());
    at = end + 2;
  }
  return out;
}

/** The answer cap in the gateway's words (its users set no --max-response): serve's both paths name it so. */
export const GATEWAY_CAP = "the gateway's answer cap";

const CRLF2 = Buffer.from("\r\n\r\n");
const STATUS = /^HTTP\/1\.([01]) ([1-9][0-9]{2})(?: [^\r\n]*)?\r\n/;
/** RFC 9110's token characters beside letters and digits: what a header's name may hold */
const TCHAR = "!#$%&'*+-.^_`|~";
/**
 * A header written as it is: a name of token characters, a value without CR, LF or NUL (string operations:
 * a one-call process checks its few headers once, and a regular expression's first run is compiled then).
 */
function writable(name: string, value: string): boolean {
  if (name.length === 0) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const alnum = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (!alnum && !TCHAR.includes(name[i] as string)) return false;
  }
  return !value.includes("\r") && !value.includes("\n") && !value.includes("\0");
}

/** One exchange under way on a connection. */
interface Pending {
  done: (f: WireFailure | null, r?: WireResult) => void;
  maxBytes: number;
  /** what the cap is called in a failure: the gateway's, or the CLI's flag */
  capName: string;
}

/** A kept-alive connection to the upstream and the state of the answer it is reading. */
class Conn {
  readonly socket: Socket;
  /** it answered before: a failure now may follow a delivered request */
  reused = false;
  /** a byte of the answer to the request in flight arrived (an interim 1xx counts) */
  private heard = false;
  connected = false;
  pending?: Pending;
  // the answer being read
  private head?: Buffer;
  private status = 0;
  private fields: string[] = [];
  private framing: "length" | "chunked" | "close" = "length";
  private remaining = 0;
  private keep = true;
  private parts: Buffer[] = [];
  private size = 0;
  /** chunked: bytes of a chunk-size line or of a CRLF not read whole yet */
  private carry?: Buffer;
  private chunkLeft = 0;
  private trailer = false;

  constructor(
    readonly pool: WirePool,
    host: string,
    port: number,
  ) {
    const s = connect({ host, port, noDelay: true });
    this.socket = s;
    s.on("connect", () => {
      this.connected = true;
    });
    s.on("data", (d: Buffer) => this.data(d));
    s.on("error", (e: NodeJS.ErrnoException) => this.gone(e.message, e.code ?? "", false));
    // only the node's own end completes an answer framed by it; a reset or a close without it cuts it short
    s.on("end", () => this.gone("connection closed by the upstream", "ECONNRESET", true));
    s.on("close", () => this.gone("connection closed by the upstream", "ECONNRESET", false));
  }

  send(text: string, p: Pending): void {
    this.pending = p;
    this.heard = false;
    this.status = 0;
    this.head = undefined;
    this.socket.write(text);
  }

  destroy(): void {
    this.pool.drop(this);
    this.socket.destroy();
  }

  /** The connection ended or failed: the exchange on it (if any) fails; it is never used again. */
  private gone(message: string, code: string, ended: boolean): void {
    this.pool.drop(this);
    if (!this.socket.destroyed) this.socket.destroy();
    // an answer framed by the connection's end is whole now
    if (ended && this.pending && this.status && this.framing === "close" && this.head === undefined) {
      this.keep = false;
      this.answered();
      return;
    }
    const p = this.pending;
    this.pending = undefined;
    p?.done({
      message: describeNetError({ message, code }).msg,
      code,
      unsent: !this.connected && !this.reused,
      stale: this.reused && !this.heard,
    });
  }

  private fail(message: string): void {
    const p = this.pending;
    this.pending = undefined;
    this.destroy();
    p?.done({ message, code: "", unsent: false });
  }

  private data(d: Buffer): void {
    if (!this.pending) {
      this.fail("bytes from the upstream with no request in flight");
      return;
    }
    this.heard = true;
    if (!this.status) {
      // the header block: gathered until its blank line (small; the body is not copied with it)
      const buf = this.head ? Buffer.concat([this.head, d]) : d;
      const end = buf.indexOf(CRLF2);
      if (end < 0) {
        if (buf.length > 64 * 1024) {
          this.fail("an answer header over 64 KB");
          return;
        }
        this.head = buf;
        return;
      }
      this.head = undefined;
      const head = buf.toString("latin1", 0, end + 2);
      // an interim answer (100 Continue, 103 Early Hints) is read past, as node's client does
      if (/^HTTP\/1\.[01] 1(?!01)[0-9]{2}[ \r]/.test(head)) {
        const rest = buf.subarray(end + 4);
        if (rest.length > 0) this.data(rest);
        return;
      }
      if (!this.readHead(head)) return;
      d = buf.subarray(end + 4);
      this.parts = [];
      this.size = 0;
      this.carry = undefined;
      this.chunkLeft = 0;
      this.trailer = false;
    }
    if (this.framing === "length") {
      if (d.length > this.remaining) {
        this.fail("bytes after the answer's Content-Length");
        return;
      }
      this.take(d);
      this.remaining -= d.length;
      if (this.remaining === 0) this.answered();
    } else if (this.framing === "chunked") this.chunked(d);
    else this.take(d);
  }

  /** The status line and headers read: framing and whether the connection may carry another request. */
  private readHead(text: string): boolean {
    const m = STATUS.exec(text);
    if (!m) {
      this.fail("an answer that is not HTTP/1.x");
      return false;
    }
    const status = Number(m[2]);
    if (status < 200) {
      this.fail(`HTTP ${status} where an answer was expected`);
      return false;
    }
    const fields = headerFields(text, m[0].length);
    if (!fields) {
      this.fail("an answer header that cannot be read");
      return false;
    }
    this.status = status;
    this.fields = fields;
    let length: number | undefined;
    let chunked = false;
    let close = m[1] === "0";
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const name = fields[i] as string;
      const value = fields[i + 1] as string;
      if (name === "content-length") {
        if (!/^[0-9]{1,15}$/.test(value) || (length !== undefined && length !== Number(value))) {
          this.fail("an answer with an unreadable Content-Length");
          return false;
        }
        length = Number(value);
      } else if (name === "transfer-encoding") chunked = /(^|,)\s*chunked\s*$/i.test(value);
      else if (name === "connection") {
        const v = value.toLowerCase();
        if (v.includes("close")) close = true;
        else if (m[1] === "0" && v.includes("keep-alive")) close = false;
      }
    }
    this.keep = !close;
    if (status === 204 || status === 304) {
      // no body, whatever the headers say
      this.framing = "length";
      this.remaining = 0;
    } else if (chunked) this.framing = "chunked";
    else if (length !== undefined) {
      if (length > (this.pending as Pending).maxBytes) {
        this.overCap(length);
        return false;
      }
      this.framing = "length";
      this.remaining = length;
    } else {
      this.framing = "close";
      this.keep = false;
    }
    return true;
  }

  private take(d: Buffer): void {
    if (d.length === 0) return;
    this.size += d.length;
    if (this.size > (this.pending as Pending).maxBytes) this.overCap();
    else this.parts.push(d);
  }

  /** Chunked transfer coding: chunk-size lines, payloads and their CRLFs, then the trailer to its blank line. */
  private chunked(input: Buffer): void {
    let d = this.carry ? Buffer.concat([this.carry, input]) : input;
    this.carry = undefined;
    while (this.pending) {
      if (this.chunkLeft > 0) {
        const n = Math.min(this.chunkLeft, d.length);
        this.take(d.subarray(0, n));
        this.chunkLeft -= n;
        d = d.subarray(n);
        if (this.chunkLeft > 0) return;
        // the payload's CRLF
        this.chunkLeft = -2;
      }
      if (this.chunkLeft === -2) {
        if (d.length < 2) {
          this.carry = d;
          return;
        }
        if (d[0] !== 13 || d[1] !== 10) {
          this.fail("a chunk not followed by CRLF");
          return;
        }
        d = d.subarray(2);
        this.chunkLeft = 0;
      }
      const eol = d.indexOf("\r\n");
      if (eol < 0) {
        if (d.length > 4096) {
          this.fail("a chunk-size line over 4 KB");
          return;
        }
        this.carry = d;
        return;
      }
      const line = d.toString("latin1", 0, eol);
      d = d.subarray(eol + 2);
      if (this.trailer) {
        // the trailer's fields are read past; its blank line ends the answer
        if (line === "") {
          if (d.length > 0) {
            this.fail("bytes after the chunked answer");
            return;
          }
          this.answered();
          return;
        }
        continue;
      }
      const size = /^([0-9a-fA-F]{1,8})[ \t]*(;.*)?$/.exec(line);
      if (!size) {
        this.fail("an unreadable chunk size");
        return;
      }
      this.chunkLeft = Number.parseInt(size[1] as string, 16);
      if (this.chunkLeft === 0) this.trailer = true;
    }
  }

  private overCap(declared?: number): void {
    const p = this.pending as Pending;
    this.fail(
      `response ${declared === undefined ? "" : `of ${declared} bytes `}exceeds the ${p.maxBytes}-byte cap (${p.capName})`,
    );
  }

  /** The answer is whole: to its exchange, and the connection back to the pool if it may carry another. */
  private answered(): void {
    const p = this.pending;
    // failed on its way (over the cap): said already
    if (!p) return;
    this.pending = undefined;
    const body = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts, this.size);
    const answer = new WireResult(this.status, this.fields, body);
    this.parts = [];
    this.status = 0;
    // reused only when the request went out whole too (a node may answer before it read all of it)
    if (this.keep && !this.socket.destroyed && this.socket.writableLength === 0) {
      this.reused = true;
      this.pool.release(this);
    } else this.destroy();
    p.done(null, answer);
  }
}

/** One exchange in flight, as the deadline sweep sees it. */
export interface WireExchange {
  /** the connection is up (kept alive, or a fresh one past its connect) */
  connected(): boolean;
  /** ends it: the connection is closed and never reused */
  destroy(): void;
}

/**
 * One request on the pool's connections. A kept-alive connection that ends before any byte of the answer
 * (the node closed it as it went idle, as litecoind does after -rpcservertimeout) is the connection's
 * failure, not the node's answer: the request is sent once more on a fresh one (the quick path carries only
 * idempotent reads).
 */
class Exchange implements WireExchange {
  private conn: Conn;
  private retried = false;
  private abandoned = false;
  constructor(
    private readonly pool: WirePool,
    private readonly text: string,
    private readonly maxBytes: number,
    private readonly capName: string,
    private readonly done: (f: WireFailure | null, r?: WireResult) => void,
  ) {
    this.conn = this.send(false);
  }
  private send(fresh: boolean): Conn {
    const c = this.pool.take(fresh);
    c.send(this.text, { maxBytes: this.maxBytes, capName: this.capName, done: (f, r) => this.settle(f, r) });
    return c;
  }
  private settle(f: WireFailure | null, r?: WireResult): void {
    if (f?.stale && !this.retried && !this.abandoned) {
      this.retried = true;
      this.conn = this.send(true);
      return;
    }
    // after a retry the first connection may have delivered the request: never "unsent"
    this.done(f && this.retried ? { ...f, unsent: false } : f, r);
  }
  /** up: a kept-alive connection, a fresh one past its connect, or a retry (its first try was connected) */
  connected(): boolean {
    return this.retried || this.conn.reused || this.conn.connected;
  }
  destroy(): void {
    this.abandoned = true;
    this.conn.destroy();
  }
}

/**
 * The kept-alive connections to one upstream. Its callers hold a concurrency slot per exchange, so the
 * pool holds at most that many connections.
 */
export class WirePool {
  private readonly free: Conn[] = [];
  private readonly open = new Set<Conn>();
  private closed = false;
  /** the request line and fixed headers, up to Content-Length's value */
  private readonly prefix: string;

  private constructor(
    private readonly host: string,
    private readonly port: number,
    target: string,
    hostHeader: string,
    headers: Record<string, string>,
  ) {
    let p = `POST ${target} HTTP/1.1\r\nHost: ${hostHeader}\r\n`;
    for (const [k, v] of Object.entries(headers)) p += `${k}: ${v}\r\n`;
    this.prefix = `${p}Content-Length: `;
  }

  /** A pool for a plain-HTTP URL, or undefined when the URL or a header cannot be written as they are. */
  static for(url: string, headers: Record<string, string>): WirePool | undefined {
    const u = new URL(url);
    // credentials travel in `headers` (the endpoint's Authorization), never from the URL
    if (u.protocol !== "http:") return undefined;
    for (const [k, v] of Object.entries(headers)) if (!writable(k, v)) return undefined;
    // an IPv6 literal's brackets off (a parsed URL's hostname has both or neither)
    const h = u.hostname;
    const host = h.startsWith("[") ? h.slice(1, -1) : h;
    const port = Number(u.port || 80);
    return new WirePool(host, port, u.pathname + u.search, u.host, headers);
  }

  /** Sends `body` (JSON text) on a free connection or a new one; `done` gets the answer or the failure, once. */
  exchange(
    body: string,
    maxBytes: number,
    done: (f: WireFailure | null, r?: WireResult) => void,
    capName = GATEWAY_CAP,
  ): WireExchange {
    return new Exchange(
      this,
      `${this.prefix}${Buffer.byteLength(body)}\r\n\r\n${body}`,
      maxBytes,
      capName,
      done,
    );
  }

  /** A free connection, or a new one. */
  take(fresh: boolean): Conn {
    const free = fresh ? undefined : this.free.pop();
    if (free) return free;
    const c = new Conn(this, this.host, this.port);
    this.open.add(c);
    return c;
  }

  release(c: Conn): void {
    if (this.closed) c.destroy();
    else this.free.push(c);
  }

  drop(c: Conn): void {
    this.open.delete(c);
    const i = this.free.indexOf(c);
    if (i >= 0) this.free.splice(i, 1);
  }

  /** Closes the free connections now and each busy one as its answer ends (a reload's old pool). */
  close(): void {
    this.closed = true;
    for (const c of [...this.free]) c.destroy();
  }

  /** connections open now (tests) */
  get size(): number {
    return this.open.size;
  }
}
