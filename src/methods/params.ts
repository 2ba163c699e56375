/**
 * Parameter kinds shared by the registry. Each turns command-line text into the JSON value the spec
 * asks for and checks it with a plain predicate, so bad input is refused with exit 2 before anything is
 * sent.
 */
import { ParamProblem, UsageError } from "../errors/index.js";
import { short, suggest } from "../util/text.js";
import type { ParamDef, ParamKind } from "./types.js";

export { ParamProblem };

/** Runs a check of `method`'s input named `what`; its ParamProblem becomes a usage error naming both. */
export function asUsage<T>(method: string, what: string, check: () => T): T {
  try {
    return check();
  } catch (e) {
    if (e instanceof ParamProblem) throw new UsageError(`${method}: invalid ${what}: ${e.message}`);
    throw e;
  }
}

/**
 * How a kind checks a value: a plain predicate. (zod/mini did this before; its modules cost several ms of
 * every start-up and, required lazily, pulled its CommonJS build with every locale into the bundle.)
 */
type Schema = { test(v: unknown): boolean };

function kind(expected: string, schema: Schema, fromText: (t: string) => unknown): ParamKind {
  return {
    expected,
    fromText,
    check(value: unknown) {
      if (!schema.test(value)) throw new ParamProblem(`expected ${expected}, got ${short(value)}`);
      return value;
    },
  };
}

/** Predicates of the scalar kinds. */
const isInt = (lo: number, hi: number) => ({
  test: (v: unknown) => typeof v === "number" && Number.isSafeInteger(v) && v >= lo && v <= hi,
});
const matches = (re: RegExp, min = 0, max = Number.POSITIVE_INFINITY) => ({
  test: (v: unknown) => typeof v === "string" && v.length >= min && v.length <= max && re.test(v),
});
const among = (values: readonly string[]) => ({
  test: (v: unknown) => typeof v === "string" && values.includes(v),
});

/** Numbers on the command line: plain decimal digits only, so "1e3", "0x10" or "1.0" are refused. */
const asInteger = (t: string): unknown => (/^-?\d{1,16}$/.test(t.trim()) ? Number(t.trim()) : t);
/** Deepest JSON nesting read from the command line; deeper text stays text and fails the check. */
export const MAX_PARAM_DEPTH = 64;

/** Nesting depth of JSON text (brackets outside strings), stopping as soon as it passes `max`. */
export function jsonDepthExceeds(t: string, max = MAX_PARAM_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > max) return true;
    } else if (c === 93 || c === 125) depth--;
  }
  return false;
}

const asJson = (t: string): unknown => {
  // a hostile `[[[[...` would parse, then blow the stack of every recursive check and message after it
  if (jsonDepthExceeds(t)) return t;
  try {
    return JSON.parse(t);
  } catch {
    return t;
  }
};
const asBool = (t: string): unknown => {
  const v = t.trim().toLowerCase();
  if (v === "true" || v === "1") return true;
  if (v === "false" || v === "0") return false;
  return t;
};

const HEX64 = /^[0-9a-fA-F]{64}$/;
const UINT = isInt(0, 2 ** 31 - 1);

export const hash64 = (what: string): ParamKind => {
  const k = kind(`a ${what} of 64 hex characters`, matches(HEX64), (t) => t.trim());
  return {
    ...k,
    check(value: unknown) {
      try {
        return k.check(value);
      } catch (e) {
        // a height where a block hash goes (`getblockheader 102`): say how to get the hash
        if (what === "block hash" && typeof value === "string" && /^\d{1,10}$/.test(value))
          throw new ParamProblem(
            `${(e as Error).message} (a height: \`chaingw getblockhash ${value}\` gives its hash)`,
          );
        throw e;
      }
    },
  };
};
export const nonNegInt = (what = "a whole number >= 0") => kind(what, UINT, asInteger);
export const intRange = (lo: number, hi: number) =>
  kind(`a whole number from ${lo} to ${hi}`, isInt(lo, hi), asInteger);
export const bool = kind("true or false", { test: (v) => typeof v === "boolean" }, asBool);
export const oneOf = (values: readonly [string, ...string[]]) =>
  kind(`one of ${values.join(", ")}`, among(values), (t) => t.trim());
/** oneOf, matched without regard to case (the node does: estimatesmartfee's "ECONOMICAL"); sent lowercase. */
export const oneOfAnyCase = (values: readonly [string, ...string[]]) =>
  kind(`one of ${values.join(", ")}`, among(values), (t) => t.trim().toLowerCase());
/** Raw bytes as bitcoind takes them: hex without 0x, an even number of digits (empty allowed with `min` 0). */
export const hexBytes = (what: string, min = 1, max = 4_000_000) =>
  kind(
    `${what} as hex (an even number of hex digits, no 0x)`,
    matches(/^([0-9a-fA-F]{2})*$/, min * 2, max * 2),
    (t) => t.trim(),
  );
/**
 * getrawtransaction's verbose: a boolean, or a verbosity number 0-2 (Core 25+ reads 2 as "with prevouts";
 * older nodes take 0/1 as false/true).
 */
export const boolOrVerbosity = kind(
  "true, false or a verbosity 0, 1 or 2",
  { test: (v) => typeof v === "boolean" || isInt(0, 2).test(v) },
  (t) => {
    const v = t.trim().toLowerCase();
    return v === "true" ? true : v === "false" ? false : asInteger(t);
  },
);
/**
 * getblock's verbosity: 0 to `hi`, or a boolean as scripts written for older Core send it (the node reads
 * true as 1 and false as 0; sent as that number, the type the spec gives).
 */
export const verbosityOrBool = (hi: number): ParamKind => {
  const expected = `a verbosity 0 to ${hi}, or true (1) / false (0)`;
  return {
    expected,
    fromText: (t) => {
      const v = t.trim().toLowerCase();
      return v === "true" ? true : v === "false" ? false : asInteger(t);
    },
    check(value: unknown) {
      if (typeof value === "boolean") return value ? 1 : 0;
      if (!isInt(0, hi).test(value)) throw new ParamProblem(`expected ${expected}, got ${short(value)}`);
      return value;
    },
  };
};
export const word = (expected: string) => kind(expected, matches(/^[A-Za-z0-9_]{1,64}$/), (t) => t.trim());
export const nonEmptyText = (expected: string, max = 256) =>
  kind(expected, matches(/^\S+$/, 1, max), (t) => t.trim());
export const hashOrHeight = kind(
  "a 64-hex block hash or a block height (whole number >= 0)",
  { test: (v) => matches(HEX64).test(v) || UINT.test(v) },
  (t) => (/^\d+$/.test(t.trim()) ? asInteger(t) : t.trim()),
);
/**
 * A JSON array of at most `max` items, each passing `isItem`. Items are checked by a plain predicate, not
 * a per-item schema: a scan of 10,000 addresses sends 10,000 items, and zod's per-item machinery costs
 * ~1 µs each on a cold start (10 ms) where a predicate costs 0.1.
 */
export const jsonArrayOf = (expected: string, isItem: (v: unknown) => boolean, max = 100_000) =>
  kind(expected, { test: (v) => Array.isArray(v) && v.length <= max && v.every(isItem) }, asJson);
export { asJson };

export function param(
  name: string,
  type: string,
  required: boolean,
  help: string,
  k: ParamKind,
  extra: { default?: unknown; aliases?: string[]; nodeRequires?: boolean } = {},
): ParamDef {
  return { name, type, required, help, ...k, ...extra };
}

/**
 * Turns positional command-line texts (or JSON values, from batch input) into the params array sent.
 * Trailing optional params left out are not sent; the node applies its defaults. Throws UsageError naming
 * the parameter.
 */
export function buildParams(
  method: { name: string; params: ParamDef[] },
  given: unknown[],
  fromText: boolean,
): unknown[] {
  const defs = method.params;
  if (given.length > defs.length) {
    throw new UsageError(
      `${method.name}: too many parameters (${given.length}); it takes ${defs.length === 0 ? "none" : defs.map((d) => d.name).join(", ")}`,
    );
  }
  // one array out (a batch builds this for every input line)
  const out: unknown[] = [];
  let lastGiven = -1;
  for (let i = 0; i < defs.length; i++) {
    const d = defs[i] as ParamDef;
    const g = given[i];
    if (g === undefined) {
      if (d.required && d.default === undefined) {
        throw new UsageError(`${method.name}: missing parameter ${d.name} (${d.expected})`);
      }
      out.push(d.default);
      if (d.default !== undefined) lastGiven = i;
      continue;
    }
    out.push(asUsage(method.name, d.name, () => d.check(fromText ? d.fromText(String(g)) : g)));
    lastGiven = i;
  }
  // an omitted optional param between given ones is sent as null (bitcoind's "use default")
  out.length = lastGiven + 1;
  for (let i = 0; i < out.length; i++) if (out[i] === undefined) out[i] = null;
  return out;
}

const NAMED = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;

function unknownName(method: { name: string; params: ParamDef[] }, name: string): UsageError {
  const names = method.params.map((p) => p.name);
  const near = suggest(name, names, 1);
  return new UsageError(
    `${method.name}: unknown parameter name ${JSON.stringify(name)}${near.length ? ` (did you mean ${near[0]}?)` : ""}; it takes ${names.length ? names.join(", ") : "none"}`,
  );
}

/**
 * bitcoin-cli's -named: `name=value` texts fill their param's slot; the others are positional and come
 * first, in order (as bitcoin-cli allows mixing them). A name the method lacks, or one given twice (by
 * name, or by name and position), is refused. Slots left empty stay undefined: buildParams sends null
 * for an optional one between given ones, and names a missing required one.
 */
/** A param's position by its name or one of its aliases (getblock's `verbose` for `verbosity`, as Core). */
const paramIndex = (method: { params: ParamDef[] }, name: string): number =>
  method.params.findIndex((p) => p.name === name || p.aliases?.includes(name));

export function namedToPositional(
  method: { name: string; params: ParamDef[] },
  texts: readonly string[],
): unknown[] {
  const given: unknown[] = [];
  const named: [number, string, string][] = [];
  for (const t of texts) {
    const m = NAMED.exec(t);
    if (!m) {
      if (named.length)
        throw new UsageError(
          `${method.name}: positional parameter ${JSON.stringify(short(t, 40))} after named ones; give positional ones first`,
        );
      given.push(t);
      continue;
    }
    const i = paramIndex(method, m[1]);
    if (i < 0) throw unknownName(method, m[1]);
    named.push([i, m[1], m[2]]);
  }
  const positional = given.length;
  for (const [i, name, value] of named) {
    if (given[i] !== undefined)
      throw new UsageError(
        `${method.name}: parameter ${name} given twice${i < positional ? ` (by position ${i + 1} and by name)` : ""}`,
      );
    given[i] = value;
  }
  return given;
}

/** Batch lines' by-name params (`"params": {"blockhash": ...}`, JSON-RPC 2.0 §4.2) in the method's order. */
export function paramsFromObject(
  method: { name: string; params: ParamDef[] },
  obj: Record<string, unknown>,
): unknown[] {
  const given: unknown[] = [];
  for (const [k, v] of Object.entries(obj)) {
    const i = paramIndex(method, k);
    if (i < 0) throw unknownName(method, k);
    given[i] = v;
  }
  return given;
}
