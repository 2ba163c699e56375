/**
 * RFC 8785 JSON Canonicalization Scheme: the one byte sequence a proof's digest is taken over, so a verifier in
 * any language that implements the RFC gets the same digest from the same document.
 *
 * Numbers are IEEE-754 doubles in JCS (the RFC serializes them with ECMAScript's Number-to-String), so an
 * amount written as a JSON number would be rounded before it is hashed: every amount and every integer that
 * may pass 2^53 in a proof is a decimal string, and only small integers (vout, height, counts) are numbers.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { JsonNumber } from "../json/lossless.js";

/** What {@link canonicalize} accepts: plain JSON values, with numbers either doubles or lossless tokens. */
export type JcsValue =
  | null
  | boolean
  | string
  | number
  | JsonNumber
  | readonly JcsValue[]
  | { readonly [key: string]: JcsValue };

/**
 * The canonical JSON text of `value`. Throws an Error naming the path of the first value JCS cannot represent:
 * NaN or ±Infinity, undefined, a bigint, a function or symbol, an object that is not plain, a string with a lone
 * surrogate (I-JSON text must be valid Unicode; RFC 8785 section 3.2.2.2 requires an error), or a cycle.
 */
export function canonicalize(value: unknown): string {
  const out: string[] = [];
  write(value, "$", out, new Set());
  return out.join("");
}

/**
 * Lowercase hex SHA-256 of the canonical form of `doc` without its top-level `digest` member: the proof's
 * self-digest, which therefore never covers itself.
 */
export function digestOf(doc: object): string {
  const { digest: _omitted, ...rest } = doc as Record<string, unknown>;
  return bytesToHex(sha256(utf8ToBytes(canonicalize(rest))));
}

function write(v: unknown, path: string, out: string[], open: Set<object>): void {
  if (v === null) {
    out.push("null");
    return;
  }
  switch (typeof v) {
    case "boolean":
      out.push(v ? "true" : "false");
      return;
    case "string":
      out.push(quote(v, path));
      return;
    case "number":
      out.push(number(v, path));
      return;
    case "object":
      break;
    default:
      throw new Error(`${path}: ${typeof v} has no JSON form (RFC 8785 takes only JSON values)`);
  }
  if (v instanceof JsonNumber) {
    // RFC 8785 section 3.2.2.3: a JSON number is whatever double it parses to, however it was written
    out.push(number(Number(v.raw), path, v.raw));
    return;
  }
  if (open.has(v)) throw new Error(`${path}: cyclic structure`);
  open.add(v);
  if (Array.isArray(v)) {
    out.push("[");
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out.push(",");
      // a hole reads as undefined and is refused there
      write(v[i], `${path}[${i}]`, out, open);
    }
    out.push("]");
  } else {
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null)
      throw new Error(`${path}: ${proto?.constructor?.name ?? "object"} is not a plain JSON object`);
    // Array.prototype.sort without a comparator orders by UTF-16 code units: RFC 8785 section 3.2.3
    const keys = Object.keys(v).sort();
    out.push("{");
    let first = true;
    for (const k of keys) {
      const member = (v as Record<string, unknown>)[k];
      if (!first) out.push(",");
      first = false;
      out.push(quote(k, `${path} key`), ":");
      write(member, `${path}.${k}`, out, open);
    }
    out.push("}");
  }
  open.delete(v);
}

function number(n: number, path: string, raw?: string): string {
  if (!Number.isFinite(n))
    throw new Error(
      `${path}: ${raw ?? String(n)} is not a finite IEEE-754 double (RFC 8785 has no form for it)`,
    );
  // ECMAScript Number::toString is the RFC's serializer; it writes -0 as "0" as the RFC asks
  return String(n);
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function quote(s: string, path: string): string {
  if (LONE_SURROGATE.test(s))
    throw new Error(`${path}: string holds a lone UTF-16 surrogate (not Unicode text)`);
  // With lone surrogates excluded, JSON.stringify escapes exactly as RFC 8785 section 3.2.2.2 prescribes:
  // \b \t \n \f \r \" \\ by name, other controls as \u00xx in lowercase hex, everything else as is.
  return JSON.stringify(s);
}
