/**
 * A strict checker for JSON configuration files, with the line of every problem. A file a person wrote
 * deserves "gateway.json:7: products.ltc.upstream: unknown key (did you mean upstreams?)", not a default
 * silently applied because of a typo. Small on purpose: the shapes config files use (objects with known
 * keys, maps, lists, strings, numbers, booleans, a choice of shapes), nothing more. The one checker of every
 * config file chaingw reads: `chaingw serve`'s gateway.json and keys file, the CLI's config.json
 * (src/config/check.ts declares its shape).
 */
import { UsageError } from "../errors/index.js";
import { short } from "./text.js";

export type Shape =
  | { kind: "string"; pattern?: RegExp; oneOf?: readonly string[]; expected?: string }
  | { kind: "number"; min?: number; max?: number; integer?: boolean }
  | { kind: "boolean" }
  | { kind: "array"; items: Shape; min?: number; max?: number }
  /** known keys; `required` lists those that must be there; `comments`: keys starting with // are skipped */
  | { kind: "object"; keys: Record<string, Shape>; required?: readonly string[]; comments?: boolean }
  /** any keys (a map such as products), each value of one shape */
  | { kind: "map"; values: Shape; keyPattern?: RegExp; min?: number; comments?: boolean }
  | { kind: "either"; shapes: readonly Shape[]; expected: string };

/** The line of each value, by its path (`products.ltc.upstreams[1]`). */
export interface Located {
  value: unknown;
  lines: Map<string, number>;
}

/**
 * JSON text read into plain values, recording the line each value starts on. Throws a UsageError with
 * the line of a syntax error; never quotes the text around it (a config may hold a password).
 */
export function parseWithLines(text: string, file: string): Located {
  const lines = new Map<string, number>();
  let pos = 0;
  let line = 1;
  const fail = (what: string): never => {
    throw new UsageError(`${file}: line ${line}: not valid JSON: ${what}`);
  };
  const ws = () => {
    for (;;) {
      const c = text[pos];
      if (c === "\n") line++;
      else if (c !== " " && c !== "\t" && c !== "\r") return;
      pos++;
    }
  };
  const str = (): string => {
    const start = pos;
    pos++;
    for (;;) {
      const c = text[pos];
      if (c === undefined || c === "\n") fail("unterminated string");
      if (c === "\\") pos += 2;
      else if (c === '"') break;
      else pos++;
    }
    pos++;
    try {
      return JSON.parse(text.slice(start, pos)) as string;
    } catch {
      return fail("bad escape in a string");
    }
  };
  const value = (path: string, depth: number): unknown => {
    if (depth > 64) fail("nested too deeply");
    ws();
    lines.set(path, line);
    const c = text[pos];
    if (c === "{") {
      pos++;
      const o: Record<string, unknown> = {};
      ws();
      if (text[pos] === "}") {
        pos++;
        return o;
      }
      for (;;) {
        ws();
        if (text[pos] !== '"') fail("object key expected");
        const k = str();
        ws();
        if (text[pos] !== ":") fail("':' expected");
        pos++;
        if (Object.hasOwn(o, k)) fail(`key ${JSON.stringify(k)} given twice`);
        o[k] = value(path ? `${path}.${k}` : k, depth + 1);
        ws();
        if (text[pos] === ",") pos++;
        else if (text[pos] === "}") {
          pos++;
          return o;
        } else fail("',' or '}' expected");
      }
    }
    if (c === "[") {
      pos++;
      const a: unknown[] = [];
      ws();
      if (text[pos] === "]") {
        pos++;
        return a;
      }
      for (;;) {
        a.push(value(`${path}[${a.length}]`, depth + 1));
        ws();
        if (text[pos] === ",") pos++;
        else if (text[pos] === "]") {
          pos++;
          return a;
        } else fail("',' or ']' expected");
      }
    }
    if (c === '"') return str();
    const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(
      text.slice(pos, pos + 64),
    );
    if (!m) return fail(c === undefined ? "unexpected end" : "unexpected character");
    pos += m[0].length;
    return JSON.parse(m[0]);
  };
  const v = value("", 0);
  ws();
  if (pos < text.length) fail("text after the end of the value");
  return { value: v, lines };
}

const typeName = (v: unknown) =>
  v === null ? "null" : Array.isArray(v) ? "an array" : typeof v === "object" ? "an object" : typeof v;

/** Did-you-mean for a mistyped key: a known key within two edits. */
function nearest(k: string, known: string[]): string | undefined {
  const dist = (a: string, b: string) => {
    const d = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
      let prev = d[0];
      d[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const t = d[j];
        d[j] = Math.min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
        prev = t;
      }
    }
    return d[b.length];
  };
  return known.find((x) => dist(k.toLowerCase(), x.toLowerCase()) <= 2);
}

/** Every problem of `v` against `shape`, as "path: what" with the path's line. */
export function problems(v: unknown, shape: Shape, path: string, lines: Map<string, number>): string[] {
  const at = (p: string, what: string) => {
    let q = p;
    // a missing key has no line of its own: the line of the object holding it
    while (!lines.has(q) && q) q = q.replace(/(\.[^.[]*|\[\d+\])$/, "");
    return `line ${lines.get(q) ?? 1}: ${p || "(top)"}: ${what}`;
  };
  switch (shape.kind) {
    case "string":
      if (typeof v !== "string")
        return [at(path, `expected ${shape.expected ?? "a string"}, got ${typeName(v)}`)];
      if (shape.oneOf && !shape.oneOf.includes(v)) {
        const near = nearest(v, [...shape.oneOf]);
        return [
          at(
            path,
            `expected one of ${shape.oneOf.join(", ")}, got ${short(v)}${near ? ` (did you mean ${near}?)` : ""}`,
          ),
        ];
      }
      if (shape.pattern && !shape.pattern.test(v))
        return [at(path, `expected ${shape.expected ?? `text matching ${shape.pattern}`}, got ${short(v)}`)];
      return [];
    case "number": {
      const what = `${shape.integer ? "a whole number" : "a number"}${shape.min !== undefined ? ` >= ${shape.min}` : ""}${shape.max !== undefined ? ` <= ${shape.max}` : ""}`;
      if (
        typeof v !== "number" ||
        (shape.integer && !Number.isInteger(v)) ||
        (shape.min !== undefined && v < shape.min) ||
        (shape.max !== undefined && v > shape.max)
      )
        return [at(path, `expected ${what}, got ${typeof v === "number" ? v : typeName(v)}`)];
      return [];
    }
    case "boolean":
      return typeof v === "boolean" ? [] : [at(path, `expected true or false, got ${typeName(v)}`)];
    case "array": {
      if (!Array.isArray(v)) return [at(path, `expected a list, got ${typeName(v)}`)];
      if (shape.min !== undefined && v.length < shape.min)
        return [at(path, `expected at least ${shape.min} item${shape.min === 1 ? "" : "s"}`)];
      if (shape.max !== undefined && v.length > shape.max)
        return [at(path, `expected at most ${shape.max} items`)];
      return v.flatMap((x, i) => problems(x, shape.items, `${path}[${i}]`, lines));
    }
    case "object": {
      if (typeof v !== "object" || v === null || Array.isArray(v))
        return [at(path, `expected an object, got ${typeName(v)}`)];
      const o = v as Record<string, unknown>;
      const out: string[] = [];
      const known = Object.keys(shape.keys);
      for (const k of Object.keys(o)) {
        if (shape.comments && k.startsWith("//")) continue;
        const p = path ? `${path}.${k}` : k;
        if (!Object.hasOwn(shape.keys, k)) {
          const near = nearest(k, known);
          out.push(at(p, `unknown key${near ? ` (did you mean ${near}?)` : ""}`));
        } else out.push(...problems(o[k], shape.keys[k], p, lines));
      }
      for (const k of shape.required ?? [])
        if (!Object.hasOwn(o, k)) out.push(at(path ? `${path}.${k}` : k, "missing"));
      return out;
    }
    case "map": {
      if (typeof v !== "object" || v === null || Array.isArray(v))
        return [at(path, `expected an object, got ${typeName(v)}`)];
      const entries = Object.entries(v as Record<string, unknown>).filter(
        ([k]) => !(shape.comments && k.startsWith("//")),
      );
      if (shape.min !== undefined && entries.length < shape.min)
        return [at(path, `expected at least ${shape.min} entr${shape.min === 1 ? "y" : "ies"}`)];
      return entries.flatMap(([k, x]) => {
        const p = path ? `${path}.${k}` : k;
        if (shape.keyPattern && !shape.keyPattern.test(k)) return [at(p, `invalid name ${short(k)}`)];
        return problems(x, shape.values, p, lines);
      });
    }
    case "either": {
      for (const s of shape.shapes) if (problems(v, s, path, lines).length === 0) return [];
      // the shape it resembles says more than "none of them"
      const like = shape.shapes.find((s) => sameKind(s, v));
      return like
        ? problems(v, like, path, lines)
        : [at(path, `expected ${shape.expected}, got ${typeName(v)}`)];
    }
  }
}

function sameKind(s: Shape, v: unknown): boolean {
  if (s.kind === "array") return Array.isArray(v);
  if (s.kind === "object" || s.kind === "map")
    return typeof v === "object" && v !== null && !Array.isArray(v);
  return typeof v === s.kind;
}

/** Reads `text` (from `file`) and checks it against `shape`: the value, or a UsageError listing every problem. */
export function checkJson<T>(text: string, file: string, shape: Shape): T {
  const { value, lines } = parseWithLines(text, file);
  const found = problems(value, shape, "", lines);
  if (found.length)
    throw new UsageError(`${file}: ${found[0]}`, {
      details: found.length > 1 ? found.slice(1).map((p) => `${file}: ${p}`) : undefined,
    });
  return value as T;
}
