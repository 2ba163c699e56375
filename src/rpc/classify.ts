/**
 * What an upstream's HTTP answer means for the request: a result, the node's final word, or a failure
 * that either provably did no work ("refused": any method may move to the next endpoint) or may have
 * ("maybe": only idempotent methods may). The failover loop in client.ts acts on this and nothing else.
 */
import { type ChaingwError, RpcError } from "../errors/index.js";
import { isWs } from "../json/cursor.js";
import {
  isJsonValueText,
  JsonNumber,
  type JsonValue,
  parseLossless,
  rawMember,
  scanObject,
} from "../json/lossless.js";
import type { Endpoint } from "./endpoint.js";
import { type HttpResult, retryAfterMs } from "./http.js";
import { isRequestLimit } from "./limits.js";

/** A failure: `unsent` when no byte of the request reached the upstream (refused, DNS, TLS, connect). */
export interface Failure {
  kind: "refused" | "maybe";
  why: string;
  auth?: boolean;
  retryAfterMs?: number;
  timedOut?: boolean;
  unsent?: boolean;
}

export type Outcome<T = { result: JsonValue; raw: string }> =
  | { kind: "ok"; value: T }
  | { kind: "final"; error: ChaingwError }
  | Failure;

/** Codes that mean "busy or rate limited": nothing is wrong with the request itself. */
const TRANSIENT_CODES = new Set([-32016, -32007, 429]);
/** Errors every node would repeat: never moved to another upstream, whatever the HTTP status. */
const DETERMINISTIC_CODES = new Set([-1, -3, -5, -8, -32600, -32601, -32602, 3]);
/** Node-state codes (warming up, shutting down, initial download): refused before any work was done. */
const NOT_READY_CODES = new Set([-28, -9, -10]);
/**
 * A gateway's own codes for trouble behind it (proxyd's, which `chaingw serve` uses): upstream failed, no
 * healthy upstream, upstream timed out. About that hop, not the request, whatever the HTTP status: serve
 * answers them in a 200 (what ethers and web3.py read), other gateways with 502-504.
 */
const HOP_CODES = new Set([-32010, -32011, -32015]);

/** Answers that refuse the request before the body matters: credentials refused, a redirect. */
export function refusedOutright(http: HttpResult, ep: Endpoint): Failure | undefined {
  const { status } = http;
  if (status === 401 || status === 403) {
    return { kind: "refused", auth: true, why: authRefusal(status, ep, http.text) };
  }
  if (status >= 300 && status < 400) {
    return {
      kind: "refused",
      why: `HTTP ${status} redirect to ${String(http.headers.location ?? "?").slice(0, 80)} not followed`,
    };
  }
  return undefined;
}

/**
 * What a 401/403 says: a gateway's 403 is a valid key on a product it may not use (the spec's forbidden),
 * not a wrong key; the gateway's own words, when its body has them, follow.
 */
function authRefusal(status: number, ep: Endpoint, text: string): string {
  let said = "";
  try {
    const m = (parseLossless(text) as { error?: { message?: unknown } })?.error?.message;
    if (typeof m === "string") said = `: ${m.slice(0, 120)}`;
  } catch {}
  if (ep.kind === "node") return `HTTP ${status}: credentials refused (check user/password or the cookie)`;
  if (status === 403)
    return `HTTP 403${said || ": the API key may not use this product"} (a known key, not allowed this product: check --product, or have the key allowed it)`;
  return `HTTP 401${said} (check the API key)`;
}

export function classify(http: HttpResult, id: number, ep: Endpoint): Outcome {
  return answered(http, id) ?? classifyParsed(http, id, ep);
}

/**
 * The common answer, read without building it: HTTP 200, JSON, an object with our id as its exact number
 * token, `error` absent or null, a `result`. Its members are found by the scanner (every token checked) and
 * the result is its source text, parsed only if a caller asks for the value. Anything else (undefined) goes
 * to the full reading below, which says what is wrong.
 */
function answered(http: HttpResult, id: number): Outcome | undefined {
  if (http.status !== 200) return undefined;
  const ct = http.header ? http.header("content-type") : http.headers["content-type"];
  if (ct !== undefined && !/json/i.test(String(ct))) return undefined;
  const text = http.text;
  const compact = compactResult(text, id);
  if (compact !== undefined) return { kind: "ok", value: new Answered(compact) };
  let m: Record<string, [number, number]> | undefined;
  try {
    m = scanObject(text);
  } catch {
    return undefined;
  }
  if (!m?.result || !m.id || text.slice(m.id[0], m.id[1]) !== String(id)) return undefined;
  if (m.error && text.slice(m.error[0], m.error[1]) !== "null") return undefined;
  return { kind: "ok", value: new Answered(text.slice(m.result[0], m.result[1])) };
}

const BITCOIND_HEAD = '{"result":';

/**
 * The result of an answer in the exact compact shape a node writes — bitcoind's `{"result":…,"error":null,
 * "id":N}` or an EVM node's `{"jsonrpc":"2.0","id":N,"result":…}`, N our id, trailing whitespace allowed —
 * found by its fixed head and tail, the result alone scanned (every token checked); undefined for any
 * other text, which the member scan reads. The head and tail leave one reading: the tail is anchored at
 * the end, and a result that is not exactly one value is refused.
 */
function compactResult(text: string, id: number): string | undefined {
  let end = text.length;
  while (end > 0 && isWs(text.charCodeAt(end - 1))) end--;
  let start: number;
  let stop: number;
  if (text.startsWith(BITCOIND_HEAD)) {
    const tail = `,"error":null,"id":${id}}`;
    if (!text.startsWith(tail, end - tail.length)) return undefined;
    start = BITCOIND_HEAD.length;
    stop = end - tail.length;
  } else {
    const head = `{"jsonrpc":"2.0","id":${id},"result":`;
    if (!text.startsWith(head) || text.charCodeAt(end - 1) !== 125) return undefined;
    start = head.length;
    stop = end - 1;
  }
  if (stop <= start) return undefined;
  const raw = text.slice(start, stop);
  return isJsonValueText(raw) ? raw : undefined;
}

/**
 * A result as its source text, parsed on first read. A class, not an object literal with a getter: each
 * such literal gets an accessor pair of its own, and under load those kept scavenges at 2-5 ms (measured
 * in `serve`: ~290 KB promoted per scavenge, against ~13 KB with this class).
 */
class Answered {
  private value?: JsonValue;
  constructor(readonly raw: string) {}
  get result(): JsonValue {
    this.value ??= parseLossless(this.raw);
    return this.value;
  }
}

function classifyParsed(http: HttpResult, id: number, ep: Endpoint): Outcome {
  const { status, text } = http;
  const ct = String(http.headers["content-type"] ?? "");
  const ra = retryAfterMs(http.headers["retry-after"]);
  const outright = refusedOutright(http, ep);
  if (outright) return outright;
  let body: JsonValue;
  try {
    if (text.length === 0) throw new Error("empty body");
    else body = parseLossless(text);
  } catch (e) {
    // bitcoind's overload answer: 503 on current Core, HTTP 500 text/html on Litecoin Core 0.21 (seen here)
    if (/^Work queue depth exceeded/.test(text)) {
      return {
        kind: "maybe",
        why: `node overloaded: work queue depth exceeded (HTTP ${status})`,
        retryAfterMs: ra,
      };
    }
    const what =
      text.length === 0
        ? "an empty body"
        : /^\s*</.test(text)
          ? "an HTML page"
          : (e as Error).message.startsWith("unexpected end")
            ? "a truncated JSON body"
            : (e as Error).message.startsWith("JSON nested deeper")
              ? `a body ${(e as Error).message.replace(/^JSON /, "")}`
              : "a body that is not JSON";
    const why = `HTTP ${status}${ct && !ct.includes("json") ? ` (${ct.split(";")[0]})` : ""} with ${what}`;
    if (status === 404 || status === 405) return { kind: "refused", why: `${why} (wrong URL or product?)` };
    return { kind: "maybe", why, retryAfterMs: ra };
  }
  if (ct && !/json/i.test(ct)) {
    return { kind: "maybe", why: `HTTP ${status} with content type ${ct.split(";")[0]}, not JSON` };
  }
  if (body === null || typeof body !== "object" || Array.isArray(body) || body instanceof JsonNumber) {
    return { kind: "maybe", why: `HTTP ${status}: answer is not a JSON-RPC object` };
  }
  const err = body.error;
  if (err !== undefined && err !== null) return classifyError(err, status, ra, ep);
  if (status === 429) return { kind: "maybe", why: "HTTP 429 too many requests", retryAfterMs: ra };
  if (status >= 400)
    return { kind: "maybe", why: `HTTP ${status} without a JSON-RPC error`, retryAfterMs: ra };
  const gotId = body.id;
  // our ids are numbers: the echo must be the same number token, not a string that looks like it
  if (!(gotId instanceof JsonNumber) || Number(gotId.raw) !== id) {
    return {
      kind: "maybe",
      why: `answer carries id ${gotId === undefined ? "(none)" : gotId instanceof JsonNumber ? gotId.raw : JSON.stringify(gotId)}, expected ${id}`,
    };
  }
  if (!("result" in body)) return { kind: "maybe", why: "answer has neither result nor error" };
  return { kind: "ok", value: { result: body.result, raw: rawMember(text, body, "result") ?? "null" } };
}

/** A JSON-RPC `error` object: busy or rate limited, not ready, a hop's own error, or the node's final word. */
export function classifyError(
  err: JsonValue,
  status: number,
  ra: number | undefined,
  ep: Endpoint,
): Failure | { kind: "final"; error: ChaingwError } {
  const e = err as Record<string, JsonValue>;
  const code = Number(e?.code);
  const message = typeof e?.message === "string" ? e.message : JSON.stringify(err).slice(0, 200);
  const rateLimited =
    status === 429 ||
    TRANSIENT_CODES.has(code) ||
    // -32005 is "limit exceeded" in EIP-1474: providers use it for rate limits, nodes also for limits of
    // the request itself ("query returned more than 10000 results"), which every node repeats
    (code === -32005 && (ra !== undefined || !isRequestLimit(message))) ||
    /rate limit|too many requests/i.test(message);
  if (rateLimited) return { kind: "maybe", why: `rate limited (${code}: ${message})`, retryAfterMs: ra };
  // a gateway's refusal of the request as such ran nothing: too large (413; `reserves` splits on it), no
  // such product or path (404/405; bitcoind's own 404 is -32601, a method it lacks: final, below)
  if (status === 413) return { kind: "refused", why: `HTTP 413: ${code}: ${message}` };
  if ((status === 404 || status === 405) && !DETERMINISTIC_CODES.has(code))
    return { kind: "refused", why: `HTTP ${status}: ${code}: ${message} (wrong URL or product?)` };
  if (NOT_READY_CODES.has(code)) return { kind: "refused", why: `node not ready (${code}: ${message})` };
  // a balancer's own error on 502-504 ("no healthy upstream"), or a gateway's hop code in any status, is
  // about that hop, not the request
  if (
    (status >= 502 && status <= 504 && !DETERMINISTIC_CODES.has(code)) ||
    (ep.kind === "gateway" && HOP_CODES.has(code))
  ) {
    return { kind: "maybe", why: `HTTP ${status}: ${code}: ${message}`, retryAfterMs: ra };
  }
  return {
    kind: "final",
    error: new RpcError(Number.isFinite(code) ? code : -32603, message, e?.data ?? null, ep.label),
  };
}
