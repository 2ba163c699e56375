/**
 * The span scanner: the source spans of members found without building any value (a node's answer: only
 * its `result` is wanted, as bytes; a batch answer of 10,000 results is sliced, not parsed). Every token is
 * checked as the parser checks it.
 */
import { Cursor, isDigit, isWs, syntax } from "./cursor.js";
import { JsonSyntaxError } from "./value.js";

/**
 * The source spans of the members of each object in a top-level JSON array, found without building any
 * value: a batch answer of 10,000 block headers is sliced, not parsed (building it cost ~200 ms of parse
 * and garbage collection per 10,000 results). Values are parsed on demand from their slices. Throws
 * {@link JsonSyntaxError} on malformed text; returns undefined when the text is valid-looking but not an
 * array of objects.
 */
export function scanObjectArray(
  text: string,
  maxDepth = 256,
): Record<string, [number, number]>[] | undefined {
  const cur = new Cursor(text, maxDepth);
  const n = text.length;
  const skip = new Skipper(text, n, maxDepth, controlsIn(text));
  cur.ws();
  if (text.charCodeAt(cur.pos) !== 91) return undefined;
  const out: Record<string, [number, number]>[] = [];
  if (!cur.open(0, 93))
    do {
      cur.ws();
      if (text.charCodeAt(cur.pos) !== 123) return undefined;
      out.push(objectSpans(cur, skip, 1));
    } while (cur.more(93));
  cur.ws();
  if (cur.pos !== n) cur.fail("trailing characters after JSON");
  return out;
}

/**
 * One pass for all control characters: compact answers (as nodes send them, bitcoind with a final "\n")
 * have none before their trailing whitespace, and then neither the forbidden ones nor line breaks inside
 * strings need looking for (false). Throws on one JSON allows nowhere.
 */
function controlsIn(text: string): boolean {
  const first = text.search(CONTROL);
  const controls = first >= 0 && !ONLY_WS.test(text.slice(first));
  if (controls) {
    const at = text.slice(first).search(NEVER_IN_JSON);
    if (at >= 0) throw new JsonSyntaxError(`control character at position ${first + at}`, first + at);
  }
  return controls;
}

/** The members of the object whose "{" is at the cursor: name → source span of its value. */
function objectSpans(cur: Cursor, skip: Skipper, depth: number): Record<string, [number, number]> {
  const text = cur.text;
  const members: Record<string, [number, number]> = {};
  if (!cur.open(depth, 125)) {
    do {
      cur.key();
      const ks = cur.pos;
      cur.pos = skip.stringEnd(ks);
      const key = text.slice(ks + 1, cur.pos - 1);
      cur.colon();
      const vs = cur.pos;
      cur.pos = skip.valueEnd(vs, depth + 1);
      members[key] = [vs, cur.pos];
    } while (cur.more(125));
  }
  return members;
}

/**
 * The source spans of a top-level object's members, found without building any value (a node's answer:
 * only its `result` is wanted, as bytes). Every token is checked as {@link scanObjectArray} does; a member
 * name with an escape is left to the full parser (undefined), as is text that is not an object.
 */
export function scanObject(text: string, maxDepth = 256): Record<string, [number, number]> | undefined {
  const n = text.length;
  const cur = new Cursor(text, maxDepth);
  const skip = new Skipper(text, n, maxDepth, controlsIn(text));
  cur.ws();
  if (text.charCodeAt(cur.pos) !== 123) return undefined;
  const members = objectSpans(cur, skip, 0);
  cur.ws();
  if (cur.pos !== n) cur.fail("trailing characters after JSON");
  for (const k in members) if (k.includes("\\")) return undefined;
  return members;
}

/** JSON's escapes after a backslash: " \\ / b f n r t (u is checked apart) */
const ESCAPE_OK = new Uint8Array(128);
for (const c of '"\\/bfnrt') ESCAPE_OK[c.charCodeAt(0)] = 1;
const HEX4 = /^[0-9a-fA-F]{4}$/;
const CONTROL = /[\x00-\x1f]/;
const ONLY_WS = /^[\t\n\r ]*$/;
/** characters JSON allows nowhere, in strings or out */
const NEVER_IN_JSON = /[\x00-\x08\x0b\x0c\x0e-\x1f]/;
/** whitespace outside strings, forbidden inside */
const LINE_CHAR = /[\t\n\r]/g;

/**
 * Skips JSON values without building them, every token checked. Strings are crossed from quote to quote
 * by indexOf; the next backslash and the next tab/line break are found once and remembered (the scan only
 * moves forward), so a string without either costs one indexOf and two comparisons.
 */
class Skipper {
  private nextBs = -1;
  private nextLine: number;
  constructor(
    readonly text: string,
    readonly n: number,
    readonly maxDepth: number,
    /** false when the text has no control character at all: no line break to look for */
    controls = true,
  ) {
    this.nextLine = controls ? -1 : Infinity;
  }

  private backslashFrom(pos: number): number {
    if (this.nextBs !== Infinity && this.nextBs < pos) {
      const i = this.text.indexOf("\\", pos);
      this.nextBs = i < 0 ? Infinity : i;
    }
    return this.nextBs;
  }
  private lineCharFrom(pos: number): number {
    if (this.nextLine !== Infinity && this.nextLine < pos) {
      LINE_CHAR.lastIndex = pos;
      const m = LINE_CHAR.exec(this.text);
      this.nextLine = m ? m.index : Infinity;
    }
    return this.nextLine;
  }

  /** Just past the string whose opening quote is at `pos`, each escape checked. */
  stringEnd(pos: number): number {
    const { text, n } = this;
    let from = pos + 1;
    let q = -1;
    for (;;) {
      if (q < from) q = text.indexOf('"', from);
      if (q < 0) return syntax("unterminated string", n, n);
      const bs = this.backslashFrom(from);
      const stop = Math.min(bs, q);
      if (this.lineCharFrom(from) < stop) return syntax("control character in string", this.nextLine, n);
      if (bs > q) return q + 1;
      const e = text.charCodeAt(bs + 1);
      if (e === 117 /* u */) {
        if (!HEX4.test(text.slice(bs + 2, bs + 6))) return syntax("bad unicode escape", bs, n);
        from = bs + 6;
      } else if (e < 128 && ESCAPE_OK[e]) from = bs + 2;
      else return syntax("bad escape", bs, n);
    }
  }

  /** Just past a number or literal at `pos`, checked against the JSON grammar without slicing it. */
  tokenEnd(pos: number): number {
    const { text, n } = this;
    const c = text.charCodeAt(pos);
    if (c === 116 /* t */ || c === 102 /* f */ || c === 110 /* n */) {
      const word = c === 116 ? "true" : c === 102 ? "false" : "null";
      if (text.startsWith(word, pos)) return pos + word.length;
      return syntax("value expected", pos, n);
    }
    let p = pos;
    if (text.charCodeAt(p) === 45) p++;
    const d0 = text.charCodeAt(p);
    if (d0 === 48) p++;
    else if (d0 >= 49 && d0 <= 57) {
      p++;
      while (isDigit(text.charCodeAt(p))) p++;
    } else return syntax("value expected", pos, n);
    if (text.charCodeAt(p) === 46) {
      p++;
      if (!isDigit(text.charCodeAt(p))) return syntax("value expected", pos, n);
      while (isDigit(text.charCodeAt(p))) p++;
    }
    const e = text.charCodeAt(p);
    if (e === 101 || e === 69) {
      p++;
      const sign = text.charCodeAt(p);
      if (sign === 43 || sign === 45) p++;
      if (!isDigit(text.charCodeAt(p))) return syntax("value expected", pos, n);
      while (isDigit(text.charCodeAt(p))) p++;
    }
    // `1.2.3`, `12abc`: a number must end where a value may end
    const next = text.charCodeAt(p);
    if (p < n && !(next === 44 || next === 125 || next === 93 || isWs(next)))
      return syntax("value expected", p, n);
    return p;
  }

  /**
   * Just past the JSON value starting at `pos` (whitespace before it allowed): one loop with a stack of
   * closing brackets instead of a call per value. `depth` is the value's nesting level (maxDepth bounds it).
   */
  valueEnd(pos: number, depth: number): number {
    const { text, n } = this;
    const closers: number[] = [];
    // states: 0 = a value is expected, 1 = a value just ended, 2 = an object key is expected
    let state = 0;
    for (;;) {
      let c = text.charCodeAt(pos);
      while (isWs(c)) c = text.charCodeAt(++pos);
      if (pos >= n) return syntax("value expected", pos, n);
      if (state === 2) {
        if (c !== 34) return syntax("object key expected", pos, n);
        pos = this.stringEnd(pos);
        c = text.charCodeAt(pos);
        while (isWs(c)) c = text.charCodeAt(++pos);
        if (c !== 58) return syntax("':' expected", pos, n);
        pos++;
        state = 0;
        continue;
      }
      if (state === 1) {
        const close = closers[closers.length - 1];
        if (c === 44) {
          pos++;
          state = close === 125 ? 2 : 0;
          continue;
        }
        if (c === close) {
          pos++;
          closers.pop();
          if (closers.length === 0) return pos;
          continue;
        }
        return syntax(close === 125 ? "',' or '}' expected" : "',' or ']' expected", pos, n);
      }
      // state 0: a value
      if (c === 34) pos = this.stringEnd(pos);
      else if (c === 123 || c === 91) {
        if (depth + closers.length >= this.maxDepth)
          throw new JsonSyntaxError(`JSON nested deeper than ${this.maxDepth} levels`, pos);
        const close = c === 123 ? 125 : 93;
        pos++;
        let d = text.charCodeAt(pos);
        while (isWs(d)) d = text.charCodeAt(++pos);
        if (d === close) pos++;
        else {
          closers.push(close);
          state = close === 125 ? 2 : 0;
          continue;
        }
      } else pos = this.tokenEnd(pos);
      if (closers.length === 0) return pos;
      state = 1;
    }
  }
}

/** Whether `text` is exactly one JSON value, every token checked as the scanner checks it (no whitespace around). */
export function isJsonValueText(text: string, maxDepth = 256): boolean {
  if (text.length === 0 || isWs(text.charCodeAt(0)) || isWs(text.charCodeAt(text.length - 1))) return false;
  try {
    return new Skipper(text, text.length, maxDepth, controlsIn(text)).valueEnd(0, 1) === text.length;
  } catch {
    return false;
  }
}
