/**
 * The one escape of text from files and nodes (proofs, signature files, node answers) on its way to a
 * reader: a terminal (`escapeTerminal`, at the Run's stdout and stderr), a renderer's lines
 * (`escapeUnprintable`, `quoted`, `escapeDeep` over a report), an HTML page (html.ts's `esc`), JSON
 * (`escapeJsonText`). One notation, JSON's `\uXXXX`. No imports: the Run of every start-up loads it.
 */

/**
 * Characters that never reach a terminal, a page or a JSON reader raw from a file or a node: the C0 controls
 * (ESC starts the sequences that move the cursor and repaint the screen; "\r" then "customer bob: 1 BTC
 * included" paints another line), DEL, the C1 controls (0x9b is a CSI on its own in some terminals), the
 * bidirectional marks, embeddings, overrides and isolates (they reorder what is shown), the line and
 * paragraph separators, and the characters that show nothing (soft hyphen, Arabic letter mark, Mongolian
 * vowel separator, zero-width space, non-joiner and joiner, word joiner and invisible operators, BOM): a
 * commitment's challenge "audit X" + U+200B was printed as "audit X", another text to every signature.
 */
export const UNPRINTABLE =
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/u;
const UNPRINTABLE_ALL = new RegExp(UNPRINTABLE.source, "gu");

/** Every {@link UNPRINTABLE} character of `s` as a JSON-style `\uXXXX` escape (the output holds none). */
export const escapeUnprintable = (s: string): string =>
  s.replace(UNPRINTABLE_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** Text from a file, in double quotes, `"` and `\` and every {@link UNPRINTABLE} character escaped JSON-style. */
export const quoted = (s: string): string => escapeUnprintable(JSON.stringify(s));

/** What marks a `LazyList` (util/lazy-list.ts), known here without importing it. */
export const LAZY_LIST = Symbol.for("chaingw.lazy-list");

/**
 * Every string of a report (values and keys, at any depth) through {@link escapeUnprintable}, for a renderer
 * that prints them among its own lines. Arrays and plain objects are copied; anything else (numbers,
 * bigints, lossless number tokens, dates) is kept; a lazy list's elements are escaped as they are made.
 */
export function escapeDeep<T>(v: T): T {
  if (typeof v === "string") return escapeUnprintable(v) as T;
  if (Array.isArray(v)) return v.map(escapeDeep) as T;
  if (v === null || typeof v !== "object") return v;
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null)
    // a list made as it is read (util/lazy-list.ts): its elements escaped as they are made
    return (v as Record<symbol, unknown>)[LAZY_LIST] === true
      ? ((v as unknown as { map(f: (x: unknown) => unknown): unknown }).map(escapeDeep) as T)
      : v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[escapeUnprintable(k)] = escapeDeep(x);
  return out as T;
}

/** The SGR sequences chaingw's own renderers colour with (cyan, dim, red, green, grey, their resets). */
const OWN_SGR = /^\x1b\[(?:2|22|31|32|36|39|90)m$/;
const TERMINAL =
  /\x1b\[[0-9;]*m|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/**
 * Text for a terminal: lines and tabs kept, chaingw's own colours kept, every other control character
 * escaped — a forged escape sequence that slipped past the renderers cannot move the cursor, clear the
 * screen, hide text or set a title.
 */
export function escapeTerminal(text: string): string {
  return text.replace(TERMINAL, (m) => (OWN_SGR.test(m) ? m : escapeUnprintable(m)));
}

const JSON_UNSAFE =
  /[\u001b\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
/** the same characters, for a test (no lastIndex kept between calls) */
const JSON_UNSAFE_ANY = new RegExp(JSON_UNSAFE.source);

/**
 * JSON text whose strings carry no raw DEL, C1, bidirectional or separator characters (JSON.stringify
 * escapes only U+0000-U+001F): each becomes its `\uXXXX` escape, the same value to any JSON reader. These
 * characters stand only inside strings in valid JSON, so the text outside them is untouched.
 */
export function escapeJsonText(text: string): string {
  // most text has none: looked for first, the text given back as it is (a report's rows are 35 MB)
  if (!JSON_UNSAFE_ANY.test(text)) return text;
  return text.replace(JSON_UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
