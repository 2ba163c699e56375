/**
 * JSON text in pieces, for a value that holds a `LazyList` anywhere (a solvency report's rows of each asset):
 * the concatenation of the pieces is JSON.stringify(value, null, indent) — the same bytes —, and no piece holds
 * more than a block of a long list's elements, so the whole text never exists at once.
 */
import { LazyList } from "./lazy-list.js";

/** Elements of a lazy list written at a time. */
const BLOCK = 1000;

const isPlain = (v: unknown): v is Record<string, unknown> => {
  if (v === null || typeof v !== "object") return false;
  const p = Object.getPrototypeOf(v);
  return (p === Object.prototype || p === null) && !("toJSON" in v);
};

/** Whether `v` holds a lazy list (searched through plain objects and short arrays only). */
export function holdsLazy(v: unknown, depth = 0): boolean {
  if (v instanceof LazyList) return true;
  if (depth > 8) return false;
  if (Array.isArray(v)) return v.length <= BLOCK && v.some((x) => holdsLazy(x, depth + 1));
  if (isPlain(v)) return Object.values(v).some((x) => holdsLazy(x, depth + 1));
  return false;
}

/** Members and elements JSON.stringify leaves out of an object (in an array: null). */
const skipped = (v: unknown) => v === undefined || typeof v === "function" || typeof v === "symbol";

/**
 * `value`'s JSON text in pieces (`indent` 0: compact; 2: as JSON.stringify(value, null, 2)); undefined when it
 * holds no lazy list (JSON.stringify writes it whole).
 */
export function lazyJsonPieces(value: unknown, indent: 0 | 2): Iterable<string> | undefined {
  if (!holdsLazy(value)) return undefined;
  return pieces(value, indent, 0);
}

function* pieces(v: unknown, indent: 0 | 2, depth: number): Generator<string> {
  const pad = indent ? `\n${" ".repeat(indent * depth)}` : "";
  const inner = indent ? `\n${" ".repeat(indent * (depth + 1))}` : "";
  // a value holding no lazy list: JSON.stringify's own text, each of its lines one level further in (no
  // string of JSON holds a raw line break: every one is the indentation's)
  const whole = (x: unknown, at: number): string => {
    const t = JSON.stringify(x, null, indent) ?? "null";
    return indent && at ? t.replace(/\n/g, `\n${" ".repeat(indent * at)}`) : t;
  };
  if (v instanceof LazyList) {
    if (v.length === 0) {
      yield "[]";
      return;
    }
    yield "[";
    let block: unknown[] = [];
    let first = true;
    const flush = function* () {
      if (!block.length) return;
      const text = indent
        ? block.map((x) => inner + whole(x, depth + 1)).join(",")
        : (JSON.stringify(block) as string).slice(1, -1);
      yield (first ? "" : ",") + text;
      first = false;
      block = [];
    };
    for (const x of v) {
      block.push(x);
      if (block.length >= BLOCK) yield* flush();
    }
    yield* flush();
    yield `${first ? "" : pad}]`;
    return;
  }
  if (!holdsLazy(v)) {
    yield whole(v, depth);
    return;
  }
  const sep = indent ? ": " : ":";
  if (Array.isArray(v)) {
    yield "[";
    for (const [k, x] of v.entries()) {
      yield (k ? "," : "") + inner;
      if (skipped(x)) yield "null";
      else yield* pieces(x, indent, depth + 1);
    }
    yield `${pad}]`;
    return;
  }
  yield "{";
  let k = 0;
  for (const [name, x] of Object.entries(v as Record<string, unknown>)) {
    if (skipped(x)) continue;
    yield `${k++ ? "," : ""}${inner}${JSON.stringify(name)}${sep}`;
    yield* pieces(x, indent, depth + 1);
  }
  yield `${pad}}`;
}
