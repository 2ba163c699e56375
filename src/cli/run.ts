/**
 * The face's run: how to print (the output format, chosen once), the interrupt of this process as an
 * AbortSignal, what to say if the user interrupts, and the secrets seen. One object per process, created in
 * main.ts (no state at module level); kept light, since every start-up loads it. Settings and the client
 * come from context.ts, loaded when a command runs.
 */
import { setMaxListeners } from "node:events";
import { writeSync } from "node:fs";
import { Writable } from "node:stream";
import { type Format, isMachine } from "../output/format.js";
import { escapeJsonText, escapeTerminal } from "../util/escape.js";
import { Secrets } from "../util/redact.js";
import type { JsonArrayText } from "../util/spool.js";

/** Where a run writes: the process's streams, or a test's (commands run in-process with injected streams). */
export type OutStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/**
 * The process's stdout. Redirected to a file (`> report.json`, /dev/full), node's stream writes each chunk
 * with one write(2) and ignores a short one: on a disk that fills up, or past `ulimit -f`, the output was cut
 * and the run exited 0. This one writes until all is out or the system says why not (ENOSPC, EFBIG, EIO),
 * which reaches the stream's "error" handler of lifecycle.ts. A pipe and a terminal keep node's stream
 * (libuv finishes short writes itself).
 */
export function processStdout(): OutStream {
  const s = process.stdout as OutStream & { _type?: string; fd?: number };
  if (s._type !== "fs") return s;
  const fd = s.fd ?? 1;
  return new Writable({
    decodeStrings: true,
    write(chunk: Buffer, _enc, cb) {
      try {
        for (let at = 0; at < chunk.length; ) at += writeSync(fd, chunk, at, chunk.length - at);
      } catch (e) {
        return cb(e as Error);
      }
      cb();
    },
  });
}

export class Run {
  /** aborted on SIGINT/SIGTERM; the reason is the signal's name */
  readonly abort = new AbortController();
  /**
   * What an interrupt does now. `hint`: a line to print (e.g. how to stop a scan the node keeps running).
   * `handled`: the running command cleans up itself (reserves aborts its scan on the node). `facts`: what
   * a second interrupt reports in --json beside the hint (aborts sent, the endpoint). `again`: what a
   * second interrupt says it gave up (default: the reserves scan's "waiting for the node to confirm").
   */
  readonly interrupt: {
    hint?: string;
    handled?: boolean;
    facts?: Record<string, unknown>;
    again?: string;
  } = {};
  /** `--wait`: keep trying to reach the node for this long (ms; 0 = no limit) */
  wait?: { timeoutMs: number };
  /** the exit code a command that ends with a status of its own set (batch) */
  exitCode?: number;
  /** a progress line to take off the terminal before data is written to stdout */
  clearProgress?: () => void;
  /**
   * the local node the run's default endpoint is ("Dogecoin Core regtest in /path"), when no endpoint was
   * configured: an error that never reached it says which node chaingw looked for
   */
  localNode?: string;
  /** every secret this run has read: removed from anything it prints */
  readonly secrets = new Secrets();
  /** `--pretty`: JSON on stdout indented (2 spaces); compact without, whatever the command */
  pretty = false;

  constructor(
    readonly format: Format,
    readonly env: NodeJS.ProcessEnv = process.env,
    readonly stdout: OutStream = processStdout(),
    readonly stderr: OutStream = process.stderr,
  ) {
    // every request in flight listens on it: a batch with --concurrency 16 is not a listener leak
    setMaxListeners(0, this.abort.signal);
  }

  get machine(): boolean {
    return isMachine(this.format);
  }

  /**
   * A line of diagnostics on stderr, secrets scrubbed, control characters from files and nodes escaped
   * (chaingw's own colours kept); a spinner on the same terminal is taken off first.
   */
  err(text: string): void {
    this.clearProgress?.();
    this.stderr.write(escapeTerminal(this.secrets.scrub(text)) + "\n");
  }

  /** A value as the JSON text of this run: compact, or indented with `--pretty`. */
  json(value: unknown): string {
    return JSON.stringify(value, null, this.pretty ? 2 : 0);
  }

  /**
   * A command's data on stdout in the run's format, chosen here once: `value` as this run's JSON with a
   * machine format, else `human()`, the text for a person (called only then, so its rendering costs nothing
   * under `--json`).
   */
  print(value: unknown, human: () => string): void {
    if (!this.machine) {
      this.out(human());
      return;
    }
    const pieces = this.format !== "json" ? undefined : this.pretty ? prettyPieces(value) : jsonPieces(value);
    if (!pieces) {
      this.out(this.json(value));
      return;
    }
    // a report of 100,000 rows is ~65 MB of JSON: written in pieces, its whole text (and the bytes it is
    // written as) never exists at once. The same bytes as JSON.stringify's, escaped as out() escapes them
    this.clearProgress?.();
    for (const piece of pieces) this.stdout.write(typeof piece === "string" ? escapeJsonText(piece) : piece);
    this.stdout.write("\n");
  }

  /**
   * Several records of one kind, chosen here as `print` does: with a machine format one compact JSON line
   * each (JSON Lines, which `--pretty` cannot indent), else `human(record)` each, one after the other.
   */
  printLines<T>(records: readonly T[], human: (record: T) => string): void {
    this.out(records.map((r) => (this.machine ? JSON.stringify(r) : human(r))).join("\n"));
  }

  /**
   * A line for the reader beside the data — a run's summary, a note, a warning — on stderr: the text, or
   * with a machine format one JSON object, `{"summary":{"message":text,...facts}}` (with `--json`, stderr
   * holds JSON lines only: errors, summaries, notes).
   */
  tell(kind: "summary" | "note" | "warning", text: string, facts: Record<string, unknown> = {}): void {
    if (!this.machine) {
      this.err(text);
      return;
    }
    this.clearProgress?.();
    const line = JSON.stringify({ [kind]: { message: text, ...facts } });
    this.stderr.write(escapeJsonText(this.secrets.scrub(line)) + "\n");
  }

  /**
   * Text on stdout in pieces (each whole lines, or ending between two), escaped as `out` escapes it: the
   * same bytes as `out` of their concatenation, which never exists at once (a CSV of 100,000 rows). A piece
   * of bytes was escaped so when it was made (a spool's, src/util/spool.ts) and is written as it is.
   */
  outPieces(pieces: Iterable<string | Uint8Array>): void {
    this.clearProgress?.();
    const json = this.format === "json" || this.format === "jsonl";
    let endsLine = false;
    for (const p of pieces) {
      if (!p.length) continue;
      const safe = typeof p !== "string" ? p : json ? escapeJsonText(p) : escapeTerminal(p);
      this.stdout.write(safe);
      endsLine = typeof safe === "string" ? safe.endsWith("\n") : safe[safe.length - 1] === 0x0a;
    }
    if (!endsLine) this.stdout.write("\n");
  }

  /**
   * Data on stdout (a line), after any progress line is taken off the terminal. Whatever a renderer missed,
   * no control character from a file or a node reaches the reader raw: JSON's strings get `\uXXXX` escapes
   * for the characters JSON.stringify leaves (the same values), other text gets `\x1b`-style escapes with
   * lines, tabs and chaingw's own colours kept.
   */
  out(text: string): void {
    this.clearProgress?.();
    const safe =
      this.format === "json" || this.format === "jsonl" ? escapeJsonText(text) : escapeTerminal(text);
    this.stdout.write(safe.endsWith("\n") ? safe : safe + "\n");
  }
}

/** A member whose array text was made elsewhere (a spooled report's rows): written as it was made. */
const isArrayText = (v: unknown): v is JsonArrayText =>
  typeof v === "object" && v !== null && typeof (v as Partial<JsonArrayText>).jsonArrayText === "function";

/** Elements of one array written at a time by {@link jsonPieces}. */
const PIECE = 1000;

/**
 * A plain object holding a long array (more than {@link PIECE} elements) as compact JSON text in pieces —
 * each member, a long array's elements a block at a time — whose concatenation is JSON.stringify(value);
 * undefined for any other value (it is written whole).
 */
function jsonPieces(value: unknown): Iterable<string | Uint8Array> | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  if (Object.getPrototypeOf(value) !== Object.prototype || "toJSON" in value) return undefined;
  const members = Object.entries(value as Record<string, unknown>);
  if (!members.some(([, v]) => isArrayText(v) || (Array.isArray(v) && v.length > PIECE))) return undefined;
  return (function* () {
    let sep = "{";
    for (const [k, v] of members) {
      // members JSON.stringify leaves out
      if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
      const head = `${sep}${JSON.stringify(k)}:`;
      sep = ",";
      if (isArrayText(v)) {
        // an array made elsewhere as it came (src/util/spool.ts): its elements' text as it was written
        yield `${head}[`;
        yield* v.jsonArrayText();
        yield "]";
        continue;
      }
      if (!Array.isArray(v) || v.length <= PIECE || "toJSON" in v) {
        yield head + JSON.stringify(v);
        continue;
      }
      yield `${head}[`;
      for (let i = 0; i < v.length; i += PIECE) {
        const block: string[] = [];
        for (let j = i; j < Math.min(v.length, i + PIECE); j++) block.push(JSON.stringify(v[j]) ?? "null");
        yield (i ? "," : "") + block.join(",");
      }
      yield "]";
    }
    yield sep === "{" ? "{}" : "}";
  })();
}

/**
 * `--pretty` of a plain object holding an array made elsewhere as it came (a spooled report's rows, made
 * indented: `JsonArraySpool` with `pretty`): its text in pieces, each other member indented as
 * JSON.stringify(value, null, 2) indents it — the same bytes, never all at once; undefined for any other value.
 */
function prettyPieces(value: unknown): Iterable<string | Uint8Array> | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  if (Object.getPrototypeOf(value) !== Object.prototype || "toJSON" in value) return undefined;
  const members = Object.entries(value as Record<string, unknown>);
  if (!members.some(([, v]) => isArrayText(v))) return undefined;
  return (function* () {
    let sep = "{";
    for (const [k, v] of members) {
      // members JSON.stringify leaves out
      if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
      const head = `${sep}\n  ${JSON.stringify(k)}: `;
      sep = ",";
      if (!isArrayText(v)) {
        // a member's own text one level in: no string holds a raw line break, every one is the indentation's
        yield head + (JSON.stringify(v, null, 2) as string).replace(/\n/g, "\n  ");
        continue;
      }
      // its elements as they were written, each on its own lines four spaces in; an empty array as []
      let opened = false;
      for (const p of v.jsonArrayText()) {
        if (!p.length) continue;
        if (!opened) yield `${head}[`;
        opened = true;
        yield p;
      }
      yield opened ? "\n  ]" : `${head}[]`;
    }
    yield sep === "{" ? "{}" : "\n}";
  })();
}
