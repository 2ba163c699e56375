/**
 * HTTP POST over undici pools, one pool per upstream origin: keep-alive and connection reuse for runs
 * that make many calls (batch, --range, reserves). Loaded only by those: undici's import and its llhttp
 * WebAssembly compile cost ~100 ms per process (bench/), which a single call must not pay.
 * No retries here: undici's RetryHandler skips POST and would retry HTTP 500, which bitcoind uses for
 * ordinary error answers. Retry and failover live in the JSON-RPC client, which knows the method's marks.
 */
import request from "undici/lib/api/api-request.js";
import Pool from "undici/lib/dispatcher/pool.js";
import { describeNetError, HttpFailure, type HttpOptions, type HttpResult, UNSENT_CODES } from "./http.js";

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

export async function poolPost(
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
    const d = describeNetError(err);
    const unsent = !connected && UNSENT_CODES.has(d.code);
    throw new HttpFailure(d.msg, unsent ? "unsent" : "maybe");
  } finally {
    if (timer) clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onOuterAbort);
  }
}
