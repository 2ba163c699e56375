/**
 * `chaingw reserves scan|status|abort`: the orchestration. Steps of a scan:
 *  1. read and check the input locally (nothing is sent while anything is wrong);
 *  2. pick a live endpoint (getblockchaininfo, with the client's failover) and ask it about one address of
 *     each prefix (validateaddress): the node settles the network;
 *  3. one `scantxoutset start` with every object, pinned to that endpoint (split only on HTTP 413);
 *  4. check the result (success, BigInt sum = node total) and report; optionally cross-check elsewhere.
 * SIGINT/SIGTERM during a scan sends `abort` to the scanning endpoint and waits for the node to confirm.
 */
import { writeFileSync } from "node:fs";
import { type Context, makeContext } from "../cli/context.js";
import { interrupt } from "../cli/signals.js";
import type { GlobalFlags } from "../config/config.js";
import {
  ChaingwError,
  IntegrityError,
  InterruptedError,
  TransportError,
  UsageError,
} from "../errors/index.js";
import type { JsonObject } from "../json/lossless.js";
import { findMethod } from "../methods/index.js";
import { JsonRpcClient } from "../rpc/client.js";
import type { Endpoint } from "../rpc/endpoint.js";
import { parseDuration } from "../util/text.js";
import { describePrefix } from "./address.js";
import { DEFAULT_ABORT_WAIT_S, DEFAULT_LINE_EVERY_S } from "./defaults.js";
import { buildPlan, type Plan, type ScanObject } from "./input.js";
import { progressView, stderrNote } from "./progress.js";
import { reportCsv, reportHuman, reportJson } from "./render.js";
import { type CheckedScan, checkScan, compareScans, holdings, mergeChunks, type Report } from "./report.js";
import { abortAndConfirm, ScanBusyError, scanStatus, startScan, TooLargeError } from "./scan.js";

export interface ScanFlags {
  file?: string;
  descriptor?: string[];
  range?: string;
  csv?: string;
  byAddress?: boolean;
  crossCheck?: boolean;
  wait?: boolean;
  /** true, or seconds between plain progress lines */
  progress?: boolean | string;
  abortWait?: string;
}

const POLL_MS = 1000;

function utxoContext(flags: GlobalFlags): Context {
  const ctx = makeContext(flags, "utxo");
  if (ctx.settings.chain && ctx.settings.chain !== "utxo")
    throw new UsageError(`reserves works on the utxo group (scantxoutset), not on ${ctx.settings.chain}`);
  return ctx;
}

/** A client for control calls after an interrupt: the run's signal is already aborted. */
const controlClient = (ctx: Context) =>
  new JsonRpcClient({ ...ctx.client.opts, signal: undefined, deadlineMs: 0 });

const busyHint = (ep: Endpoint) =>
  [
    `  The node allows one scan at a time. With the same endpoint options (${ep.label}):`,
    "    chaingw reserves status     shows the running scan's progress",
    "    chaingw reserves abort      stops it (only if it is yours or abandoned)",
    "  or run this scan again with --wait to start as soon as the slot is free.",
  ].join("\n");

/** Step 2: a live endpoint, its chain name, and the node's word on one address of each prefix. */
async function preflight(ctx: Context, plan: Plan): Promise<{ endpoint: Endpoint; chain?: string }> {
  const info = await ctx.client.call("getblockchaininfo", [], findMethod("getblockchaininfo", "utxo").marks);
  const chain = (info.result as JsonObject | null)?.chain;
  const endpoint = info.endpoint;
  const refused: string[] = [];
  for (const rep of plan.representatives) {
    const { result } = await ctx.client.call("validateaddress", [rep.address], {
      ...findMethod("validateaddress", "utxo").marks,
      pinned: endpoint,
    });
    if ((result as JsonObject | null)?.isvalid !== true) {
      const n = plan.addresses.filter((a) => a.prefix === rep.prefix).length;
      refused.push(
        `  ${rep.origin}: ${rep.address}: the node (chain ${String(chain ?? "?")}) says it is not one of its addresses; ${n} address${n === 1 ? "" : "es"} with ${describePrefix(rep.prefix)}`,
      );
    }
  }
  if (refused.length)
    throw new UsageError(
      `reserves: addresses of another network for ${endpoint.label}; no scan was started`,
      {
        hint: refused.join("\n"),
      },
    );
  return { endpoint, chain: typeof chain === "string" ? chain : undefined };
}

interface ScanRun {
  scan: CheckedScan;
  chunks: number;
  chunkNote?: string;
  startedAt: Date;
  durationMs: number;
}

export async function runReservesScan(args: string[], flags: GlobalFlags, o: ScanFlags): Promise<void> {
  const plan = buildPlan({ args, file: o.file, descriptors: o.descriptor ?? [], range: o.range });
  const ctx = utxoContext(flags);
  const abortWaitMs = parseDuration("--abort-wait", o.abortWait, DEFAULT_ABORT_WAIT_S, "positive");
  const lineEveryMs =
    o.progress === undefined || o.progress === false
      ? undefined
      : o.progress === true
        ? DEFAULT_LINE_EVERY_S * 1000
        : parseDuration("--progress", o.progress, DEFAULT_LINE_EVERY_S, "positive");
  if (o.crossCheck && ctx.settings.endpoints.length < 2)
    throw new UsageError("--cross-check needs a second endpoint: give --url (or --gateway) twice");

  const { endpoint, chain } = await preflight(ctx, plan);
  const showProgress = Boolean(process.stderr.isTTY) || lineEveryMs !== undefined;

  let running: Endpoint | undefined;
  // from here an interrupt aborts the scan on the node before exiting (see interruptedExit)
  interrupt.handled = true;

  const scanOn = async (ep: Endpoint): Promise<ScanRun> => {
    const view = showProgress ? await progressView(ep.label, lineEveryMs) : undefined;
    const t0 = Date.now();
    const results: CheckedScan[] = [];
    const queue: ScanObject[][] = [plan.objects];
    let chunkNote: string | undefined;
    let startedAt: Date | undefined;
    try {
      while (queue.length) {
        const part = queue.shift()!;
        try {
          const r = await startScan({
            client: ctx.client,
            endpoint: ep,
            objects: part,
            scanTimeoutMs: ctx.settings.scanTimeoutMs,
            wait: o.wait ?? false,
            pollMs: POLL_MS,
            onProgress: view ? (t) => view.tick(t) : undefined,
            onStartSent: (inFlight) => {
              running = inFlight ? ep : undefined;
            },
            onBusy: (p) =>
              (view ?? stderrNote).note(
                `a scan is already running on ${ep.label}${p === null ? "" : ` (${p}%)`}; --wait: starting as soon as it ends`,
              ),
          });
          startedAt ??= r.startedAt;
          results.push(checkScan(r.result, ep.label));
        } catch (e) {
          if (!(e instanceof TooLargeError) || part.length < 2) throw e;
          const half = Math.ceil(part.length / 2);
          queue.unshift(part.slice(0, half), part.slice(half));
          chunkNote = `${ep.label} refused one request of ${part.length} objects (HTTP 413), so the objects were scanned in parts`;
        }
      }
    } finally {
      view?.stop();
    }
    const scan = mergeChunks(results, ep.label);
    const chunks = results.length;
    return {
      scan,
      chunks,
      chunkNote: chunkNote && `${chunkNote}: ${chunks} scans, all at block ${scan.height}`,
      startedAt: startedAt ?? new Date(t0),
      // the scan itself: from the first start that ran (not the wait for a busy slot) to the last answer
      durationMs: Date.now() - (startedAt ?? new Date(t0)).getTime(),
    };
  };

  let primary: ScanRun;
  let report: Report;
  try {
    primary = await scanOn(endpoint);
    const funded = new Set(primary.scan.unspents.map((u) => u.address ?? u.desc));
    report = {
      chain,
      endpoint: endpoint.label,
      startedAt: primary.startedAt,
      durationMs: primary.durationMs,
      addressesAsked: plan.addresses.length,
      descriptorsAsked: plan.descriptors.length,
      duplicatesRemoved: plan.duplicates,
      chunks: primary.chunks,
      chunkNote: primary.chunkNote,
      scan: primary.scan,
      holdings: o.byAddress ? holdings(plan, primary.scan) : undefined,
      addressesWithFunds: funded.size,
    };
    if (o.crossCheck) {
      const other = ctx.client.endpoints.find((e) => e !== endpoint)!;
      stderrNote.note(`cross-check: scanning the same objects on ${other.label}`);
      const second = await scanOn(other);
      report.crossCheck = compareScans(primary.scan, second.scan, other.label);
    }
    if (ctx.signal.aborted) throw new TransportError("interrupted");
  } catch (e) {
    // the signal's reason is the first signal's name (cli/main.ts)
    if (ctx.signal.aborted) return interruptedExit(ctx, String(ctx.signal.reason), running, abortWaitMs);
    if (e instanceof ScanBusyError) e.hint = busyHint(endpoint);
    if (e instanceof TransportError && running) await afterFailedStart(ctx, running, e, abortWaitMs);
    throw e;
  } finally {
    interrupt.handled = false;
  }

  if (o.csv !== undefined) {
    const csv = reportCsv(report);
    if (o.csv === "-") ctx.out(csv);
    else
      try {
        writeFileSync(o.csv, csv);
      } catch (e) {
        throw new ChaingwError(`--csv: cannot write ${o.csv}: ${(e as NodeJS.ErrnoException).code ?? e}`);
      }
  }
  if (o.csv !== "-") {
    ctx.out(ctx.settings.json ? reportJson(report) : reportHuman(report, { color: ctx.settings.color }));
  }
  if (report.crossCheck?.verdict === "mismatch")
    throw new IntegrityError(
      `cross-check failed: ${report.crossCheck.endpoint} is at the same block but reports different reserves (${report.crossCheck.detail}); not a proof`,
    );
}

/** SIGINT/SIGTERM while our scan runs: abort it on that node, wait for the node to confirm, exit 130. */
async function interruptedExit(
  ctx: Context,
  sig: string,
  running: Endpoint | undefined,
  boundMs: number,
): Promise<never> {
  const lines: string[] = [];
  if (running) {
    ctx.err(`chaingw: ${sig}: sending abort to ${running.label} (Ctrl-C again to quit without waiting)`);
    try {
      const a = await abortAndConfirm(controlClient(ctx), running, boundMs);
      lines.push(
        a.confirmed
          ? `  ${running.label}: ${a.wasRunning ? "scan aborted" : "no scan was running"}; the node reports no scan running (after ${(a.waitedMs / 1000).toFixed(1)} s, ${a.aborts} abort${a.aborts === 1 ? "" : "s"} sent)`
          : `  ${running.label}: abort sent ${a.aborts} times, but the node still reports a scan after ${Math.round(boundMs / 1000)} s; check with: chaingw reserves status`,
      );
    } catch (e) {
      lines.push(
        `  ${running.label}: abort failed: ${(e as Error).message}; check with: chaingw reserves status`,
      );
    }
  }
  throw new InterruptedError(`interrupted (${sig}): the scan did not complete; nothing was proven`, {
    hint: lines.join("\n") || undefined,
  });
}

/**
 * `start` failed without an answer. After a --scan-timeout the node is still scanning for nobody: abort it.
 * After another transport failure the scan may or may not be ours: only say what the node reports.
 */
async function afterFailedStart(
  ctx: Context,
  ep: Endpoint,
  e: TransportError,
  boundMs: number,
): Promise<void> {
  const client = controlClient(ctx);
  const timedOut = ctx.settings.scanTimeoutMs > 0 && e.timedOut;
  if (timedOut) {
    e.message = `${ep.label}: the scan did not finish within --scan-timeout (${ctx.settings.scanTimeoutMs / 1000} s); nothing was proven`;
    try {
      const a = await abortAndConfirm(client, ep, boundMs);
      e.hint = a.confirmed
        ? `  The scan was aborted on the node (confirmed: no scan running). Raise --scan-timeout (0 = none) and run again.`
        : `  abort sent, but the node still reports a scan; check with: chaingw reserves status`;
    } catch {
      e.hint = "  the node did not answer abort; check with: chaingw reserves status";
    }
    return;
  }
  try {
    const p = await scanStatus(client, ep);
    if (p !== null)
      e.hint = `  ${ep.label} still reports a scan running (${p}%), possibly this one: chaingw reserves status / chaingw reserves abort`;
  } catch {
    // the endpoint is unreachable; the error says so
  }
}

/**
 * `status` and `abort` by hand ask every configured endpoint: a row each, and an endpoint that did not
 * answer is a row with its error. When none answered, the last error is the command's.
 */
async function perEndpoint<T>(
  ctx: Context,
  ask: (ep: Endpoint) => Promise<T>,
): Promise<{ endpoint: string; answer?: T; error?: string }[]> {
  const rows: { endpoint: string; answer?: T; error?: string }[] = [];
  let last: unknown;
  for (const ep of ctx.settings.endpoints) {
    try {
      rows.push({ endpoint: ep.label, answer: await ask(ep) });
    } catch (e) {
      last = e;
      rows.push({ endpoint: ep.label, error: (e as Error).message });
    }
  }
  if (rows.every((r) => r.error !== undefined)) throw last;
  return rows;
}

export async function runReservesStatus(flags: GlobalFlags): Promise<void> {
  const ctx = utxoContext(flags);
  const rows = (await perEndpoint(ctx, (ep) => scanStatus(ctx.client, ep))).map((r) =>
    r.error !== undefined
      ? { endpoint: r.endpoint, running: false, progress: null, error: r.error }
      : { endpoint: r.endpoint, running: r.answer !== null, progress: r.answer ?? null },
  );
  if (ctx.settings.json) return ctx.out(JSON.stringify(rows, null, 2));
  for (const r of rows)
    ctx.out(
      `${r.endpoint}: ${r.error ? `no answer (${r.error})` : r.running ? `scan running, ${r.progress}%` : "no scan running"}`,
    );
}

export async function runReservesAbort(flags: GlobalFlags, o: { abortWait?: string }): Promise<void> {
  const ctx = utxoContext(flags);
  const boundMs = parseDuration("--abort-wait", o.abortWait, DEFAULT_ABORT_WAIT_S, "positive");
  const rows = (await perEndpoint(ctx, (ep) => abortAndConfirm(ctx.client, ep, boundMs))).map((r) =>
    r.error !== undefined
      ? { endpoint: r.endpoint, was_running: false, confirmed: false, error: r.error }
      : { endpoint: r.endpoint, was_running: r.answer!.wasRunning, confirmed: r.answer!.confirmed },
  );
  if (ctx.settings.json) ctx.out(JSON.stringify(rows, null, 2));
  else
    for (const r of rows)
      ctx.out(
        `${r.endpoint}: ${r.error ? `no answer (${r.error})` : !r.was_running ? "no scan was running" : r.confirmed ? "scan aborted; the node reports no scan running" : "abort sent, but the node still reports a scan"}`,
      );
  if (rows.some((r) => !r.error && !r.confirmed))
    throw new TransportError(`the node still reports a scan after ${boundMs / 1000} s`);
}
