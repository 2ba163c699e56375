/**
 * The JSON-RPC envelope of `chaingw serve`: a request read into calls (or the error that refuses it, with
 * the request's id when it has one), answers built around a result's bytes or an error object, a failure of
 * the upstreams as the gateway's answer.
 */

import { isUtf8 } from "node:buffer";
import { ChaingwError, TransportError } from "../errors/index.js";
import { JsonNumber, type JsonValue, parseLossless, stringifyLossless } from "../json/lossless.js";
import { scanObject } from "../json/scan.js";
import { isMethodName } from "../methods/index.js";
import { isJsonObject } from "../util/text.js";
import { errorStatus, GatewayError } from "./errors.js";

/** One call of a request (a single request, or one entry of a batch). */
export interface Call {
  /** the id's JSON text; undefined for a notification */
  id?: string;
  method: string;
  /** lossless values (read by the full parser), or plain ones parsed from `paramsText` (the span reader) */
  params: JsonValue[];
  /** the params' JSON text as the client sent it: forwarded unchanged when the checks change nothing */
  paramsText?: string;
  /**
   * a JSON-RPC 1.0-style request (`"jsonrpc":"1.0"`, `"version":"1.1"`, no version member; UTXO group
   * only): answered as bitcoind answers it, `{"result","error","id"}` with bitcoind's HTTP statuses
   */
  legacy?: boolean;
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
/** A result's answer in the caller's dialect: JSON-RPC 2.0, or bitcoind's 1.0 shape (`legacy`). */
export const envelopeOk = (id: string, raw: string | Buffer, legacy?: boolean): Buffer | string =>
  legacy
    ? typeof raw === "string"
      ? `{"result":${raw},"error":null,"id":${id}}`
      : Buffer.concat([Buffer.from('{"result":'), raw, Buffer.from(`,"error":null,"id":${id}}`)])
    : typeof raw === "string"
      ? `{"jsonrpc":"2.0","id":${id},"result":${raw}}`
      : Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":${id},"result":`), raw, Buffer.from("}")]);
/** An error's answer in the caller's dialect. */
export const envelopeErr = (id: string, errorJson: string, legacy?: boolean) =>
  legacy
    ? `{"result":null,"error":${errorJson},"id":${id}}`
    : `{"jsonrpc":"2.0","id":${id},"error":${errorJson}}`;

export function gatewayAnswer(e: GatewayError, id = "null", legacy?: boolean): Answer {
  const lg = e.legacy ?? legacy;
  return {
    status: e.row.http ?? errorStatus(e.code, lg),
    body: envelopeErr(e.requestId ?? id, J({ code: e.code, message: e.message }), lg),
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

/** JSON-RPC 1.1's version member, as python-bitcoinrpc sends it ("1.1"); bitcoind ignores it. */
const VERSION_MEMBER = new Set(["1.0", "1.1"]);

/**
 * A request's dialect: 2.0 (`"jsonrpc":"2.0"`), or 1.0-style (`"jsonrpc":"1.0"`, a `version` member, or
 * neither: what bitcoind takes besides 2.0) where the group's nodes take it; else the refusal.
 */
function dialect(o: Record<string, JsonValue>, legacyOk: boolean): boolean | GatewayError {
  const jv = o.jsonrpc;
  if (o.version !== undefined && !(typeof o.version === "string" && VERSION_MEMBER.has(o.version)))
    return new GatewayError("invalidRequest", 'version must be "1.1" or "1.0" when given');
  if (jv === "2.0" && o.version === undefined) return false;
  if (jv === undefined || jv === "1.0") {
    if (jv === undefined && o.version === undefined && !legacyOk)
      return new GatewayError("invalidRequest", 'jsonrpc must be "2.0"');
    if (legacyOk) return true;
    return new GatewayError(
      "invalidRequest",
      'jsonrpc must be "2.0" (JSON-RPC 1.0-style requests are served on the utxo group only)',
    );
  }
  return new GatewayError(
    "invalidRequest",
    jv === "2.0" ? "a version member beside jsonrpc" : `jsonrpc must be "2.0"${legacyOk ? ' or "1.0"' : ""}`,
  );
}

/**
 * A request object read as a call, or the error that refuses it — carrying the request's id whenever it
 * could be read. `legacyOk`: the product's group takes 1.0-style requests (bitcoind's), answered alike.
 */
export function readCall(v: JsonValue, legacyOk = false): Call | GatewayError {
  if (!isJsonObject(v)) return new GatewayError("invalidRequest", "expected a request object");
  const o = v as Record<string, JsonValue>;
  const id = idText(o.id);
  if (id instanceof GatewayError) return id;
  const legacy = dialect(o, legacyOk);
  const refuse = (e: GatewayError): GatewayError => {
    // a 1.0-style request has no notifications: bitcoind answers one without an id with id null
    if (id !== undefined || legacy === true) e.requestId = id ?? "null";
    if (legacy === true) e.legacy = true;
    return e;
  };
  if (legacy instanceof GatewayError) return refuse(legacy);
  if (typeof o.method !== "string" || !isMethodName(o.method))
    return refuse(new GatewayError("invalidRequest", "method missing or not a method name"));
  const params = o.params ?? [];
  if (isJsonObject(params))
    // JSON-RPC 2.0 allows named params; the registry checks (and the CLI sends) positional ones
    return refuse(
      new GatewayError(
        "invalidParams",
        `named params (an object) are not taken: give ${o.method}'s params as an array, in order`,
      ),
    );
  if (!Array.isArray(params))
    return refuse(new GatewayError("invalidRequest", "params must be an array (positional)"));
  for (const k of Object.keys(o))
    if (!MEMBERS.has(k)) return refuse(new GatewayError("invalidRequest", `unknown member ${J(k)}`));
  if (legacy) return { id: id ?? "null", method: o.method, params, legacy: true };
  return { id, method: o.method, params };
}
const MEMBERS = new Set(["jsonrpc", "version", "id", "method", "params"]);

/**
 * A single request read by the span scanner, without building a lossless tree: the common request
 * (`{"jsonrpc":"2.0","id":…,"method":"…","params":[…]}`, in any order and spacing) read with every token
 * checked, its params parsed once for the registry's checks and kept as text for forwarding. Anything
 * unusual — a batch, an escape in a name, an id or method, another member, named params, text that is not
 * JSON — is undefined: the full reader (`parseLossless`, `readCall`) then reads it and says what is wrong,
 * so both readers answer alike.
 */
export function readCallText(text: string): Call | undefined {
  let m: Record<string, [number, number]> | undefined;
  try {
    m = scanObject(text, 64);
  } catch {
    return undefined;
  }
  if (!m) return undefined;
  for (const k in m) if (k !== "jsonrpc" && k !== "id" && k !== "method" && k !== "params") return undefined;
  const span = (s: [number, number] | undefined) => (s ? text.slice(s[0], s[1]) : undefined);
  if (span(m.jsonrpc) !== '"2.0"') return undefined;
  const method = span(m.method);
  if (method === undefined || !plainString(method)) return undefined;
  const name = method.slice(1, -1);
  if (!isMethodName(name)) return undefined;
  const id = span(m.id);
  if (id !== undefined && !plainString(id) && id !== "null" && !/^-?[0-9]/.test(id)) return undefined;
  const paramsText = span(m.params) ?? "[]";
  if (paramsText.charCodeAt(0) !== 91 /* [ */) return undefined;
  return { id, method: name, params: JSON.parse(paramsText), paramsText };
}

/** A JSON string token with no escape: its text is what JSON.stringify would write for its value. */
const plainString = (t: string) => t.charCodeAt(0) === 34 && !t.includes("\\");

/**
 * A batch entry gets an answer unless it was a well-formed 2.0 notification (no id); a 1.0-style request
 * has no notifications (bitcoind answers every one).
 */
export function isAnswered(list: JsonValue[], i: number): boolean {
  const e = list[i];
  if (!isJsonObject(e)) return true;
  const o = e as Record<string, JsonValue>;
  return "id" in o || typeof o.method !== "string" || o.jsonrpc !== "2.0";
}

/** An upstream's answer to one forwarded call: the result's bytes, or the node's error object as it sent it. */
export type Forwarded = { status: number; raw?: string; error?: string; code?: number };

/**
 * A failure of the upstreams, as the gateway's answer (-32015 for a timeout, else -32010); `told`: its text
 * as a client may read it (the pool's: no upstream's URL, address or credentials).
 */
export function upstreamError(e: unknown, told: (text: string) => string): GatewayError {
  if (e instanceof GatewayError) return e;
  if (e instanceof TransportError) {
    const timedOut = e.timedOut || /no complete answer within|timed out|timeout/.test(e.message);
    return new GatewayError(timedOut ? "timeout" : "upstreamFailed", told(e.message));
  }
  if (e instanceof ChaingwError) return new GatewayError("upstreamFailed", told(e.message));
  throw e;
}

/** The body within the cap (413), as text if it is UTF-8 (else -32700: an id would be echoed altered). */
export function bodyText(body: Buffer | undefined, cap: number): string | GatewayError {
  if (body === undefined) return new GatewayError("bodyTooLarge", `more than ${cap} bytes`);
  if (!isUtf8(body)) return new GatewayError("parse", "the body is not UTF-8");
  return body.toString("utf8");
}

/** The body as JSON (-32700 naming what is wrong), read by the full parser. */
export function parseRequest(text: string): JsonValue | GatewayError {
  try {
    return parseLossless(text, { maxDepth: 64 });
  } catch (e) {
    return new GatewayError("parse", (e as Error).message);
  }
}

/**
 * The id of a request refused before it was read (401, 403, 413 …), when its body is a single request
 * whose id can be read: clients that match answers by id (web3.js) show the message then, not an empty one.
 */
export function idOf(body: Buffer | undefined): string {
  if (body === undefined || !isUtf8(body)) return "null";
  const text = body.toString("utf8");
  const call = readCallText(text);
  if (call) return call.id ?? "null";
  const v = parseRequest(text);
  if (v instanceof GatewayError || !isJsonObject(v)) return "null";
  const id = (v as Record<string, JsonValue>).id;
  return id === null || typeof id === "string" || id instanceof JsonNumber ? stringifyLossless(id) : "null";
}
