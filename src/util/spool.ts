/**
 * Text written once and read back once, in order, without holding it all: kept in memory up to a bound, then
 * in a temporary file (unlinked as soon as it is open where the system allows, else removed by `close()` or
 * when the process exits). What a long report's rows are while
 * the verdict that heads the report is still being reached (`reserves verify --json` of an address file).
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { escapeJsonText } from "./escape.js";

/** Characters kept in memory before the text goes to a file. */
const IN_MEMORY = 1 << 20;
/** Bytes read back at a time. */
const CHUNK = 1 << 20;

const open = new Set<TextSpool>();
let hooked = false;

export class TextSpool {
  private parts: string[] = [];
  private held = 0;
  private dir?: string;
  private fd?: number;

  constructor(private readonly prefix = "chaingw-spool-") {}

  append(text: string): void {
    if (this.fd === undefined) {
      this.parts.push(text);
      this.held += text.length;
      if (this.held <= IN_MEMORY) return;
      this.toFile();
      return;
    }
    writeSync(this.fd, text);
  }

  private toFile(): void {
    this.dir = mkdtempSync(join(tmpdir(), this.prefix));
    this.fd = openSync(join(this.dir, "text"), "w+", 0o600);
    // removed at once where the system lets an open file go (POSIX): read through its descriptor, nothing is
    // left behind even by a process killed mid-run (out of memory, SIGKILL); elsewhere at close() or exit
    try {
      rmSync(this.dir, { recursive: true, force: true });
      this.dir = undefined;
    } catch {
      // kept, and removed by close()
    }
    open.add(this);
    if (!hooked) {
      hooked = true;
      process.once("exit", () => {
        for (const s of open) s.close();
      });
    }
    for (const p of this.parts) writeSync(this.fd, p);
    this.parts = [];
    this.held = 0;
  }

  /**
   * The text written, as its UTF-8 bytes in pieces of about a mebibyte, each a buffer of its own: what is
   * written to stdout as it is, with no decoding to text and encoding back (a 100,000-row report's 65 MB).
   */
  *bytes(): Generator<Buffer> {
    if (this.fd === undefined) {
      for (const p of this.parts) yield Buffer.from(p);
      return;
    }
    for (let at = 0; ; ) {
      const buf = Buffer.allocUnsafe(CHUNK);
      const n = readSync(this.fd, buf, 0, CHUNK, at);
      if (n === 0) break;
      at += n;
      yield buf.subarray(0, n);
    }
  }

  /** The text written, line by line (each without its "\n"; a last line without one too). */
  *lines(): Generator<string> {
    const dec = new StringDecoder("utf8");
    let rest = "";
    const split = function* (text: string) {
      const all = rest + text;
      const cut = all.lastIndexOf("\n");
      if (cut < 0) {
        rest = all;
        return;
      }
      rest = all.slice(cut + 1);
      yield* all.slice(0, cut).split("\n");
    };
    for (const b of this.bytes()) yield* split(dec.write(b));
    yield* split(dec.end());
    if (rest) yield rest;
  }

  /** The file (if any) closed and removed; the text gone. */
  close(): void {
    this.parts = [];
    if (this.fd !== undefined) closeSync(this.fd);
    if (this.dir !== undefined) rmSync(this.dir, { recursive: true, force: true });
    this.fd = undefined;
    this.dir = undefined;
    open.delete(this);
  }
}

/**
 * An array's JSON text made elsewhere (`JsonArraySpool`), written by `Run.print` in pieces: a string piece is
 * escaped as it is written (`escapeJsonText`), a piece of bytes was escaped when it was made and is written as
 * it is.
 */
export interface JsonArrayText {
  /** the elements' JSON texts, comma-joined, in pieces (no brackets) */
  jsonArrayText(): Iterable<string | Uint8Array>;
}

/**
 * A JSON array whose elements are turned into text as they come, escaped as `Run.print` escapes JSON text
 * (`escapeJsonText`: per character, so a piece's escaping is the whole's) and spooled (`TextSpool`): the same
 * bytes as JSON.stringify of the array written by `Run.print`, given back as bytes; never a value for
 * JSON.stringify itself.
 */
export class JsonArraySpool implements JsonArrayText {
  private readonly spool = new TextSpool("chaingw-json-");
  private n = 0;

  /**
   * `pretty`: the elements as JSON.stringify(report, null, 2) writes those of an array that is a member of the
   * report (the top object): each on a new line four spaces in, its own lines too (`Run.print` with --pretty)
   */
  constructor(private readonly pretty = false) {}

  push(values: readonly unknown[]): void {
    if (!values.length) return;
    // the array's text without its brackets: its elements' texts comma-joined (an element JSON has no text
    // for is null), made by one JSON.stringify, not a string per element joined again and copied once more
    const text = this.pretty
      ? values
          .map((v) => `\n    ${(JSON.stringify(v, null, 2) ?? "null").replace(/\n/g, "\n    ")}`)
          .join(",")
      : JSON.stringify(values).slice(1, -1);
    if (this.n) this.spool.append(",");
    this.spool.append(escapeJsonText(text));
    this.n += values.length;
  }

  get length(): number {
    return this.n;
  }

  jsonArrayText(): Iterable<Uint8Array> {
    return this.spool.bytes();
  }

  toJSON(): never {
    throw new Error("a spooled JSON array is written in pieces (Run.print), not through JSON.stringify");
  }

  close(): void {
    this.spool.close();
  }
}

/** Several arrays' texts as one array's: their elements in order (`JsonArraySpool`s written one after another). */
export function joinedArrays(parts: readonly JsonArraySpool[]): JsonArrayText {
  return {
    *jsonArrayText() {
      let first = true;
      for (const p of parts) {
        if (!p.length) continue;
        if (!first) yield ",";
        first = false;
        yield* p.jsonArrayText();
      }
    },
  };
}
