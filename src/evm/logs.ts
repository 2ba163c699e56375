/**
 * eth_getLogs over a block range of any length: windows in block order; when the upstream answers that a
 * window is too large (its own words, from the one table in src/rpc/limits.ts), that window is halved and
 * asked again; after a run of successes the window grows again. Logs are handed on window by window, so
 * memory holds one answer at a time however many logs the range has. An interrupt stops between windows
 * (or aborts the one in flight) and the summary says where to resume.
 */
import type { ChainGroup } from "../chains/index.js";
import { IntegrityError, InterruptedError, RpcError, UsageError } from "../errors/index.js";
import { type JsonValue, parseLossless } from "../json/lossless.js";
import { prepare, prepareRaw, send } from "../methods/prepare.js";
import type { MethodDef } from "../methods/types.js";
import type { JsonRpcClient } from "../rpc/client.js";
import { logLimitOf } from "../rpc/limits.js";
import { newHeapTuner } from "../util/heap.js";
import { isJsonObject } from "../util/text.js";

/**
 * Defaults: a first window small enough that a dense range does not arrive as one huge answer (it
 * doubles after each sparse answer), and answers kept near the common 10,000-log cap of providers.
 */
export const LOGS_DEFAULTS = { window: 100, maxWindow: 100_000, targetLogs: 2_000 };

export interface LogsOptions {
  /** the registry's eth_getLogs of the chain group */
  def: MethodDef;
  /** the filter without its range: address, topics */
  filter: Record<string, unknown>;
  /** block numbers or tags; tags are read from the node once, at the start */
  fromBlock: string;
  toBlock: string;
  /** blocks in the first window @default 100 */
  window?: number;
  /** the widest window after growing @default 100000 */
  maxWindow?: number;
  /** a window answering more logs than this is followed by a narrower one @default 10000 */
  targetLogs?: number;
  scanTimeoutMs: number;
}

export type LogsEvent =
  | { kind: "range"; from: bigint; to: bigint }
  /** the last block asked is beyond the head read at the start: the range ends at that head */
  | { kind: "clamp"; asked: bigint; head: bigint }
  | { kind: "window"; from: bigint; to: bigint; logs: number; total: number }
  | { kind: "split"; from: bigint; to: bigint; why: string; who: string };

export interface LogsSummary {
  from: bigint;
  to: bigint;
  logs: number;
  requests: number;
  splits: number;
  /** the first block not yet done (to + 1 when the range is complete) */
  next: bigint;
  /** stopped by an interrupt before the end */
  interrupted: boolean;
}

const hex = (n: bigint) => `0x${n.toString(16)}`;

/** A block tag or number → a number, asking the node for tags. */
async function blockNumberOf(
  client: JsonRpcClient,
  chain: ChainGroup,
  v: string,
  o: LogsOptions,
): Promise<bigint> {
  if (/^0x[0-9a-f]+$/i.test(v)) return BigInt(v);
  if (v === "earliest") return 0n;
  const req =
    v === "latest" && chain.tip
      ? prepareRaw(chain.tip.method, [], chain.name)
      : prepareRaw("eth_getBlockByNumber", [v, false], chain.name);
  const r = await send(client, req, { scanTimeoutMs: o.scanTimeoutMs });
  const n = isJsonObject(r.result) ? (r.result as Record<string, JsonValue>).number : r.result;
  if (typeof n !== "string" || !/^0x[0-9a-f]+$/i.test(n))
    throw new IntegrityError(
      `eth_getLogs: the node did not say which block "${v}" is (answered ${r.raw.slice(0, 80)})`,
    );
  return BigInt(n);
}

/**
 * The range as block numbers: two numbers the wrong way round refused before anything is sent; tags asked
 * of the node; a number past the head clamped to the head read now (nodes refuse the windows beyond it,
 * anvil's BlockOutOfRangeError, where one eth_getLogs over the same range answers every log there is); a
 * range that starts past the head (or past what a tag names) refused (it printed nothing, exit 0).
 */
async function rangeOf(
  client: JsonRpcClient,
  chain: ChainGroup,
  o: LogsOptions,
  onEvent: (e: LogsEvent) => void,
): Promise<{ from: bigint; to: bigint }> {
  const numbered = /^0x[0-9a-f]+$/i.test(o.fromBlock) && /^0x[0-9a-f]+$/i.test(o.toBlock);
  if (numbered && BigInt(o.fromBlock) > BigInt(o.toBlock))
    throw new UsageError(
      `${o.def.name}: --from-block ${BigInt(o.fromBlock)} is after --to-block ${BigInt(o.toBlock)}: no block to read`,
      { hint: "give the lower block first: --from-block LOW --to-block HIGH" },
    );
  const from = await blockNumberOf(client, chain, o.fromBlock, o);
  let to = await blockNumberOf(client, chain, o.toBlock, o);
  let clamped = false;
  if (/^0x[0-9a-f]+$/i.test(o.toBlock)) {
    const head = await blockNumberOf(client, chain, "latest", o);
    if (to > head) {
      if (from <= head) onEvent({ kind: "clamp", asked: to, head });
      clamped = true;
      to = head;
    }
  }
  if (from > to) {
    const named = (flag: string, v: string, n: bigint) =>
      `${flag} ${/^0x/i.test(v) ? n : `${v} (block ${n})`}`;
    throw new UsageError(
      `${o.def.name}: ${named("--from-block", o.fromBlock, from)} is after ${clamped ? `the head (block ${to})` : named("--to-block", o.toBlock, to)}: no block to read`,
      { hint: `the chain's head is block ${to}: give an earlier --from-block` },
    );
  }
  return { from, to };
}

/** A window's answer read: a list of logs, each of a block inside the window (an upstream that ignores the range would repeat logs in the next window). */
function windowLogs(raw: string, lo: bigint, hi: bigint): JsonValue[] {
  const logs = parseLossless(raw);
  if (!Array.isArray(logs))
    throw new IntegrityError(`eth_getLogs: blocks ${lo}..${hi}: the answer is not a list of logs`);
  for (const l of logs) {
    const bn = isJsonObject(l) ? (l as Record<string, JsonValue>).blockNumber : undefined;
    if (typeof bn === "string" && /^0x[0-9a-f]+$/i.test(bn)) {
      const b = BigInt(bn);
      if (b < lo || b > hi)
        throw new IntegrityError(
          `eth_getLogs: asked for blocks ${lo}..${hi}, the upstream answered a log of block ${b}`,
        );
    }
  }
  return logs;
}

/**
 * Streams the logs of [fromBlock, toBlock]: `onLogs` gets each window's logs in order (and is awaited,
 * so a slow reader slows the requests, not the memory).
 */
export async function streamLogs(
  client: JsonRpcClient,
  o: LogsOptions,
  onLogs: (logs: JsonValue[]) => Promise<void> | void,
  onEvent: (e: LogsEvent) => void,
  signal?: AbortSignal,
): Promise<LogsSummary> {
  const chain = prepare(o.def, { params: [{}] }).chain;
  const { from, to } = await rangeOf(client, chain, o, onEvent);
  const s: LogsSummary = { from, to, logs: 0, requests: 0, splits: 0, next: from, interrupted: false };
  onEvent({ kind: "range", from, to });
  const maxWindow = BigInt(o.maxWindow ?? LOGS_DEFAULTS.maxWindow);
  const target = o.targetLogs ?? LOGS_DEFAULTS.targetLogs;
  let size = BigInt(Math.max(1, o.window ?? LOGS_DEFAULTS.window));
  let streak = 0;
  // a span the upstream refused as too many blocks: growing never reaches it again
  let ceiling = maxWindow;
  let lo = from;
  // each window's answer is garbage once printed: keep the heap at one window's size (see util/heap.ts)
  const heap = newHeapTuner();
  while (lo <= to) {
    if (signal?.aborted) return { ...s, next: lo, interrupted: true };
    const hi = lo + size - 1n < to ? lo + size - 1n : to;
    const req = prepare(o.def, { params: [{ ...o.filter, fromBlock: hex(lo), toBlock: hex(hi) }] });
    let raw: string;
    s.requests++;
    try {
      raw = (await send(client, req, { scanTimeoutMs: o.scanTimeoutMs })).raw;
    } catch (e) {
      if (signal?.aborted || e instanceof InterruptedError) return { ...s, next: lo, interrupted: true };
      const limit = e instanceof RpcError ? logLimitOf(e.rpcMessage) : undefined;
      if (!limit || !(e instanceof RpcError)) throw e;
      if (hi === lo)
        throw new RpcError(
          e.code,
          e.rpcMessage,
          e.data,
          e.endpoint,
          `${e.endpoint}: eth_getLogs: the upstream refuses even the single block ${lo}: ${e.rpcMessage}`,
        );
      // halve the window and ask for its first half again
      if (limit.kind === "range" && hi - lo < ceiling) ceiling = hi - lo;
      size = (hi - lo + 1n) / 2n;
      streak = 0;
      s.splits++;
      onEvent({ kind: "split", from: lo, to: hi, why: e.rpcMessage, who: limit.who });
      continue;
    }
    const logs = windowLogs(raw, lo, hi);
    await onLogs(logs);
    heap.check();
    s.logs += logs.length;
    s.next = hi + 1n;
    onEvent({ kind: "window", from: lo, to: hi, logs: logs.length, total: s.logs });
    lo = hi + 1n;
    // keep answers near the target: narrower after a dense window, wider after a sparse one (after a
    // refusal only once two windows in a row went through, so a result-count limit is not hit at once)
    if (logs.length > target && size > 1n) {
      const fit = (size * BigInt(target)) / BigInt(logs.length);
      size = fit < 1n ? 1n : fit;
      streak = 0;
    } else if (++streak >= (s.splits ? 2 : 1) && logs.length * 2 <= target && size < ceiling) {
      size = size * 2n > ceiling ? ceiling : size * 2n;
      streak = 0;
    }
  }
  return s;
}
