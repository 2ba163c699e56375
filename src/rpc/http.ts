/**
 * HTTP POST for the JSON-RPC client. A single call goes over node:http (no extra start-up); runs that make
 * many calls switch to undici pools (http-pool.ts) with {@link usePooledTransport}. Both give the same
 * results and the same failure classification, so the client's retry rules do not care which ran.
 */
import type { ClientRequest, IncomingMessage } from "node:http";

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

export const UNSENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
  "CONNECT_TIMEOUT",
  "EPROTO",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "CERT_HAS_EXPIRED",
  "ERR_SSL_WRONG_VERSION_NUMBER",
]);

export function describeNetError(err: any): { msg: string; code: string } {
  const code: string = err?.code ?? err?.cause?.code ?? "";
  const friendly: Record<string, string> = {
    ECONNREFUSED: "connection refused",
    ENOTFOUND: "host not found (DNS)",
    EAI_AGAIN: "DNS lookup failed",
    UND_ERR_CONNECT_TIMEOUT: "connect timed out",
    CONNECT_TIMEOUT: "connect timed out",
    ECONNRESET: "connection reset by the upstream",
    UND_ERR_SOCKET: "connection closed by the upstream before the answer",
    EHOSTUNREACH: "host unreachable",
    ENETUNREACH: "network unreachable",
  };
  if (friendly[code]) return { msg: friendly[code], code };
  if (/CERT|TLS|SSL/.test(code)) return { msg: `TLS handshake failed (${code})`, code };
  return { msg: String(err?.message ?? err).split("\n")[0] + (code ? ` (${code})` : ""), code };
}

let pooled: typeof import("./http-pool.js") | undefined;

/** From now on, requests go through undici pools (keep-alive, many connections). */
export async function usePooledTransport(): Promise<void> {
  pooled ??= await import("./http-pool.js");
}

export async function closeTransports(): Promise<void> {
  await pooled?.closePools();
}

export function post(
  url: string,
  headers: Record<string, string>,
  body: string,
  opts: HttpOptions,
): Promise<HttpResult> {
  if (pooled) return pooled.poolPost(url, headers, body, opts);
  return oneShotPost(url, headers, body, opts);
}

/** node:http request: what one CLI call needs, and nothing it does not. */
async function oneShotPost(
  url: string,
  headers: Record<string, string>,
  body: string,
  opts: HttpOptions,
): Promise<HttpResult> {
  const u = new URL(url);
  const https = u.protocol === "https:";
  const mod = https ? await import("node:https") : await import("node:http");
  return new Promise<HttpResult>((resolve, reject) => {
    let connected = false;
    let settled = false;
    let req: ClientRequest | undefined;
    const timers: NodeJS.Timeout[] = [];
    const finish = (err: HttpFailure | null, res?: HttpResult) => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      opts.signal?.removeEventListener("abort", onAbort);
      if (err) {
        req?.destroy();
        reject(err);
      } else resolve(res!);
    };
    const onAbort = () => finish(new HttpFailure("interrupted", "maybe"));
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    if (opts.requestTimeoutMs > 0) {
      timers.push(
        setTimeout(
          () =>
            finish(new HttpFailure(`no complete answer within ${opts.requestTimeoutMs} ms`, "maybe", true)),
          opts.requestTimeoutMs,
        ),
      );
    }
    req = mod.request(
      {
        protocol: u.protocol,
        hostname: u.hostname.replace(/^\[|\]$/g, ""),
        port: u.port || (https ? 443 : 80),
        path: u.pathname + u.search,
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          "content-length": Buffer.byteLength(body),
          ...headers,
        },
        rejectUnauthorized: opts.verifyTls,
        agent: false,
      },
      (res: IncomingMessage) => {
        const declared = Number(res.headers["content-length"] ?? -1);
        if (declared > opts.maxBodyBytes) {
          return finish(
            new HttpFailure(
              `response of ${declared} bytes exceeds the ${opts.maxBodyBytes}-byte cap (--max-response)`,
              "maybe",
            ),
          );
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          size += c.length;
          if (size > opts.maxBodyBytes)
            finish(
              new HttpFailure(`response exceeds the ${opts.maxBodyBytes}-byte cap (--max-response)`, "maybe"),
            );
          else chunks.push(c);
        });
        res.on("end", () =>
          finish(null, {
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        res.on("error", (e) => finish(new HttpFailure(describeNetError(e).msg, "maybe")));
        res.on("aborted", () =>
          finish(new HttpFailure("connection closed by the upstream mid-answer", "maybe")),
        );
      },
    );
    req.on("socket", (sock) => {
      const ev = https ? "secureConnect" : "connect";
      if (opts.connectTimeoutMs > 0) {
        timers.push(
          setTimeout(() => {
            if (!connected) finish(new HttpFailure("connect timed out", "unsent"));
          }, opts.connectTimeoutMs),
        );
      }
      sock.once(ev, () => {
        connected = true;
      });
    });
    req.on("error", (e) => {
      const d = describeNetError(e);
      finish(new HttpFailure(d.msg, !connected && UNSENT_CODES.has(d.code) ? "unsent" : "maybe"));
    });
    req.end(body);
  });
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
