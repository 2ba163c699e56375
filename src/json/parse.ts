/**
 * The lossless JSON parser: every value built, numbers as {@link JsonNumber}, the source span of a
 * top-level object's members kept (so a member is echoed byte for byte, `rawMember`), and on request a
 * repeated member name refused with its path (`duplicates: "reject"`: I-JSON forbids them, and readers
 * disagree on which wins — the proof readers use it).
 */
import { Cursor } from "./cursor.js";
import { JsonDuplicateMember, JsonNumber, type JsonObject, type JsonValue } from "./value.js";

/** Source span [start, end) of each member value of a top-level object (a JSON-RPC answer's `result`). */
const spans = new WeakMap<object, Record<string, [number, number]>>();

export interface ParseOptions {
  /** Deepest nesting accepted; a hostile body cannot blow the stack. @default 256 */
  maxDepth?: number;
  /**
   * "reject": a member name repeated in its object throws {@link JsonDuplicateMember} naming its path.
   * @default "last" (the last one wins, as JSON.parse)
   */
  duplicates?: "last" | "reject";
  /** Keep the line (1-based) each member name stands on, for {@link memberLine}. @default false */
  lines?: boolean;
}

/** The line each member name of an object stands on, when parsed with `lines: true`. */
const keyLines = new WeakMap<object, Record<string, number>>();

/** The line (1-based) of the member `key` of `obj` in the text {@link parseLossless} read it from (`lines: true`). */
export const memberLine = (obj: object, key: string): number | undefined => keyLines.get(obj)?.[key];

const NUMBER_RE = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

export function parseLossless(text: string, opts: ParseOptions = {}): JsonValue {
  const cur = new Cursor(text, opts.maxDepth ?? 256);
  const n = text.length;
  // the path to the value being read, kept only when repeated names are refused
  const trail: (string | number)[] | undefined = opts.duplicates === "reject" ? [] : undefined;
  // lines counted forward as member names are met (they come in text order): O(n) over the whole text
  let linePos = 0;
  let line = 1;
  const lineAt = (pos: number): number => {
    for (; linePos < pos; linePos++) if (text.charCodeAt(linePos) === 10) line++;
    return line;
  };
  const pathOf = (t: (string | number)[]) =>
    t.map((x, i) => (typeof x === "number" ? `[${x}]` : i ? `.${x}` : x)).join("");

  const parseString = (): string => {
    // cur.pos is at the opening quote
    let pos = cur.pos + 1;
    let start = pos;
    let out = "";
    const fail = (what: string): never => {
      cur.pos = pos;
      return cur.fail(what);
    };
    while (pos < n) {
      const c = text.charCodeAt(pos);
      if (c === 34) {
        out += text.slice(start, pos);
        cur.pos = pos + 1;
        return out;
      }
      if (c === 92) {
        out += text.slice(start, pos);
        const e = text[pos + 1];
        pos += 2;
        switch (e) {
          case '"':
            out += '"';
            break;
          case "\\":
            out += "\\";
            break;
          case "/":
            out += "/";
            break;
          case "b":
            out += "\b";
            break;
          case "f":
            out += "\f";
            break;
          case "n":
            out += "\n";
            break;
          case "r":
            out += "\r";
            break;
          case "t":
            out += "\t";
            break;
          case "u": {
            const hex = text.slice(pos, pos + 4);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail("bad unicode escape");
            out += String.fromCharCode(Number.parseInt(hex, 16));
            pos += 4;
            break;
          }
          default:
            pos -= 2;
            fail("bad escape");
        }
        start = pos;
        continue;
      }
      if (c < 32) fail("control character in string");
      pos++;
    }
    return fail("unterminated string");
  };

  const parseValue = (depth: number): JsonValue => {
    cur.ws();
    if (cur.pos >= n) cur.fail("value expected");
    const c = text.charCodeAt(cur.pos);
    if (c === 123 /* { */) {
      const obj: JsonObject = {};
      const record: Record<string, [number, number]> | undefined = depth === 0 ? {} : undefined;
      const lines: Record<string, number> | undefined = opts.lines ? {} : undefined;
      if (!cur.open(depth, 125)) {
        do {
          cur.key();
          const at = cur.pos;
          const key = parseString();
          if (lines) lines[key] = lineAt(at);
          cur.colon();
          const start = cur.pos;
          if (trail && Object.hasOwn(obj, key))
            throw new JsonDuplicateMember(pathOf([...trail, key]), key, at);
          trail?.push(key);
          const v = parseValue(depth + 1);
          trail?.pop();
          if (record) record[key] = [start, cur.pos];
          if (key === "__proto__")
            Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true });
          else obj[key] = v;
        } while (cur.more(125));
      }
      if (record) spans.set(obj, record);
      if (lines) keyLines.set(obj, lines);
      return obj;
    }
    if (c === 91 /* [ */) {
      const arr: JsonValue[] = [];
      if (!cur.open(depth, 93)) {
        do {
          trail?.push(arr.length);
          arr.push(parseValue(depth + 1));
          trail?.pop();
        } while (cur.more(93));
      }
      return arr;
    }
    if (c === 34) return parseString();
    for (const [word, value] of LITERALS) {
      if (text.startsWith(word, cur.pos)) {
        cur.pos += word.length;
        return value;
      }
    }
    NUMBER_RE.lastIndex = cur.pos;
    const m = NUMBER_RE.exec(text);
    if (m) {
      cur.pos += m[0].length;
      return new JsonNumber(m[0]);
    }
    return cur.fail("unexpected character");
  };

  const v = parseValue(0);
  cur.ws();
  if (cur.pos !== n) cur.fail("trailing characters after JSON");
  return v;
}

const LITERALS: [string, JsonValue][] = [
  ["true", true],
  ["false", false],
  ["null", null],
];

/** The exact source text of `obj[key]`, when `obj` came from {@link parseLossless} of `source`. */
export function rawMember(source: string, obj: object, key: string): string | undefined {
  const s = spans.get(obj)?.[key];
  return s ? source.slice(s[0], s[1]) : undefined;
}
