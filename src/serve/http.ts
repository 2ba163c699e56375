/**
 * The HTTP side of `chaingw serve`: an answer written with its headers, a body read within the cap, one
 * abort signal per client connection, the path as the access log may show it, the listen address checked
 * before anything starts.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo, Server, Socket } from "node:net";
import { UsageError } from "../errors/index.js";
import type { Answer } from "./envelope.js";

/**
 * One request as the gateway's handler reads and answers it: node's IncomingMessage and ServerResponse
 * (`NodeExchange`), or a request the lane read off the connection's bytes itself (lane.ts).
 */
export interface Exchange {
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly socket: Socket;
  /** the header's value when given once (node joins a repeated X-API-Key; the lane hands those to node) */
  header(name: "authorization" | "x-api-key"): string | undefined;
  /** the body within `cap`, as `readBody` gives it */
  body(cap: number, done: (body: Buffer | undefined) => void, failed: (e: Error) => void): void;
  /** the body, if any, read and dropped */
  discard(): void;
  /** the answer written whole (`sendAnswer`) */
  send(
    a: Answer | { status: number; body: string | Buffer },
    closing: boolean,
    extra?: Record<string, string>,
  ): void;
  readonly headersSent: boolean;
  /** the client went away: its answer cannot reach it */
  gone(): boolean;
  destroy(): void;
}

/** A request node's HTTP server read. */
export class NodeExchange implements Exchange {
  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
  ) {}
  get method(): string | undefined {
    return this.req.method;
  }
  get url(): string | undefined {
    return this.req.url;
  }
  get socket(): Socket {
    return this.req.socket;
  }
  header(name: "authorization" | "x-api-key"): string | undefined {
    const v = this.req.headers[name];
    return typeof v === "string" ? v : undefined;
  }
  body(cap: number, done: (body: Buffer | undefined) => void, failed: (e: Error) => void): void {
    readBody(this.req, cap, done, failed);
  }
  discard(): void {
    this.req.resume();
  }
  send(
    a: Answer | { status: number; body: string | Buffer },
    closing: boolean,
    extra?: Record<string, string>,
  ): void {
    sendAnswer(this.res, a, closing, extra);
  }
  get headersSent(): boolean {
    return this.res.headersSent;
  }
  gone(): boolean {
    return this.req.socket.destroyed;
  }
  destroy(): void {
    this.res.destroy();
  }
}

/** An answer written whole: JSON, its length, Retry-After when limited; `closing`: tell the client to go. */
export function sendAnswer(
  res: ServerResponse,
  a: Answer | { status: number; body: string | Buffer },
  closing: boolean,
  extra?: Record<string, string>,
): void {
  const headers: Record<string, string | number> = {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(a.body),
  };
  if (extra) Object.assign(headers, extra);
  const ra = (a as Answer).retryAfterS;
  if (ra !== undefined) headers["retry-after"] = String(ra);
  // while draining, tell kept-alive clients to go elsewhere next time
  if (closing) headers.connection = "close";
  res.writeHead(a.status, headers);
  res.end(a.body);
}

/**
 * How much of a body over the cap is still read (and thrown away) after the 413 was sent, before the
 * connection is cut: a client that writes its whole body before it reads (Python's http.client, so
 * python-bitcoinlib) reads the 413 only if the body was taken — cutting the connection at once left it a
 * BrokenPipeError. nginx does the same (its lingering close).
 */
export const DRAIN_BYTES = 16 * 1024 * 1024;

/**
 * The body to `done`, or undefined when it passes the cap (the rest is then read and dropped, up to
 * DRAIN_BYTES in all, so the client can read the answer; past that the connection is cut); a failure of
 * the request's stream — the client hung up mid-body — as `failed`. Callbacks, not a promise: this is every
 * request's path.
 */
export function readBody(
  req: IncomingMessage,
  cap: number,
  done: (body: Buffer | undefined) => void,
  failed: (e: Error) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  // once: past the cap, at the end, or on an error (whichever comes first)
  let over = false;
  req.on("data", (c: Buffer) => {
    size += c.length;
    if (over) {
      if (size > DRAIN_BYTES) req.socket.destroy();
      return;
    }
    if (size > cap) {
      over = true;
      done(undefined);
    } else chunks.push(c);
  });
  req.on("end", () => {
    if (over) return;
    over = true;
    done(Buffer.concat(chunks, size));
  });
  req.on("error", (e) => {
    if (over) return;
    over = true;
    failed(e);
  });
  // a declared length over the cap is refused before its first byte (the rest drained as above)
  if (Number(req.headers["content-length"] ?? -1) > cap) {
    over = true;
    done(undefined);
  }
}

const signals = new WeakMap<Socket, AbortSignal>();
/** Aborted when the client's connection closes (it hung up, or the answer was its last). */
export function connectionSignal(socket: Socket): AbortSignal {
  let signal = signals.get(socket);
  if (!signal) {
    const ac = new AbortController();
    socket.once("close", () => ac.abort());
    signal = ac.signal;
    signals.set(socket, signal);
  }
  return signal;
}

/** HTTP Basic auth's user and password, when the header carries them. */
export function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  if (!header || !/^basic /i.test(header)) return undefined;
  const text = Buffer.from(header.slice(6).trim(), "base64").toString("utf8");
  const i = text.indexOf(":");
  return i < 0 ? undefined : { user: text.slice(0, i), password: text.slice(i + 1) };
}

/** A request's path without its query. */
export function pathOnly(url: string | undefined): string {
  const u = url ?? "/";
  const q = u.indexOf("?");
  return q < 0 ? u : u.slice(0, q);
}

/** `/v1/<product>` and no further ("/…" marks that more was there); other paths by their first segment. */
export function loggedPath(path: string): string {
  const m = /^(\/v1\/[^/]*)(\/.*)?$/.exec(path);
  if (m) return `${m[1]}${m[2] && m[2] !== "/" ? "/…" : ""}`;
  const first = /^\/[^/]{0,32}/.exec(path)?.[0] ?? "/";
  return first.length < path.length ? `${first}…` : first;
}

/** What a request's path says: the product it names (undefined: not /v1/{product_id}), the path as logged. */
export interface PathInfo {
  product?: string;
  logged: string;
}
const paths = new Map<string, PathInfo>();
/** A request's path read once per distinct product path (every request of a product has the same one). */
export function pathInfo(path: string): PathInfo {
  let info = paths.get(path);
  if (info) return info;
  const m = /^\/v1\/([^/]+)\/?$/.exec(path);
  let product: string | undefined;
  try {
    product = m ? decodeURIComponent(m[1] as string) : undefined;
  } catch {}
  info = { product, logged: loggedPath(path) };
  // only a product's own path is kept, and a bounded number of them: a longer one may carry what a client
  // should not have put there (a key), and is read each time
  if (m && paths.size < 1024) paths.set(path, info);
  return info;
}

/** A listen failure as bad usage naming the address (exit 2). */
export function listenError(host: string, port: number, e: unknown): UsageError {
  const code = (e as NodeJS.ErrnoException).code;
  const why =
    code === "EADDRINUSE"
      ? "the address is in use (another process listens there)"
      : code === "EACCES"
        ? "not allowed (ports below 1024 need privileges)"
        : code === "EADDRNOTAVAIL"
          ? "no interface of this machine has that address"
          : (e as Error).message;
  return new UsageError(`--listen ${host}:${port}: ${why}; nothing was started`);
}

/** A server listening on host:port (a failure: bad usage naming the address); its URL. */
export async function bind(server: Server, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", (e) => reject(listenError(host, port, e)));
    server.listen(port, host, () => resolve());
  });
  const a = server.address() as AddressInfo;
  return `http://${a.family === "IPv6" ? `[${a.address}]` : a.address}:${a.port}`;
}

/** Binds and releases the address once, so a busy port is refused before anything starts. */
export async function probeListen(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const { createServer: tcp } = await import("node:net");
  const s = tcp();
  await new Promise<void>((resolve, reject) => {
    s.once("error", (e) => reject(listenError(host, port, e)));
    s.listen(port, host, () => resolve());
  });
  await new Promise<void>((r) => s.close(() => r()));
}

let isoMs = -1;
let isoText = "";
let isoSecond = -1;
let isoHead = "";
/**
 * The time as ISO 8601, made once per millisecond (a busy gateway logs several requests in each), its
 * date and time to the second once per second.
 */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== isoMs) {
    isoMs = ms;
    const second = Math.floor(ms / 1000);
    if (second !== isoSecond) {
      isoSecond = second;
      // "2026-11-25T13:25:15."
      isoHead = new Date(second * 1000).toISOString().slice(0, 20);
    }
    const r = ms - second * 1000;
    isoText = `${isoHead}${r < 10 ? "00" : r < 100 ? "0" : ""}${r}Z`;
  }
  return isoText;
}

/** The names a log line repeats (paths, products, key ids, methods, outcomes, upstreams), quoted once each. */
const quoted = new Map<string, string>();
const q = (v: string): string => {
  let t = quoted.get(v);
  if (t === undefined) {
    t = JSON.stringify(v);
    // bounded: the names come from the config and the registry ("other" for the rest), a path is cut at
    // the product; past the bound, quoted each time
    if (quoted.size < 4096) quoted.set(v, t);
  }
  return t;
};

/**
 * One access-log line, filled in as the request goes (fixed fields, no object per request) and written
 * as one JSON object: ts, path (up to the product), worker, product, key_id, method, status, outcome,
 * upstream, ms — the fields not known (a request refused before its product) left out.
 */
export class AccessLine {
  product?: string;
  key_id?: string;
  method?: string;
  status = 0;
  outcome?: string;
  upstream?: string;
  ms = 0;
  private readonly ts = isoNow();

  constructor(
    /** up to the product; `/v1/…` when the product is none served (a key pasted there is not logged) */
    public path: string,
    readonly worker: number | undefined,
  ) {}

  text(): string {
    let s = `{"ts":"${this.ts}","path":${q(this.path)}`;
    if (this.worker !== undefined) s += `,"worker":${this.worker}`;
    if (this.product !== undefined) s += `,"product":${q(this.product)}`;
    if (this.key_id !== undefined) s += `,"key_id":${q(this.key_id)}`;
    if (this.method !== undefined) s += `,"method":${q(this.method)}`;
    s += `,"status":${this.status}`;
    if (this.outcome !== undefined) s += `,"outcome":${q(this.outcome)}`;
    if (this.upstream !== undefined) s += `,"upstream":${q(this.upstream)}`;
    return `${s},"ms":${this.ms}}`;
  }
}
