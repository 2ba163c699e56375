/**
 * Small parsers and guards every layer uses: one duration parser, one whole-number parser, one
 * short-value printer, one JSON-object guard. Each throws UsageError naming what it read.
 */
import { UsageError } from "../errors/index.js";
import { JsonNumber } from "../json/lossless.js";
import { escapeUnprintable } from "./escape.js";

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
  s = escapeUnprintable(s);
  return s.length > max ? `${s.slice(0, max - 3)}...` : s;
}

/**
 * A JSON object: not null, not an array, not a lossless number token, and not an error (a node's error
 * answer, an RpcError in a batch's outcomes, is no object of the answer: getblockheader's error for an
 * unknown block was once read as the header).
 */
export const isJsonObject = (v: unknown): v is Record<string, never> =>
  typeof v === "object" &&
  v !== null &&
  !Array.isArray(v) &&
  !(v instanceof JsonNumber) &&
  !(v instanceof Error);

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

const SPAN_UNITS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;
/** The longest span a DURATION may give: ten years, in seconds. */
const MAX_SPAN_S = 3650 * 86_400;

/**
 * A span of time given with its unit — `90s`, `45m`, `24h`, `7d` — in seconds (for a bound between two
 * dates, not a timer). A bare number, a fraction or another unit is refused naming the option.
 */
export function parseSpan(name: string, v: string): number {
  const m = /^(\d{1,10})([smhd])$/.exec(v);
  const n = m ? Number(m[1]) * SPAN_UNITS[m[2] as keyof typeof SPAN_UNITS] : Number.NaN;
  if (!(n <= MAX_SPAN_S))
    throw new UsageError(
      `invalid ${name}: expected a whole number with its unit s, m, h or d (like 24h), at most 3650d, got ${JSON.stringify(v)}`,
    );
  return n;
}

/** Seconds as the largest unit and the next (a zero left out): "45 s", "12 min 5 s", "3 h", "2 d 3 h". */
export function spanText(seconds: number): string {
  const units = [
    ["d", 86_400],
    ["h", 3600],
    ["min", 60],
    ["s", 1],
  ] as const;
  const rest = Math.abs(Math.round(seconds));
  const top = units.findIndex(([, size]) => rest >= size);
  if (top < 0) return "0 s";
  const [u, size] = units[top]!;
  const out = [`${Math.floor(rest / size)} ${u}`];
  const next = units[top + 1];
  const r = next ? Math.floor((rest % size) / next[1]) : 0;
  if (next && r) out.push(`${r} ${next[0]}`);
  return out.join(" ");
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

/** Edit distance (insert, delete, substitute, swap of neighbours), for did-you-mean. */
export function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.length][b.length];
}

/**
 * The candidates close to `word` (case ignored), best first: a typo or two in a long name, one in a short
 * one; a candidate that contains the word whole (`blockcount` → `getblockcount`) counts as close too.
 */
export function suggest(word: string, candidates: Iterable<string>, max = 3): string[] {
  const w = word.toLowerCase();
  if (w.length > 100) return [];
  const scored: [string, number][] = [];
  for (const c of new Set(candidates)) {
    const l = c.toLowerCase();
    const d = distance(w, l);
    const limit = Math.max(1, Math.floor(w.length / 4));
    if (d <= limit) scored.push([c, d]);
    else if (w.length >= 5 && l.includes(w)) scored.push([c, limit + 1]);
  }
  return scored
    .sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]))
    .slice(0, max)
    .map(([c]) => c);
}

/** An argument as a POSIX shell reads it back: bare when safe, else in single quotes. */
export const shellQuote = (s: string): string =>
  /^[A-Za-z0-9_./:=@,+%^-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Text wrapped at `width` columns, breaking only at spaces (a word longer than the line stays whole on
 * a line of its own); continuation lines start with `indent`. Existing line breaks are kept.
 */
export function wrapWords(text: string, width: number, indent = ""): string {
  const out: string[] = [];
  for (const para of text.split("\n")) {
    const lead = /^\s*/.exec(para)?.[0] ?? "";
    const words = para.trim().split(/ +/).filter(Boolean);
    if (words.length === 0) {
      out.push("");
      continue;
    }
    let line = lead + words[0];
    const cont = lead + indent;
    for (const w of words.slice(1)) {
      if (line.length + 1 + w.length > width) {
        out.push(line);
        line = cont + w;
      } else line += ` ${w}`;
    }
    out.push(line);
  }
  return out.join("\n");
}

/** The one escape of text from files and nodes lives in escape.ts; its two helpers are read here too. */
export { escapeUnprintable, quoted, UNPRINTABLE } from "./escape.js";

/** Unix seconds as an RFC 3339 time without fractions ("2026-11-28T16:00:00Z"). */
export const isoOf = (s: number): string => new Date(s * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");

/**
 * How far past the auditor's clock liabilities' date may be before it is "in the future": the two hours a
 * block's time may run ahead of the network's (Bitcoin Core's MAX_FUTURE_BLOCK_TIME).
 */
export const CREATED_AHEAD_S = 7200;

/**
 * Liabilities dated after the auditor's clock (beyond CREATED_AHEAD_S) cannot have been counted then: the
 * fault's text naming them (`what`) and their date, or undefined. One rule for chaingw's commitments and an
 * exchange's root (--liabilities-date).
 */
export function aheadOfClock(what: string, date: string, dateS: number, now: Date): string | undefined {
  const nowS = Math.floor(now.getTime() / 1000);
  return dateS > nowS + CREATED_AHEAD_S
    ? `${what} is dated ${date}, ${spanText(dateS - nowS)} after this computer's clock (${isoOf(nowS)}): liabilities cannot have been counted then`
    : undefined;
}
