/**
 * `chaingw batch`: JSON lines in, one JSON line per request out, in input order. Streams both ways with a
 * bounded window (concurrency × batch size), so memory stays flat whatever the number of requests.
 */
import { once } from "node:events";
import { closeSync, createReadStream, fstatSync, openSync, readSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import type { Context } from "../cli/context.js";
import { ChaingwError, errorPayload, RpcError, UsageError } from "../errors/index.js";
import {
  JsonNumber,
  type JsonObject,
  type JsonValue,
  parseLossless,
  stringifyLossless,
} from "../json/lossless.js";
import { definitions, isMethodName, pickDefinition, UNKNOWN_MARKS } from "../methods/index.js";
import { buildParams, jsonDepthExceeds, MAX_PARAM_DEPTH } from "../methods/params.js";
import type { Group, MethodDef } from "../methods/types.js";
import { type BatchEntry, type BatchOutcome, callBatch, markedCall } from "../rpc/client.js";
import { scrub } from "../util/redact.js";

export interface BatchOptions {
  concurrency: number;
  batchSize: number;
}

/** One request of the stream: either ready to send, or refused at parse time. */
export interface Item {
  id: string; // JSON text of the id echoed back
  entry?: BatchEntry;
  error?: ChaingwError;
  /** a second call made from the first one's result (range: height → getblockhash → method); not named `then`, which would make items thenables */
  followUp?: (hash: JsonValue) => BatchEntry;
  /** the method's result check (MethodDef.verify), unless --no-verify */
  verify?: MethodDef["verify"];
}

export interface Summary {
  ok: number;
  nodeErrors: number;
  badInput: number;
  transport: number;
}

function errorLine(id: string, e: ChaingwError): string {
  const err = errorPayload(e);
  // error lines go to stdout, past writeErr's scrub: an upstream echoing a key or password in its error must not print it
  return scrub(`{"id":${id},"error":${stringifyLossless(err)}}`);
}

/** The chain's checks on a result (EVM-compat block hash prefix), as for a single call. */
function verifyEntry(it: Item, r: { result: JsonValue }): ChaingwError | undefined {
  const v = it.verify;
  if (!v || !it.entry) return undefined;
  try {
    // only now is the result parsed (batch results are kept as text until someone needs the value)
    v(r.result, it.entry.params);
  } catch (e) {
    return e instanceof ChaingwError ? e : new ChaingwError(String(e));
  }
  return undefined;
}

/** JsonNumber → number for schema checks (registry params are small numbers; unknown methods keep tokens). */
function plain(v: JsonValue): unknown {
  if (v instanceof JsonNumber) return Number(v.raw);
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

/**
 * Registry methods take plain values (their params are checked as JS numbers anyway), so a line for one is
 * read with the native JSON.parse, several times faster than the lossless parser. The id is echoed from
 * its source token, so the fast path is only taken when that token is unambiguous: absent, null, a
 * string, or an integer written canonically. Anything else takes the lossless path.
 */
function fastLine(text: string, chain: Group | undefined): { v: JsonObject; def: MethodDef } | undefined {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!o || typeof o !== "object" || Array.isArray(o)) return undefined;
  const v = o as Record<string, unknown>;
  if (typeof v.method !== "string") return undefined;
  const def = pickDefinition(v.method, chain);
  if (!def) return undefined;
  const id = v.id;
  // a nested "id" key could be matched instead of the top-level one: such lines take the lossless path
  if (text.indexOf('"id"') !== text.lastIndexOf('"id"')) return undefined;
  if (typeof id === "number") {
    const m = /"id"\s*:\s*(-?\d{1,15})\s*[,}]/.exec(text);
    if (!m || m[1] !== String(id)) return undefined;
  } else if (!(id === undefined || id === null || typeof id === "string")) return undefined;
  return { v: v as JsonObject, def };
}

export function parseLine(text: string, lineNo: number, chain: Group | undefined): Item {
  // nesting deeper than the limit needs two characters a level: short lines cannot have it
  const fast =
    text.length > 2 * MAX_PARAM_DEPTH && jsonDepthExceeds(text) ? undefined : fastLine(text, chain);
  if (fast) {
    const { v, def } = fast;
    const id = v.id === undefined || v.id === null ? String(lineNo) : JSON.stringify(v.id);
    const params = v.params ?? [];
    if (!Array.isArray(params))
      return { id, error: new UsageError(`line ${lineNo}: params must be an array`) };
    return fromDefinition(def, params, id, lineNo, true);
  }
  let v: JsonValue;
  try {
    v = parseLossless(text, { maxDepth: MAX_PARAM_DEPTH });
  } catch (e) {
    return { id: String(lineNo), error: new UsageError(`line ${lineNo}: not JSON: ${(e as Error).message}`) };
  }
  if (!v || typeof v !== "object" || Array.isArray(v) || v instanceof JsonNumber) {
    return {
      id: String(lineNo),
      error: new UsageError(`line ${lineNo}: expected an object {"method":..,"params":[..]}`),
    };
  }
  const idv = v.id;
  const id =
    idv === undefined || idv === null
      ? String(lineNo)
      : typeof idv === "string" || idv instanceof JsonNumber
        ? stringifyLossless(idv)
        : String(lineNo);
  if (typeof v.method !== "string" || !isMethodName(v.method)) {
    return { id, error: new UsageError(`line ${lineNo}: method missing or not a method name`) };
  }
  const params = v.params ?? [];
  if (!Array.isArray(params)) return { id, error: new UsageError(`line ${lineNo}: params must be an array`) };
  const def = pickDefinition(v.method, chain);
  if (!def) {
    if (definitions(v.method).length)
      return {
        id,
        error: new UsageError(`line ${lineNo}: ${v.method} is not a method of the ${chain} group`),
      };
    // not in the registry: sent verbatim, with no marks
    return { id, entry: { method: v.method, params, marks: UNKNOWN_MARKS } };
  }
  return fromDefinition(def, params.map(plain), id, lineNo, false);
}

/** A line for a registry method: its params checked and built as on the command line, its marks. */
function fromDefinition(def: MethodDef, params: unknown[], id: string, lineNo: number, plain: boolean): Item {
  try {
    const built = buildParams(def, params, false);
    def.refine?.(built);
    return {
      id,
      entry: {
        method: def.name,
        params: built,
        marks: def.marks,
        plain: plain || undefined,
        long: def.longRunning?.(built),
      },
      verify: def.verify,
    };
  } catch (e) {
    return { id, error: new UsageError(`line ${lineNo}: ${e instanceof Error ? e.message : String(e)}`) };
  }
}

/** JSON-RPC namespaces of EVM clients (geth, erigon, reth, anvil, hardhat, L2s); bitcoind names have none */
const EVM_NAMESPACE =
  /^(eth|net|web3|debug|trace|txpool|anvil|evm|hardhat|erigon|parity|ots|admin|engine|personal|miner|rpc|bor|zks|arbtrace|clique|les|optimism|rollup|linea|starknet)_/;
/**
 * A method's group: the registry's (as a line picks it); for others the --chain given, else by namespace.
 * Arrays to bitcoind-family nodes (the utxo group; the default one) go on fresh connections: libevent
 * answers stall 40 ms on kept-alive ones (HttpOptions.fresh). EVM servers set TCP_NODELAY and keep theirs.
 */
const groupOf = (ctx: Context, method: string): Group =>
  pickDefinition(method, ctx.settings.chain)?.group ??
  ctx.settings.chain ??
  (EVM_NAMESPACE.test(method) ? "evm" : "utxo");
const wantsFresh = (ctx: Context, entries: BatchEntry[]) =>
  entries.some((e) => groupOf(ctx, e.method) === "utxo");

async function send(ctx: Context, entries: BatchEntry[], batchSize: number): Promise<BatchOutcome[]> {
  // heavy methods go one by one through the client's rate limiter; the rest in batch arrays
  const out: BatchOutcome[] = new Array(entries.length);
  const fresh = wantsFresh(ctx, entries);
  const light: number[] = [];
  const jobs: Promise<void>[] = [];
  const asError = (err: unknown) => (err instanceof ChaingwError ? err : new ChaingwError(String(err)));
  const { scanTimeoutMs } = ctx.settings;
  for (const [i, e] of entries.entries()) {
    if (!e.marks.heavy) {
      light.push(i);
      continue;
    }
    jobs.push(
      ctx.client.call(e.method, e.params, markedCall(e.marks, e.long, scanTimeoutMs)).then(
        (r) => {
          out[i] = r;
        },
        (err) => {
          out[i] = asError(err);
        },
      ),
    );
  }
  for (let k = 0; k < light.length; k += batchSize) {
    const idx = light.slice(k, k + batchSize);
    jobs.push(
      callBatch(
        ctx.client,
        idx.map((i) => entries[i]),
        { fresh },
      ).then((res) => {
        for (const [j, i] of idx.entries()) out[i] = res[j];
      }),
    );
  }
  await Promise.all(jobs);
  return out;
}

/**
 * One chunk's output lines as bytes: a result is copied from the bytes of the upstream's answer (a batch
 * of blocks is megabytes; decoding and re-encoding it was a third of chaingw's work), texts encoded once.
 */
class LineBytes {
  private readonly parts: (string | Uint8Array)[] = [];
  private size = 0;
  text(s: string): void {
    this.parts.push(s);
    this.size += Buffer.byteLength(s);
  }
  bytes(b: Uint8Array): void {
    this.parts.push(b);
    this.size += b.length;
  }
  toBuffer(): Buffer {
    const out = Buffer.allocUnsafe(this.size);
    let p = 0;
    for (const x of this.parts) {
      if (typeof x === "string") p += out.write(x, p);
      else {
        out.set(x, p);
        p += x.length;
      }
    }
    return out;
  }
}

/**
 * Keeps the heap at the window's size however long the run. V8 sizes its old generation to the machine
 * (gigabytes here), and requests in flight live long enough to be promoted there; so it collects rarely
 * and a run of 50,000 requests used twice the memory of 1,000 without holding more. When the heap and
 * the answers' buffers pass a bound, a full collection runs (a few ms on this small heap; none at all in
 * runs that stay under the bound). `gc` is V8's own, enabled at run time for this command only. The young
 * generation doubles up to 32 MB while allocation stays fast; it is held at 8 MB (same speed, measured:
 * 200,000 requests peak at 90 MB instead of 114).
 */
const MB = 1024 * 1024;
/** CHAINGW_BATCH_HEAP_MB: a number >= 0 (0: a collection after every chunk, for tests); else 24 */
function heapBound(): number {
  const text = process.env.CHAINGW_BATCH_HEAP_MB?.trim();
  const n = text ? Number(text) : Number.NaN;
  return (Number.isFinite(n) && n >= 0 ? n : 24) * MB;
}
const YOUNG_MAX = 8 * 1024 * 1024;
const heap = {
  gc: undefined as (() => void) | undefined,
  youngFixed: false,
  /** the bound now: raised above what a collection leaves, so a window larger than the base bound
   * (big blocks) does not collect after every chunk */
  bound: -1,
  /** the old generation (where promoted garbage waits) and the buffers; the young one is swept anyway */
  oldSize(v8: typeof import("node:v8")): number {
    let old = v8.getHeapStatistics().external_memory;
    for (const sp of v8.getHeapSpaceStatistics()) {
      if (sp.space_name === "old_space" || sp.space_name === "large_object_space") old += sp.space_used_size;
      // the young generation doubles while allocation stays fast (4 → 32 MB); at 8 MB it stops growing
      if (sp.space_name === "new_space" && !this.youngFixed && sp.space_size >= YOUNG_MAX) {
        v8.setFlagsFromString("--semi-space-growth-factor=1");
        this.youngFixed = true;
      }
    }
    return old;
  },
  check(): void {
    const v8 = require("node:v8") as typeof import("node:v8");
    if (this.bound < 0) this.bound = heapBound();
    if (this.oldSize(v8) < this.bound) return;
    if (!this.gc) {
      v8.setFlagsFromString("--expose-gc");
      this.gc = (require("node:vm") as typeof import("node:vm")).runInNewContext("gc") as () => void;
    }
    this.gc();
    // what survives is the window (and the program); let garbage reach half of it (8 MB at least) again
    const base = heapBound();
    const live = this.oldSize(v8);
    this.bound = base === 0 ? 0 : Math.max(base, live + Math.max(8 * MB, live / 2));
  },
};

/** Runs a stream of items through the client; writes lines in order; returns counts. */
export async function runItems(
  ctx: Context,
  items: AsyncIterable<Item[]>,
  opts: BatchOptions,
): Promise<Summary> {
  const summary: Summary = { ok: 0, nodeErrors: 0, badInput: 0, transport: 0 };
  const window: Promise<Buffer>[] = [];
  const tty = Boolean(process.stderr.isTTY);
  let done = 0;
  let lastProgress = 0;
  const write = async (s: Buffer) => {
    if (!process.stdout.write(s)) await once(process.stdout, "drain");
    heap.check();
  };

  const runChunk = async (chunk: Item[]): Promise<Buffer> => {
    const ready = chunk.filter((it) => it.entry);
    const res = await send(
      ctx,
      ready.map((it) => it.entry!),
      opts.batchSize,
    );
    // second phase for ranges: height → hash → the method itself
    const second = ready
      .map((it, i) => (it.followUp && !(res[i] instanceof Error) ? i : -1))
      .filter((i) => i >= 0);
    if (second.length) {
      const res2 = await send(
        ctx,
        second.map((i) => ready[i].followUp!((res[i] as { result: JsonValue }).result)),
        opts.batchSize,
      );
      for (const [j, i] of second.entries()) res[i] = res2[j];
    }
    let k = 0;
    const lines = new LineBytes();
    for (const it of chunk) {
      if (it.error) {
        summary.badInput++;
        lines.text(errorLine(it.id, it.error) + "\n");
        continue;
      }
      const r = res[k++];
      if (r instanceof Error) {
        if (r instanceof RpcError) summary.nodeErrors++;
        else summary.transport++;
        lines.text(errorLine(it.id, r) + "\n");
      } else {
        const bad = verifyEntry(it, r);
        if (bad) {
          summary.nodeErrors++;
          lines.text(errorLine(it.id, bad) + "\n");
          continue;
        }
        summary.ok++;
        const bytes = r.rawBytes;
        if (bytes) {
          lines.text(`{"id":${it.id},"result":`);
          lines.bytes(bytes);
          lines.text("}\n");
        } else lines.text(`{"id":${it.id},"result":${r.raw}}\n`);
      }
    }
    done += chunk.length;
    if (tty && Date.now() - lastProgress > 250) {
      lastProgress = Date.now();
      process.stderr.write(`\r\x1b[2Kchaingw batch: ${done} done`);
    }
    return lines.toBuffer();
  };

  let chunk: Item[] = [];
  // one array per chunk, `concurrency` chunks in flight: --concurrency is the number of requests out at once
  const chunkLen = opts.batchSize;
  const flushChunk = async () => {
    if (!chunk.length) return;
    window.push(runChunk(chunk));
    chunk = [];
    while (window.length >= opts.concurrency) await write(await window.shift()!);
  };
  // items come in blocks (an await per line, through two async generators, cost ~2 µs a line)
  for await (const block of items)
    for (const it of block) {
      chunk.push(it);
      if (chunk.length >= chunkLen) await flushChunk();
    }
  await flushChunk();
  while (window.length) await write(await window.shift()!);
  if (tty) process.stderr.write(`\r\x1b[2Kchaingw batch: ${done} done\n`);
  return summary;
}

/** Bytes read at a time from a regular file: bounds the lines (and items) held at once. */
const READ_CHUNK = 256 * 1024;

/**
 * Lines of a file or stdin, one block of lines per chunk read, so memory stays bounded whatever the
 * length. A regular file (also stdin redirected from one) is read with readSync, 256 KB at a time: the
 * stream machinery cost ~9 ms per MB here, readSync ~1.5. Pipes and terminals are streamed. Split by hand
 * on "\n" (a trailing "\r" is dropped): readline's per-line machinery cost ~10 ms per 10,000 lines.
 */
export async function* linesOf(path: string): AsyncIterable<string[]> {
  let fd = -1;
  let regular: boolean;
  try {
    fd = path === "-" ? 0 : openSync(path, "r");
    const st = fstatSync(fd);
    if (st.isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
    regular = st.isFile();
  } catch (e) {
    if (fd > 0) closeSync(fd);
    throw new UsageError(`batch: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? e}`);
  }
  // pieces of a line whose end has not been read yet (joined once it has: a long line costs no rescans)
  let pending: string[] = [];
  const split = (piece: string): string[] => {
    const block: string[] = [];
    let start = 0;
    for (let nl = piece.indexOf("\n"); nl >= 0; nl = piece.indexOf("\n", start)) {
      let line = piece.slice(start, nl);
      if (pending.length) {
        pending.push(line);
        line = pending.join("");
        pending = [];
      }
      block.push(line.endsWith("\r") ? line.slice(0, -1) : line);
      start = nl + 1;
    }
    if (start < piece.length) pending.push(piece.slice(start));
    return block;
  };
  if (regular) {
    const decoder = new StringDecoder("utf8");
    const buf = Buffer.allocUnsafe(READ_CHUNK);
    try {
      for (
        let r = readSync(fd, buf, 0, READ_CHUNK, null);
        r > 0;
        r = readSync(fd, buf, 0, READ_CHUNK, null)
      ) {
        const block = split(decoder.write(buf.subarray(0, r)));
        if (block.length) yield block;
      }
      const tail = decoder.end();
      if (tail) pending.push(tail);
    } finally {
      if (fd !== 0) closeSync(fd);
    }
  } else {
    // a pipe, FIFO or terminal: streamed from the descriptor already open (closing the only reader of a
    // FIFO would kill its writer)
    const input = fd === 0 ? process.stdin : createReadStream("", { fd, autoClose: true });
    input.setEncoding("utf8");
    for await (const chunk of input as AsyncIterable<string>) {
      const block = split(chunk);
      if (block.length) yield block;
    }
  }
  const last = pending.join("");
  if (last.length) yield [last.endsWith("\r") ? last.slice(0, -1) : last];
}

export async function* itemsFromLines(
  lines: AsyncIterable<string[]>,
  chain: Group | undefined,
): AsyncIterable<Item[]> {
  let n = 0;
  for await (const block of lines) {
    const items: Item[] = [];
    for (const line of block) {
      n++;
      const t = line.trim();
      if (!t || t.startsWith("#")) continue;
      items.push(parseLine(t, n, chain));
    }
    if (items.length) yield items;
  }
}

/** `--range a..b` over a method with a height/number parameter (registry: MethodDef.range), in blocks. */
export async function* itemsFromRange(
  def: MethodDef,
  from: number,
  to: number,
  rest: unknown[],
  verify: boolean,
): AsyncIterable<Item[]> {
  const r = def.range!;
  const step = from <= to ? 1 : -1;
  let block: Item[] = [];
  for (let h = from; step > 0 ? h <= to : h >= to; h += step) {
    block.push(
      "via" in r
        ? {
            id: String(h),
            entry: { method: r.via.method, params: [h], marks: r.via.marks },
            followUp: (hash) => ({ method: def.name, params: [hash, ...rest], marks: def.marks }),
          }
        : {
            id: String(h),
            entry: { method: def.name, params: [r.toParam(h), ...rest], marks: def.marks },
            verify: verify ? def.verify : undefined,
          },
    );
    if (block.length >= RANGE_BLOCK) {
      yield block;
      block = [];
    }
  }
  if (block.length) yield block;
}
const RANGE_BLOCK = 1000;

export function exitFor(s: Summary): number {
  if (s.badInput) return 2;
  if (s.transport) return 3;
  if (s.nodeErrors) return 1;
  return 0;
}
