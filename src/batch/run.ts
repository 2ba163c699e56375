/**
 * `chaingw batch` as a workflow: a stream of ready requests in, one JSON line per request out (handed to
 * `write`, in input order), a summary back. A bounded window (concurrency × batch size) keeps memory flat
 * whatever the number of requests. Nothing here prints or knows the command line.
 */
import {
  asChaingwError,
  type ChaingwError,
  errorPayload,
  exitCodeOf,
  RpcError,
  worstExit,
} from "../errors/index.js";
import { type JsonValue, stringifyLossless } from "../json/lossless.js";
import type { Prepared } from "../methods/prepare.js";
import { callOptionsOf } from "../methods/prepare.js";
import { type BatchOutcome, callBatch } from "../rpc/batch.js";
import type { JsonRpcClient } from "../rpc/client.js";
import { newHeapTuner } from "../util/heap.js";
import type { Item } from "./input.js";

export type { Item } from "./input.js";

export interface BatchOptions {
  /** requests (or arrays) in flight at once */
  concurrency: number;
  /** requests per JSON-RPC batch array; 1 = single calls */
  batchSize: number;
  /** bound of long-running requests (scantxoutset start) */
  scanTimeoutMs: number;
  /**
   * Removes secrets from error lines (they go to stdout): an upstream echoing a key or password in its
   * error must not print it. @default no change
   */
  scrub?: (text: string) => string;
}

export interface Summary {
  ok: number;
  nodeErrors: number;
  badInput: number;
  transport: number;
  /** failures by cause (the error's message), most frequent first when listed */
  causes: Map<string, number>;
  /** the run's exit code, from the errors' own codes */
  exitCode: number;
}

export interface BatchProgress {
  done: number;
  ok: number;
  failed: number;
}

function errorLine(id: string, e: ChaingwError, scrub: (t: string) => string): string {
  return scrub(`{"id":${id},"error":${stringifyLossless(errorPayload(e))}}`);
}

/** The chain's checks on a result (EVM-compat block hash prefix), as for a single call. */
function verifyEntry(it: Item, r: { result: JsonValue }): ChaingwError | undefined {
  const v = it.verify ?? it.entry?.def?.verify;
  if (!v || !it.entry) return undefined;
  try {
    // only now is the result parsed (batch results are kept as text until someone needs the value)
    v(r.result, it.entry.params);
  } catch (e) {
    return asChaingwError(e);
  }
  return undefined;
}

async function send(client: JsonRpcClient, entries: Prepared[], o: BatchOptions): Promise<BatchOutcome[]> {
  // heavy methods go one by one through the client's rate limiter; the rest in batch arrays
  const out: BatchOutcome[] = new Array(entries.length);
  // arrays to bitcoind-family nodes go on connections of their own (src/chains/types.ts)
  const fresh = entries.some((e) => e.chain.freshConnectionsForArrays);
  const light: number[] = [];
  const jobs: Promise<void>[] = [];
  for (const [i, e] of entries.entries()) {
    if (!e.marks.heavy) {
      light.push(i);
      continue;
    }
    jobs.push(
      client.call(e.method, e.params, callOptionsOf(e, o.scanTimeoutMs)).then(
        (r) => {
          out[i] = r;
        },
        (err) => {
          out[i] = err as ChaingwError;
        },
      ),
    );
  }
  for (let k = 0; k < light.length; k += o.batchSize) {
    const idx = light.slice(k, k + o.batchSize);
    jobs.push(
      callBatch(
        client,
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

/** A chunk sent: its entries in one array, then for ranges the second phase (height → hash → the method). */
async function sendChunk(client: JsonRpcClient, chunk: Item[], opts: BatchOptions) {
  const ready = chunk.filter((it) => it.entry);
  const res = await send(
    client,
    ready.map((it) => it.entry!),
    opts,
  );
  const second = ready
    .map((it, i) => (it.followUp && !(res[i] instanceof Error) ? i : -1))
    .filter((i) => i >= 0);
  if (second.length) {
    const res2 = await send(
      client,
      second.map((i) => ready[i].followUp!((res[i] as { result: JsonValue }).result)),
      opts,
    );
    for (const [j, i] of second.entries()) res[i] = res2[j];
  }
  return res;
}

/** The counts and causes of a run, and each failure's exit code (the worst is the run's). */
class Tally {
  readonly summary: Summary = {
    ok: 0,
    nodeErrors: 0,
    badInput: 0,
    transport: 0,
    causes: new Map(),
    exitCode: 0,
  };
  private readonly codes = new Set<number>();
  failed(e: ChaingwError): void {
    this.codes.add(exitCodeOf(e));
    this.summary.causes.set(e.message, (this.summary.causes.get(e.message) ?? 0) + 1);
  }
  end(): Summary {
    this.summary.exitCode = worstExit(this.codes);
    return this.summary;
  }
}

/** A chunk's output lines from its answers (`res`: one per item that had an entry), each counted. */
function chunkLines(
  chunk: Item[],
  res: Awaited<ReturnType<typeof sendChunk>>,
  tally: Tally,
  scrub: (t: string) => string,
): Buffer {
  const { summary } = tally;
  let k = 0;
  const lines = new LineBytes();
  const fail = (id: Item["id"], e: ChaingwError) => {
    tally.failed(e);
    lines.text(errorLine(id, e, scrub) + "\n");
  };
  for (const it of chunk) {
    if (it.error) {
      summary.badInput++;
      fail(it.id, it.error);
      continue;
    }
    const r = res[k++];
    if (r instanceof Error) {
      if (r instanceof RpcError) summary.nodeErrors++;
      else summary.transport++;
      fail(it.id, r);
      continue;
    }
    const bad = verifyEntry(it, r);
    if (bad) {
      summary.nodeErrors++;
      fail(it.id, bad);
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
  return lines.toBuffer();
}

/**
 * Runs a stream of items through the client; hands each chunk's lines, in order, to `write` (which may
 * wait, e.g. for a slow reader); reports progress after each chunk; returns the counts and causes.
 */
export async function runItems(
  client: JsonRpcClient,
  items: AsyncIterable<Item[]>,
  opts: BatchOptions,
  write: (lines: Buffer) => void | Promise<void>,
  onProgress: (p: BatchProgress) => void = () => {},
): Promise<Summary> {
  const tally = new Tally();
  const window: Promise<Buffer>[] = [];
  const heap = newHeapTuner();
  const scrub = opts.scrub ?? ((t: string) => t);
  let done = 0;
  const flush = async (b: Buffer) => {
    await write(b);
    heap.check();
  };
  const runChunk = async (chunk: Item[]): Promise<Buffer> => {
    const lines = chunkLines(chunk, await sendChunk(client, chunk, opts), tally, scrub);
    done += chunk.length;
    onProgress({ done, ok: tally.summary.ok, failed: done - tally.summary.ok });
    return lines;
  };

  let chunk: Item[] = [];
  // one array per chunk, `concurrency` chunks in flight: --concurrency is the number of requests out at once
  const flushChunk = async () => {
    if (!chunk.length) return;
    window.push(runChunk(chunk));
    chunk = [];
    while (window.length >= opts.concurrency) await flush(await window.shift()!);
  };
  // items come in blocks (an await per line, through two async generators, cost ~2 µs a line)
  for await (const block of items)
    for (const it of block) {
      chunk.push(it);
      if (chunk.length >= opts.batchSize) await flushChunk();
    }
  await flushChunk();
  while (window.length) await flush(await window.shift()!);
  return tally.end();
}
