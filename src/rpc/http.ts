/**
 * HTTP POST over undici pools, one pool per upstream origin (keep-alive across the calls of one run).
 * No retries here: undici's RetryHandler skips POST and would retry HTTP 500, which bitcoind uses for
 * ordinary error answers. Retry and failover live in the JSON-RPC client, which knows the method's marks.
 */
import request from "undici/lib/api/api-request.js";
import Pool from "undici/lib/dispatcher/pool.js";

export interface HttpOptions {
  connectTimeoutMs: number;
  /** whole request deadline, headers and body (0 = none): a slow-drip body cannot hold us */
  requestTimeoutMs: number;
  maxBodyBytes: number;
  /** verify TLS certificates (off only with --insecure) */
  verifyTls: boolean;
  signal?: AbortSignal;
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * Where a transport failure happened. `unsent`: the request provably never reached the upstream
 * (refused, DNS, TLS handshake, connect timeout); `maybe`: it may have been received.
 */
export class HttpFailure extends Error {
  constructor(
    message: string,
    readonly phase: "unsent" | "maybe",
    readonly timedOut = false,
  ) {
    super(message);
  }
}

const pools = new Map<string, Pool>();

function poolFor(origin: string, opts: HttpOptions): Pool {
  const key = `${origin}|${opts.connectTimeoutMs}|${opts.verifyTls}`;
  let p = pools.get(key);
  if (!p) {
    p = new Pool(origin, {
      connections: 16,
      pipelining: 1,
      keepAliveTimeout: 10_000,
      connect: { timeout: opts.connectTimeoutMs, rejectUnauthorized: opts.verifyTls },
      // the whole-request deadline below is the real bound; these only stop undici's own 300 s defaults
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    pools.set(key, p);
  }
  return p;
}

export async function closePools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.allSettled(all.map((p) => p.destroy()));
}

const UNSENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
  "EPROTO",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "CERT_HAS_EXPIRED",
  "ERR_SSL_WRONG_VERSION_NUMBER",
]);

function describe(err: any): { msg: string; code: string } {
  const code: string = err?.code ?? err?.cause?.code ?? "";
  const friendly: Record<string, string> = {
    ECONNREFUSED: "connection refused",
    ENOTFOUND: "host not found (DNS)",
    EAI_AGAIN: "DNS lookup failed",
    UND_ERR_CONNECT_TIMEOUT: "connect timed out",
    ECONNRESET: "connection reset by the upstream",
    UND_ERR_SOCKET: "connection closed by the upstream before the answer",
    EHOSTUNREACH: "host unreachable",
    ENETUNREACH: "network unreachable",
  };
  if (friendly[code]) return { msg: friendly[code], code };
  if (/CERT|TLS|SSL/.test(code)) return { msg: `TLS handshake failed (${code})`, code };
  return { msg: String(err?.message ?? err).split("\n")[0] + (code ? ` (${code})` : ""), code };
}

export async function post(
  url: string,
  headers: Record<string, string>,
  body: string,
  opts: HttpOptions,
): Promise<HttpResult> {
  const u = new URL(url);
  const pool = poolFor(u.origin, opts);
  const ac = new AbortController();
  let timedOut = false;
  const timer =
    opts.requestTimeoutMs > 0
      ? setTimeout(() => {
          timedOut = true;
          ac.abort();
        }, opts.requestTimeoutMs)
      : undefined;
  const onOuterAbort = () => ac.abort();
  opts.signal?.addEventListener("abort", onOuterAbort, { once: true });
  let connected = false;
  try {
    const res = await request.call(pool, {
      method: "POST",
      path: u.pathname + u.search,
      headers: { "content-type": "application/json", accept: "application/json", ...headers },
      body,
      signal: ac.signal,
    });
    connected = true;
    const chunks: Buffer[] = [];
    let size = 0;
    const declared = Number(res.headers["content-length"] ?? -1);
    if (declared > opts.maxBodyBytes) {
      res.body.destroy();
      throw new HttpFailure(
        `response of ${declared} bytes exceeds the ${opts.maxBodyBytes}-byte cap (--max-response)`,
        "maybe",
      );
    }
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > opts.maxBodyBytes) {
        res.body.destroy();
        throw new HttpFailure(`response exceeds the ${opts.maxBodyBytes}-byte cap (--max-response)`, "maybe");
      }
      chunks.push(chunk as Buffer);
    }
    return { status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") };
  } catch (err: any) {
    if (err instanceof HttpFailure) throw err;
    if (timedOut) {
      throw new HttpFailure(`no complete answer within ${opts.requestTimeoutMs} ms`, "maybe", true);
    }
    if (opts.signal?.aborted) throw new HttpFailure("interrupted", "maybe");
    const d = describe(err);
    const unsent = !connected && UNSENT_CODES.has(d.code);
    throw new HttpFailure(d.msg, unsent ? "unsent" : "maybe");
  } finally {
    if (timer) clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onOuterAbort);
  }
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
