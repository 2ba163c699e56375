/**
 * HTTP POST for the JSON-RPC client, over node:http/https. A single call opens one connection and exits;
 * runs that make many calls (batch, --range, reserves) use a {@link Transport} with keep-alive agents,
 * so connections are reused across requests.
 *
 * Why not undici, the planned transport: measured here, importing its Pool and compiling its llhttp
 * WebAssembly cost 70-100 ms per process — more than node:http needs for a whole 1,000-request batch
 * (0.21 s with undici pools vs 0.14 s; 10,000 requests 0.44 s vs 0.40 s; a single call 2.0× vs 1.3×
 * `node -e 0`). Retries were never going to live in the transport anyway: they belong to the JSON-RPC
 * layer, which knows the method's marks (an HTTP 500 from bitcoind is an answer, not a failure).
 */
import type { Agent, ClientRequest, IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { describeNetError, type HttpResult, UNSENT_CODES, WireResult } from "./answer.js";
import { HttpFailure } from "./failure.js";
import { Slots } from "./slots.js";
import { type WireExchange, type WireFailure, WirePool } from "./wire.js";

export { describeNetError, type HttpResult, rawHeader, UNSENT_CODES, WireResult } from "./answer.js";
export { HttpFailure } from "./failure.js";

export interface HttpOptions {
  connectTimeoutMs: number;
  /** whole request deadline, headers and body (0 = none): a slow-drip body cannot hold us */
  requestTimeoutMs: number;
  maxBodyBytes: number;
  /** the cap's name in a refusal, in the words of the front end the user reads @default "--max-response" */
  capName?: string;
  /** verify TLS certificates (off only with --insecure) */
  verifyTls: boolean;
  signal?: AbortSignal;
  /**
   * Plain HTTP only: a connection of its own, closed after the answer, instead of a kept-alive one. For
   * large answers (batch arrays) from servers without TCP_NODELAY: bitcoind-family nodes (libevent) write
   * a reply in pieces, Nagle holds the last piece until the previous one is acknowledged, and on a reused
   * connection Linux delays that ACK by 40 ms; a fresh connection acknowledges at once (quick-ack). 10,000
   * getblockheader in arrays of 100 against litecoind: 1,091 ms kept alive, 155-170 ms fresh. Over HTTPS the
   * handshake costs more than the stall, so kept-alive connections stay.
   */
  fresh?: boolean;
  /**
   * The request only reads (CallOptions.read): when a kept-alive connection it was sent on turns out closed
   * before any byte of the answer (ECONNRESET, EPIPE, "socket hang up"), it is sent once more on a new
   * connection. Never set for a method that may change the node's state (sendrawtransaction): it may have
   * arrived after all.
   */
  resendStale?: boolean;
}

/** Errors of a reused connection that the upstream's server closed while it sat idle in the pool. */
const STALE_CODES = new Set(["ECONNRESET", "EPIPE"]);

/** The answer cap as the CLI's user sets it. */
const CLI_CAP = "--max-response";

/** What every JSON-RPC request says of its body and the answer it takes (node's client and serve's own). */
export const JSON_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "application/json",
  accept: "application/json",
};

/**
 * An answer's body gathered whole (at most `maxBytes`, else a failure naming `capName`), as a
 * {@link WireResult}; a reset or an upstream closing mid-answer is a failure that may have done work.
 */
export function readAnswer(
  res: IncomingMessage,
  maxBytes: number,
  capName: string,
  finish: (err: HttpFailure | null, r?: HttpResult) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  res.on("data", (c: Buffer) => {
    size += c.length;
    if (size > maxBytes)
      finish(new HttpFailure(`response exceeds the ${maxBytes}-byte cap (${capName})`, "maybe"));
    else chunks.push(c);
  });
  res.on("end", () =>
    finish(
      null,
      new WireResult(res.statusCode ?? 0, res.rawHeaders, Buffer.concat(chunks, size), () => res.headers),
    ),
  );
  res.on("error", (e) => finish(new HttpFailure(describeNetError(e).msg, "maybe")));
  res.on("aborted", () => finish(new HttpFailure("connection closed by the upstream mid-answer", "maybe")));
}

/** Connections of a many-call run open at once, at most: the pooled agent's cap, and fresh ones' own. */
const MAX_SOCKETS = 64;

/**
 * The connections of one run: whether they are kept alive, the keep-alive agents, and the cap on fresh
 * connections. A client owns one (per-run state in an object the run creates, none at module level).
 */
export class Transport {
  /** kept-alive connections, reused across requests (runs that make many calls) */
  keepAlive: boolean;
  private readonly agents = new Map<string, Agent>();
  /** fresh connections bypass the agent and its cap: a many-call run holds them to the same number */
  private readonly fresh = new Slots(MAX_SOCKETS);

  constructor(opts: { keepAlive?: boolean } = {}) {
    this.keepAlive = opts.keepAlive ?? false;
  }

  /** The keep-alive agent of a protocol (one per protocol and TLS check), made on first use. */
  protected agentFor(protocol: string, verifyTls: boolean): Agent {
    const key = `${protocol}${verifyTls}`;
    let agent = this.agents.get(key);
    if (!agent) {
      const mod = (
        protocol === "https:" ? require("node:https") : require("node:http")
      ) as typeof import("node:https");
      agent = new mod.Agent({
        keepAlive: true,
        maxSockets: MAX_SOCKETS,
        rejectUnauthorized: verifyTls,
      } as never);
      this.agents.set(key, agent);
    }
    return agent;
  }

  /** Closes every kept-alive connection (call when no request of this transport is in flight). */
  close(): void {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }

  async post(
    url: string,
    headers: Record<string, string>,
    body: string,
    opts: HttpOptions,
  ): Promise<HttpResult> {
    try {
      return await this.postOn(url, headers, body, opts, false);
    } catch (e) {
      // a read sent on a kept-alive connection the server had closed idle, refused before any byte of an
      // answer: it never reached the node's application. Once more, on a connection of its own (the pool's
      // other idle connections may be as old) — what careful HTTP clients do for reads; never for writes
      if (!(e instanceof HttpFailure && e.staleReuse && opts.resendStale)) throw e;
      return this.postOn(url, headers, body, opts, true);
    }
  }

  /** One request: on a kept-alive connection of the pool, or (`own`, or no keep-alive) a connection of its own. */
  private async postOn(
    url: string,
    headers: Record<string, string>,
    body: string,
    opts: HttpOptions,
    own: boolean,
  ): Promise<HttpResult> {
    const u = new URL(url);
    const https = u.protocol === "https:";
    // a single call on plain HTTP: its own connection, written and read by wire.ts (node:http's module,
    // request and response objects cost a one-call process ~4 ms of its ~35: bench/startup.mjs)
    if (!this.keepAlive && !https) {
      const pool = WirePool.for(url, { ...JSON_HEADERS, connection: "close", ...headers });
      if (pool) return postOnce(pool, body, opts);
    }
    // required on use: node:https alone costs ~4 ms to load, and plain-http calls never need it
    const mod = (https ? require("node:https") : require("node:http")) as typeof import("node:https");
    const agent: Agent | false =
      this.keepAlive && !own && !(opts.fresh && !https) ? this.agentFor(u.protocol, opts.verifyTls) : false;
    // fresh connections bypass the agent and its cap: a many-call run holds them to the same number
    const limited = this.keepAlive && agent === false;
    const queuedAt = Date.now();
    if (limited)
      await this.fresh.acquire(opts, (ms) => `no connection free within ${ms} ms (${MAX_SOCKETS} open)`);
    // time spent waiting for a connection counts against the request timeout, as in the agent's own queue
    const requestTimeoutMs =
      limited && opts.requestTimeoutMs > 0
        ? Math.max(1, opts.requestTimeoutMs - (Date.now() - queuedAt))
        : opts.requestTimeoutMs;
    // the slot is held until the connection is closed, not just until the answer is in
    let socket: Socket | undefined;
    try {
      return await new Promise<HttpResult>((resolve, reject) => {
        let connected = false;
        /** a socket of the pool, connected already: the bytes it had read when this request got it */
        let readBefore: number | undefined;
        let answered = false;
        let req: ClientRequest | undefined;
        const end = requestEnd(opts, requestTimeoutMs, () => req?.destroy(), resolve, reject);
        const finish = end.finish;
        if (end.settled) return;
        req = mod.request(
          {
            protocol: u.protocol,
            hostname: u.hostname.replace(/^\[|\]$/g, ""),
            port: u.port || (https ? 443 : 80),
            path: u.pathname + u.search,
            method: "POST",
            headers: { ...JSON_HEADERS, "content-length": Buffer.byteLength(body), ...headers },
            rejectUnauthorized: opts.verifyTls,
            agent,
          },
          (res: IncomingMessage) => {
            answered = true;
            takeAnswer(res, opts, finish);
          },
        );
        req.on("socket", (sock) => {
          socket = sock;
          // a kept-alive socket is connected already: a failure on it may follow a delivered request
          if (!sock.connecting && !sock.destroyed) {
            connected = true;
            readBefore = sock.bytesRead;
            return;
          }
          const ev = https ? "secureConnect" : "connect";
          end.timer(opts.connectTimeoutMs, () => {
            if (!connected) finish(new HttpFailure("connect timed out", "unsent"));
          });
          sock.once(ev, () => {
            connected = true;
          });
        });
        req.on("error", (e) => {
          const d = describeNetError(e);
          // closed under a reused connection before a byte of the answer: the server's idle close crossed it
          const stale =
            readBefore !== undefined &&
            STALE_CODES.has(d.code) &&
            socket?.bytesRead === readBefore &&
            !answered;
          finish(stale ? new HttpFailure(d.msg, "maybe", false, true) : failureOf(d.msg, d.code, !connected));
        });
        req.end(body);
      });
    } finally {
      if (limited) {
        // after the answer Node closes a connection of its own (Connection: close) at once
        if (socket && !socket.destroyed) socket.once("close", () => this.fresh.release());
        else this.fresh.release();
      }
    }
  }
}

/** An answer under way: refused at once when its declared length is past the cap, else read whole. */
function takeAnswer(
  res: IncomingMessage,
  opts: HttpOptions,
  finish: (err: HttpFailure | null, r?: HttpResult) => void,
): void {
  const declared = Number(res.headers["content-length"] ?? -1);
  if (declared > opts.maxBodyBytes)
    finish(
      new HttpFailure(
        `response of ${declared} bytes exceeds the ${opts.maxBodyBytes}-byte cap (${opts.capName ?? CLI_CAP})`,
        "maybe",
      ),
    );
  else readAnswer(res, opts.maxBodyBytes, opts.capName ?? CLI_CAP, finish);
}

/**
 * One request on a connection of its own (a one-call process): the raw HTTP/1.1 exchange of wire.ts under
 * the same deadlines, interrupt and failure words as node's client above — refused, DNS, or a connect that
 * timed out is "unsent"; anything after the connection was made "maybe".
 */
function postOnce(pool: WirePool, body: string, opts: HttpOptions): Promise<HttpResult> {
  return new Promise<HttpResult>((resolve, reject) => {
    let x: WireExchange | undefined;
    const end = requestEnd(opts, opts.requestTimeoutMs, () => x?.destroy(), resolve, reject);
    if (end.settled) return;
    x = pool.exchange(
      body,
      opts.maxBodyBytes,
      (f, r) => end.finish(f ? wireFailure(f) : null, r),
      opts.capName ?? CLI_CAP,
    );
    end.timer(opts.connectTimeoutMs, () => {
      if (!x?.connected()) end.finish(new HttpFailure("connect timed out", "unsent"));
    });
  });
}

/**
 * The one rule of both HTTP paths (node's client here, wire.ts's exchanges for a one-call process and for
 * serve's quick path) for whether a request provably never left: its socket never connected, and the error
 * is one that says so (refused, DNS, unreachable, TLS: UNSENT_CODES). Anything else "maybe" did work. A
 * gateway takes an upstream out of the rotation on "unsent" only, so both paths must say it alike.
 */
export function failureOf(message: string, code: string, neverConnected: boolean): HttpFailure {
  return new HttpFailure(message, neverConnected && UNSENT_CODES.has(code) ? "unsent" : "maybe");
}

/** A wire exchange's failure as the one failure type, by the rule of {@link failureOf}. */
export const wireFailure = (f: WireFailure): HttpFailure => failureOf(f.message, f.code, f.unsent);

/** How one request ends, whichever client carries it. */
interface RequestEnd {
  /** the answer or the first failure, once: timers cleared, the interrupt's listener removed */
  finish(err: HttpFailure | null, res?: HttpResult): void;
  /** a timer (ms > 0) cleared when the request ends */
  timer(ms: number, fn: () => void): void;
  /** it ended already (interrupted before it started) */
  readonly settled: boolean;
}

/**
 * The one end of a request for both clients: the interrupt (`signal`) and the whole-request deadline
 * (`requestTimeoutMs`, 0 = none) installed; on a failure the request is destroyed before the promise rejects.
 */
function requestEnd(
  opts: HttpOptions,
  requestTimeoutMs: number,
  destroy: () => void,
  resolve: (r: HttpResult) => void,
  reject: (e: HttpFailure) => void,
): RequestEnd {
  const timers: NodeJS.Timeout[] = [];
  let settled = false;
  const finish = (err: HttpFailure | null, res?: HttpResult) => {
    if (settled) return;
    settled = true;
    for (const t of timers) clearTimeout(t);
    opts.signal?.removeEventListener("abort", onAbort);
    if (err) {
      destroy();
      reject(err);
    } else resolve(res!);
  };
  const onAbort = () => finish(new HttpFailure("interrupted", "maybe"));
  const timer = (ms: number, fn: () => void) => {
    if (ms > 0 && !settled) timers.push(setTimeout(fn, ms));
  };
  if (opts.signal?.aborted) onAbort();
  else {
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    timer(requestTimeoutMs, () =>
      finish(new HttpFailure(`no complete answer within ${opts.requestTimeoutMs} ms`, "maybe", true)),
    );
  }
  return {
    finish,
    timer,
    get settled() {
      return settled;
    },
  };
}

/** Retry-After in ms (seconds or an HTTP date), capped; undefined when absent or unreadable. */
export function retryAfterMs(h: string | string[] | undefined, capMs = 60_000): number | undefined {
  const v = Array.isArray(h) ? h[0] : h;
  if (!v) return undefined;
  const secs = Number(v);
  if (Number.isFinite(secs) && secs >= 0) return Math.min(secs * 1000, capMs);
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : Math.min(Math.max(0, t - Date.now()), capMs);
}
