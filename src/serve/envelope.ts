/**
 * The JSON-RPC envelope of `chaingw serve`: a request read into calls (or the error that refuses it, with
 * the request's id when it has one), answers built around a result's bytes or an error object, a failure of
 * the upstreams as the gateway's answer.
 */
import { ChaingwError, TransportError } from "../errors/index.js";
import { JsonNumber, type JsonValue, stringifyLossless } from "../json/lossless.js";
import { isMethodName } from "../methods/index.js";
import { isJsonObject } from "../util/text.js";
import { GatewayError } from "./errors.js";

/** One call of a request (a single request, or one entry of a batch). */
export interface Call {
  /** the id's JSON text; undefined for a notification */
  id?: string;
  method: string;
  params: JsonValue[];
}

/** What became of a call: a result's bytes, or an error object, with the HTTP status it carries alone. */
export interface Answer {
  status: number;
  /** the whole JSON-RPC response for this call, id included */
  body: string | Buffer;
  outcome: string;
  upstream?: string;
  retryAfterS?: number;
}

export const J = (v: unknown) => JSON.stringify(v);
export const envelopeOk = (id: string, raw: string | Buffer): Buffer | string =>
  typeof raw === "string"
    ? `{"jsonrpc":"2.0","id":${id},"result":${raw}}`
    : Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":${id},"result":`), raw, Buffer.from("}")]);
export const envelopeErr = (id: string, errorJson: string) =>
  `{"jsonrpc":"2.0","id":${id},"error":${errorJson}}`;

export function gatewayAnswer(e: GatewayError, id = "null"): Answer {
  return {
    status: e.status,
    body: envelopeErr(e.requestId ?? id, J({ code: e.code, message: e.message })),
    outcome: e.kind,
    retryAfterS: e.retryAfterS,
  };
}

/** The JSON text of a request's id, or a reason it is not one (JSON-RPC: a string, a number or null). */
function idText(v: JsonValue | undefined): string | undefined | GatewayError {
  if (v === undefined) return undefined;
  if (v === null || typeof v === "string" || v instanceof JsonNumber) return stringifyLossless(v);
  return new GatewayError("invalidRequest", "id must be a string, a number or null");
}

/** JsonNumber → number for the registry's checks (its params are small numbers and hex strings). */
export function plain(v: JsonValue): unknown {
  if (v instanceof JsonNumber) return Number(v.raw);
  if (Array.isArray(v)) return v.map(plain);
  if (isJsonObject(v))
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x as JsonValue)]));
  return v;
}

/** A request object read as a call, or the error that refuses it. */
export function readCall(v: JsonValue): Call | GatewayError {
  if (!isJsonObject(v)) return new GatewayError("invalidRequest", "expected a request object");
  const o = v as Record<string, JsonValue>;
  if (o.jsonrpc !== "2.0") return new GatewayError("invalidRequest", 'jsonrpc must be "2.0"');
  const id = idText(o.id);
  if (id instanceof GatewayError) return id;
  if (typeof o.method !== "string" || !isMethodName(o.method))
    return new GatewayError("invalidRequest", "method missing or not a method name");
  const params = o.params ?? [];
  if (isJsonObject(params)) {
    // JSON-RPC 2.0 allows named params; the registry checks (and the CLI sends) positional ones
    const e = new GatewayError(
      "invalidParams",
      `named params (an object) are not taken: give ${o.method}'s params as an array, in order`,
    );
    e.requestId = id ?? "null";
    return e;
  }
  if (!Array.isArray(params))
    return new GatewayError("invalidRequest", "params must be an array (positional)");
  for (const k of Object.keys(o))
    if (!["jsonrpc", "id", "method", "params"].includes(k))
      return new GatewayError("invalidRequest", `unknown member ${J(k)}`);
  return { id, method: o.method, params };
}

/** A batch entry gets an answer unless it was a well-formed notification (no id). */
export function isAnswered(list: JsonValue[], i: number): boolean {
  const e = list[i];
  return !(isJsonObject(e) && !("id" in e) && typeof (e as Record<string, JsonValue>).method === "string");
}

/** An upstream's answer to one forwarded call: the result's bytes, or the node's error object as it sent it. */
export type Forwarded = { status: number; raw?: string; error?: string };

/** A failure of the upstreams, as the gateway's answer: 504 for a timeout, else 502. */
export function upstreamError(e: unknown): GatewayError {
  if (e instanceof GatewayError) return e;
  if (e instanceof TransportError) {
    const timedOut = e.timedOut || /no complete answer within|timed out|timeout/.test(e.message);
    return new GatewayError(timedOut ? "timeout" : "upstreamFailed", e.message);
  }
  if (e instanceof ChaingwError) return new GatewayError("upstreamFailed", e.message);
  throw e;
}
