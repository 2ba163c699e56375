/**
 * The requests of a batch run: JSON lines from a file or stdin, or the heights of a `--range`, each made
 * ready by the registry's one prepare step. Streams in blocks, so memory stays bounded.
 */
import { closeSync, createReadStream, fstatSync, openSync, readSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { type GroupName, groupOf } from "../chains/index.js";
import { type ChaingwError, UsageError } from "../errors/index.js";
import {
  JsonNumber,
  type JsonObject,
  type JsonValue,
  parseLossless,
  plainOf,
  stringifyLossless,
} from "../json/lossless.js";
import { definitions, isMethodName, pickDefinition } from "../methods/index.js";
import { jsonDepthExceeds, MAX_PARAM_DEPTH, paramsFromObject } from "../methods/params.js";
import { marksOf, type Prepared, prepare, prepareRaw } from "../methods/prepare.js";
import type { Marks, MethodDef } from "../methods/types.js";
import { isJsonObject } from "../util/text.js";

/** One request of the stream: either ready to send, or refused at parse time. */
export interface Item {
  id: string; // JSON text of the id echoed back
  entry?: Prepared;
  error?: ChaingwError;
  /** a second call made from the first one's result (range: height → getblockhash → method); not named `then`, which would make items thenables */
  followUp?: (hash: JsonValue) => Prepared;
  /** the method's result check (MethodDef.verify), unless --no-verify */
  verify?: MethodDef["verify"];
}

/**
 * Registry methods take plain values (their params are checked as JS numbers anyway), so a line for one is
 * read with the native JSON.parse, several times faster than the lossless parser. The id is echoed from
 * its source token, so the fast path is only taken when that token is unambiguous: absent, null, a
 * string, or an integer written canonically. Anything else takes the lossless path.
 */
function fastLine(text: string, chain: GroupName | undefined): { v: JsonObject; def: MethodDef } | undefined {
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

export function parseLine(text: string, lineNo: number, chain: GroupName | undefined): Item {
  // nesting deeper than the limit needs two characters a level: short lines cannot have it
  const fast =
    text.length > 2 * MAX_PARAM_DEPTH && jsonDepthExceeds(text) ? undefined : fastLine(text, chain);
  if (fast) {
    const { v, def } = fast;
    const id = v.id === undefined ? String(lineNo) : JSON.stringify(v.id);
    const byName = byNameParams(def, v.params, lineNo);
    if (byName && "error" in byName) return { id, error: byName.error };
    const params = byName ? byName.params : (v.params ?? []);
    if (!Array.isArray(params))
      return { id, error: new UsageError(`line ${lineNo}: params must be an array or an object of names`) };
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
  // the id echoed as given, whatever JSON it is (an object, null); only a line without one gets its number
  const id = v.id === undefined ? String(lineNo) : stringifyLossless(v.id);
  if (typeof v.method !== "string" || !isMethodName(v.method)) {
    return { id, error: new UsageError(`line ${lineNo}: method missing or not a method name`) };
  }
  const def = pickDefinition(v.method, chain);
  const byName = def ? byNameParams(def, v.params, lineNo) : undefined;
  if (byName && "error" in byName) return { id, error: byName.error };
  const params = byName ? byName.params : (v.params ?? []);
  if (!def && isJsonObject(params))
    // by-name params of a method outside the registry: sent as they are (JSON-RPC 2.0 §4.2)
    return { id, entry: prepareRaw(v.method, params as unknown as unknown[], chain) };
  if (!Array.isArray(params))
    return { id, error: new UsageError(`line ${lineNo}: params must be an array or an object of names`) };
  if (!def) {
    if (definitions(v.method).length)
      return {
        id,
        error: new UsageError(`line ${lineNo}: ${v.method} is not a method of the ${chain} group`),
      };
    // not in the registry: sent verbatim, with no marks
    return { id, entry: prepareRaw(v.method, params, chain) };
  }
  return fromDefinition(def, (params as JsonValue[]).map(plainOf), id, lineNo, false);
}

/** `"params": {"name": value}` of a registry method, in its positions; undefined when params is no object. */
function byNameParams(
  def: MethodDef,
  params: unknown,
  lineNo: number,
): { params: unknown[] } | { error: UsageError } | undefined {
  if (!isJsonObject(params)) return undefined;
  try {
    return { params: paramsFromObject(def, params) };
  } catch (e) {
    return { error: new UsageError(`line ${lineNo}: ${(e as Error).message}`) };
  }
}

/** A line for a registry method: its params checked and built as on the command line, its marks. */
function fromDefinition(def: MethodDef, params: unknown[], id: string, lineNo: number, plain: boolean): Item {
  try {
    return { id, entry: prepare(def, { params, plain: plain || undefined }) };
  } catch (e) {
    return { id, error: new UsageError(`line ${lineNo}: ${e instanceof Error ? e.message : String(e)}`) };
  }
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
  chain: GroupName | undefined,
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

/**
 * `--range a..b` over a method with a height/number parameter (registry: MethodDef.range), in blocks.
 * `verify`: the chain's result checks (MethodDef.verify), unless --no-verify.
 */
export async function* itemsFromRange(
  def: MethodDef,
  from: number,
  to: number,
  rest: unknown[],
  verify: boolean,
): AsyncIterable<Item[]> {
  const r = def.range!;
  const chain = groupOf(def.group);
  const viaMarks = "via" in r ? marksOf(r.via, def.group) : undefined;
  const step = from <= to ? 1 : -1;
  let block: Item[] = [];
  for (let h = from; step > 0 ? h <= to : h >= to; h += step) {
    block.push(
      "via" in r
        ? {
            id: String(h),
            entry: { method: r.via, params: [h], marks: viaMarks as Marks, chain },
            followUp: (hash) => ({ method: def.name, params: [hash, ...rest], marks: def.marks, chain }),
          }
        : {
            id: String(h),
            entry: { method: def.name, params: [r.toParam(h), ...rest], marks: def.marks, chain },
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
