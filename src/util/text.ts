/**
 * Small parsers and guards every layer uses: one duration parser, one whole-number parser, one
 * short-value printer, one JSON-object guard. Each throws UsageError naming what it read.
 */
import { UsageError } from "../errors/index.js";
import { JsonNumber } from "../json/lossless.js";

/**
 * A value for a message: JSON text cut to `max` characters. Never throws: a value too deep for
 * JSON.stringify is described by its type.
 */
export function short(v: unknown, max = 60): string {
  let s: string;
  try {
    s = typeof v === "string" ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
  } catch {
    s = Array.isArray(v) ? "an array" : typeof v === "object" ? "an object" : typeof v;
  }
  return s.length > max ? `${s.slice(0, max - 3)}...` : s;
}

/** A JSON object: not null, not an array, not a lossless number token. */
export const isJsonObject = (v: unknown): v is Record<string, never> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);

/** Node's timers hold at most 2^31-1 ms (24.8 days); a longer one fires at once (TimeoutOverflowWarning). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Seconds (decimal text or a number) → milliseconds. `min`: "zero" allows 0 (meaning none, where the
 * option says so), "positive" wants > 0. Above what a timer can hold it is refused, never shortened.
 */
export function parseDuration(
  name: string,
  v: string | number | undefined,
  fallbackS: number,
  min: "zero" | "positive" = "zero",
): number {
  if (v === undefined || v === "") return Math.round(fallbackS * 1000);
  const text = String(v).trim();
  const n = Number(text);
  const ok = text !== "" && Number.isFinite(n) && (min === "zero" ? n >= 0 : n > 0);
  if (!ok)
    throw new UsageError(
      `invalid ${name}: expected seconds ${min === "zero" ? ">= 0" : "> 0"}, got ${JSON.stringify(String(v))}`,
    );
  const ms = Math.round(n * 1000);
  if (ms > MAX_TIMER_MS)
    throw new UsageError(
      `invalid ${name}: ${text} seconds is longer than chaingw can wait (at most ${Math.floor(MAX_TIMER_MS / 1000)} s, 24.8 days)${min === "zero" ? "; 0 means no limit" : ""}`,
    );
  return ms;
}

/** A whole number from `lo` to `hi` (decimal digits only: "1e3", "0x10" and "1.0" are refused). */
export function parseWhole(
  name: string,
  v: string | number | undefined,
  fallback: number,
  lo: number,
  hi: number,
): number {
  if (v === undefined || v === "") return fallback;
  const text = String(v).trim();
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < lo || n > hi)
    throw new UsageError(
      `invalid ${name}: expected a whole number from ${lo} to ${hi}, got ${JSON.stringify(String(v))}`,
    );
  return n;
}

/**
 * A range of whole numbers, the same syntax everywhere: `A..B` (documented), also `A-B` and `A:B`; with
 * `single`, a lone `N` means `0..N`. Bounded: at most `maxSpan` numbers, ends below 2^31.
 */
export function parseRange(
  text: string,
  name: string,
  o: { maxSpan: number; single?: boolean; ordered?: boolean },
): [number, number] {
  const m = /^\s*(\d{1,10})\s*(?:(?:\.\.|-|:)\s*(\d{1,10})\s*)?$/.exec(text);
  const usage = `expected A..B${o.single ? " or N (0..N)" : ""}, like 100..5000`;
  if (!m || (m[2] === undefined && !o.single))
    throw new UsageError(`invalid ${name} ${JSON.stringify(text)}: ${usage}`);
  const r: [number, number] = m[2] === undefined ? [0, Number(m[1])] : [Number(m[1]), Number(m[2])];
  if (o.ordered && r[0] > r[1]) throw new UsageError(`invalid ${name} ${text}: the start is after the end`);
  if (Math.max(...r) >= 2 ** 31) throw new UsageError(`invalid ${name} ${text}: numbers end below 2^31`);
  if (Math.abs(r[1] - r[0]) >= o.maxSpan)
    throw new UsageError(
      `invalid ${name} ${text}: at most ${o.maxSpan.toLocaleString("en")} numbers per run`,
    );
  return r;
}
