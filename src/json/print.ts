/** The lossless JSON printer: number tokens as parsed ({@link JsonNumber}), bigints exact. */
import { JsonNumber } from "./value.js";

/** JSON text of a value, number tokens as parsed; `indent` > 0 pretty-prints. */
export function stringifyLossless(value: unknown, indent = 0): string {
  // plain values (most request params: strings, numbers from the command line) need no walk of our own;
  // the native printer writes them the same way, several times faster (10,000 scan objects: 0.3 vs 3 ms)
  if (value !== undefined && !holdsLossless(value)) return JSON.stringify(value, null, indent);
  const out: string[] = [];
  const pad = (level: number) => (indent ? "\n" + " ".repeat(indent * level) : "");
  const walk = (v: unknown, level: number): void => {
    if (v === null || v === undefined) out.push("null");
    else if (v instanceof JsonNumber) out.push(v.raw);
    else if (typeof v === "bigint") out.push(v.toString());
    else if (typeof v === "number") out.push(Number.isFinite(v) ? String(v) : "null");
    else if (typeof v === "string" || typeof v === "boolean") out.push(JSON.stringify(v));
    else if (Array.isArray(v)) {
      if (v.length === 0) return void out.push("[]");
      out.push("[");
      v.forEach((e, i) => {
        if (i) out.push(",");
        out.push(pad(level + 1));
        walk(e, level + 1);
      });
      out.push(pad(level), "]");
    } else if (typeof v === "object") {
      const entries = Object.entries(v as object).filter(([, e]) => e !== undefined);
      if (entries.length === 0) return void out.push("{}");
      out.push("{");
      entries.forEach(([k, e], i) => {
        if (i) out.push(",");
        out.push(pad(level + 1), JSON.stringify(k), indent ? ": " : ":");
        walk(e, level + 1);
      });
      out.push(pad(level), "}");
    } else out.push("null");
  };
  walk(value, 0);
  return out.join("");
}

/** Whether a value holds anything the native JSON printer would get wrong: a JsonNumber or a bigint. */
function holdsLossless(v: unknown, depth = 0): boolean {
  if (typeof v === "bigint" || v instanceof JsonNumber) return true;
  if (v === null || typeof v !== "object") return false;
  if (depth > 200) return true; // let the walk handle (and bound) whatever this is
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const e = v[i];
      if (typeof e === "object" || typeof e === "bigint" ? holdsLossless(e, depth + 1) : false) return true;
    }
    return false;
  }
  for (const k in v) if (holdsLossless((v as Record<string, unknown>)[k], depth + 1)) return true;
  return false;
}
