/** The face of `chaingw reserves`: options into the workflow (src/reserves/run.ts), its data and events out. */
import { writeFileSync } from "node:fs";
import type { GlobalFlags } from "../config/config.js";
import { ChaingwError, TransportError, UsageError } from "../errors/index.js";
import { progress } from "../output/progress.js";
import {
  DEFAULT_ABORT_WAIT_S,
  DEFAULT_LINE_EVERY_S,
  DEFAULT_PREPARING_ABORT_WAIT_S,
} from "../reserves/defaults.js";
import {
  reservesAbort as abortWorkflow,
  crossCheckFailure,
  type ReservesEvent,
  scanReserves,
  reservesStatus as statusWorkflow,
} from "../reserves/run.js";
import type { ScanState } from "../reserves/scan.js";
import { parseDuration, parseWhole } from "../util/text.js";
import { contextFor, type Run } from "./context.js";
import { checkWritable, quorumOf, readSignatures } from "./files.js";
import { reportCsv, reportHuman, reportJson } from "./render-reserves.js";

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
  proof?: string;
  challenge?: string;
  minConf?: string;
  signatures?: string;
  chunk?: string;
  parallel?: boolean;
  quorum?: string;
}

const STOP_HINT =
  "the node may still be scanning: `chaingw reserves status` shows it, `chaingw reserves abort` stops it";

/**
 * What the node's progress means. Core 0.21 keeps the last scan's percentage (often 100) while it prepares
 * a new one (expanding descriptors, seconds to minutes) and resets it when the pass begins. So until the
 * figure first moves it says nothing about this scan: the line says "preparing" and for how long, with the
 * node's figure beside it; once it moves it is the pass's progress.
 */
export function progressText() {
  let first: number | null | undefined;
  let movedAt: number | undefined;
  return (label: string, st: ScanState, elapsedMs: number) => {
    const secs = (ms: number) => `${Math.round(ms / 1000)} s`;
    const head = `scanning the UTXO set on ${label}`;
    if (!st.running) return `${head}: finishing (the node is writing its answer), ${secs(elapsedMs)}`;
    if (first === undefined) first = st.progress;
    else if (movedAt === undefined && st.progress !== first) movedAt = elapsedMs;
    if (movedAt === undefined)
      return `${head}: preparing for ${secs(elapsedMs)} (expanding descriptors; ${first}% is the previous scan's figure)`;
    return `${head}: ${st.progress}% of the UTXO set, ${secs(elapsedMs)} (the pass began after ${secs(movedAt)})`;
  };
}

export async function reservesScan(
  run: Run,
  args: string[],
  flags: GlobalFlags,
  o: ScanFlags,
): Promise<void> {
  if (run.format === "jsonl")
    throw new UsageError("--format jsonl is not available for reserves scan (human, json or csv)");
  const abortWaitMs = parseDuration("--abort-wait", o.abortWait, DEFAULT_ABORT_WAIT_S, "positive");
  const plainEveryMs =
    o.progress === undefined || o.progress === false
      ? undefined
      : o.progress === true
        ? DEFAULT_LINE_EVERY_S * 1000
        : parseDuration("--progress", o.progress, DEFAULT_LINE_EVERY_S, "positive");
  const minConf = o.minConf === undefined ? undefined : parseWhole("--min-conf", o.minConf, 0, 0, 1_000_000);
  const chunk = o.chunk === undefined ? undefined : parseWhole("--chunk", o.chunk, 0, 1, 1_000_000);
  if (o.challenge !== undefined && o.challenge.trim() === "")
    throw new UsageError(
      "--challenge: empty; a challenge is the fresh text the custodian signs (e.g. the auditor's name and date)",
    );
  if (o.signatures !== undefined && o.challenge === undefined)
    throw new UsageError(
      "--signatures needs --challenge: the signatures are checked over the challenge text",
    );
  if (
    (o.challenge !== undefined || minConf !== undefined || o.signatures !== undefined) &&
    o.proof === undefined
  )
    throw new UsageError(
      "--challenge, --min-conf and --signatures belong to a proof: give --proof <file> too",
    );
  if (o.proof !== undefined && o.csv === "-")
    throw new UsageError("--proof and --csv - both want stdout; give one a file");
  // read before anything is sent: a bad line is exit 2 with nothing sent
  const signatures = o.signatures === undefined ? undefined : await readSignatures(o.signatures);
  // and the files the scan ends by writing: a long scan is not lost to a typo in a path
  checkWritable(o.proof, "--proof");
  checkWritable(o.csv, "--csv");
  const ctx = contextFor(run, flags, "utxo");
  let bar: ReturnType<typeof progress> | undefined;
  let text = progressText();
  const aborts = new Map<string, number>();
  const onEvent = (e: ReservesEvent) => {
    if (e.type === "scan") {
      if (e.phase === "start") {
        text = progressText();
        bar = progress({ plainEveryMs });
        bar.update(`scanning the UTXO set on ${e.endpoint}`);
      } else {
        bar?.stop();
        bar = undefined;
      }
    } else if (e.type === "progress") bar?.update(text(e.endpoint, e.state, e.elapsedMs));
    else if (e.type === "note") {
      // no spinner is running (between scans, after an interrupt): a plain line, not a new spinner
      if (bar) bar.note(e.text);
      else run.err(`chaingw: ${e.text}`);
    } else if (e.type === "node-busy") {
      run.interrupt.hint = e.endpoint ? STOP_HINT : undefined;
      if (!e.endpoint) run.interrupt.facts = undefined;
    } else if (e.type === "abort-sent") {
      aborts.set(e.endpoint, e.count);
      // what a second Ctrl-C reports: the shape of the interrupted error's facts (one node, or --parallel's)
      run.interrupt.facts =
        aborts.size === 1
          ? { endpoint: e.endpoint, aborts_sent: e.count }
          : {
              nodes: [...aborts].map(([endpoint, n]) => ({ endpoint, aborts_sent: n, node_scanning: null })),
            };
    }
  };
  // from the first scan on, an interrupt is the workflow's to handle: it aborts the scan on the node
  run.interrupt.handled = true;
  // a diagnostic line (-v, a warning) takes the spinner off first instead of being glued to it
  run.clearProgress = () => bar?.clear();
  let report: Awaited<ReturnType<typeof scanReserves>>;
  try {
    report = await scanReserves(
      ctx.client,
      {
        args,
        file: o.file,
        descriptors: o.descriptor ?? [],
        range: o.range,
        byAddress: o.byAddress,
        crossCheck: o.crossCheck,
        // the global --wait (wait for the node) is commander's first: for a scan it means wait for the slot
        wait: o.wait ?? flags.wait,
        scanTimeoutMs: ctx.settings.scanTimeoutMs,
        abortWaitMs,
        // a node still expanding descriptors ignores the abort: say so after a few seconds, unless told to wait
        preparingAbortWaitMs: o.abortWait === undefined ? DEFAULT_PREPARING_ABORT_WAIT_S * 1000 : undefined,
        group: ctx.settings.chain,
        chunk,
        parallel: o.parallel,
        quorum: quorumOf(o.quorum),
      },
      onEvent,
      ctx.signal,
    );
  } finally {
    bar?.stop();
    run.clearProgress = undefined;
    run.interrupt.handled = false;
  }
  const csvTo = run.format === "csv" ? "-" : o.csv;
  if (csvTo !== undefined) {
    const csv = reportCsv(report);
    if (csvTo === "-") run.out(csv);
    else
      try {
        writeFileSync(csvTo, csv);
      } catch (e) {
        throw new ChaingwError(`--csv: cannot write ${csvTo}: ${(e as NodeJS.ErrnoException).code ?? e}`);
      }
  }
  if (o.proof !== undefined) {
    const { buildProof } = await import("../reserves/proof.js");
    const proof = await buildProof(ctx.client, report.plan!, report.scan, {
      challenge: o.challenge,
      minConf,
      signatures,
      chain: report.chain,
      quorum: report.quorum,
      createdAt: report.startedAt,
    });
    const text = `${JSON.stringify(proof, null, 2)}\n`;
    if (o.proof === "-") run.out(text);
    else
      try {
        writeFileSync(o.proof, text);
      } catch (e) {
        throw new ChaingwError(`--proof: cannot write ${o.proof}: ${(e as NodeJS.ErrnoException).code ?? e}`);
      }
    // --json prints the proof document itself
    if (run.format === "json" && o.proof !== "-") run.out(text);
    if (!run.machine && o.proof !== "-") {
      const sum = (xs: { amount_sats: string }[]) => xs.reduce((t, x) => t + BigInt(x.amount_sats), 0n);
      const totals =
        minConf === undefined
          ? undefined
          : {
              minConf,
              kept: { sats: BigInt(proof.total.amount_sats), outputs: proof.total.outputs },
              excluded: { sats: sum(proof.excluded ?? []), outputs: proof.excluded?.length ?? 0 },
            };
      run.out(reportHuman(report, { color: ctx.color, proof: totals }));
      run.out(
        `proof written to ${o.proof}: ${proof.total.amount} in ${proof.total.outputs} outputs at height ${proof.height}, digest ${proof.digest}`,
      );
    }
  } else if (csvTo !== "-")
    run.out(run.format === "json" ? reportJson(report) : reportHuman(report, { color: ctx.color }));
  const bad = crossCheckFailure(report);
  if (bad) throw bad;
}

export async function reservesStatus(run: Run, flags: GlobalFlags): Promise<void> {
  const ctx = contextFor(run, flags, "utxo");
  const rows = (await statusWorkflow(ctx.client, ctx.settings.chain)).map((r) =>
    r.error !== undefined
      ? { endpoint: r.endpoint, running: false, progress: null, error: r.error }
      : {
          endpoint: r.endpoint,
          running: r.answer!.running,
          progress: r.answer!.progress,
          phase: r.answer!.phase ?? null,
        },
  );
  if (run.machine) return run.out(JSON.stringify(rows, null, 2));
  const said = (r: (typeof rows)[number]) =>
    r.error
      ? `no answer (${r.error})`
      : !r.running
        ? "no scan running"
        : r.phase === "preparing"
          ? "scan running: preparing (expanding descriptors); the node still shows 100%, its previous scan's figure, until the pass begins"
          : `scan running, ${r.progress}% of the UTXO set`;
  for (const r of rows) run.out(`${r.endpoint}: ${said(r)}`);
}

export async function reservesAbort(run: Run, flags: GlobalFlags, o: { abortWait?: string }): Promise<void> {
  const boundMs = parseDuration("--abort-wait", o.abortWait, DEFAULT_ABORT_WAIT_S, "positive");
  const ctx = contextFor(run, flags, "utxo");
  const rows = (await abortWorkflow(ctx.client, boundMs, ctx.settings.chain)).map((r) =>
    r.error !== undefined
      ? { endpoint: r.endpoint, was_running: false, node_scanning: null, aborts_sent: 0, error: r.error }
      : {
          endpoint: r.endpoint,
          was_running: r.answer!.wasRunning,
          node_scanning: r.answer!.nodeScanning,
          aborts_sent: r.answer!.aborts,
          confirmed: r.answer!.nodeScanning === false,
          statement: r.answer!.statement,
        },
  );
  if (run.machine) run.out(JSON.stringify(rows, null, 2));
  else
    for (const r of rows)
      run.out(
        `${r.endpoint}: ${r.error ? `no answer (${r.error})` : (r as { statement: string }).statement}`,
      );
  if (rows.some((r) => !r.error && r.node_scanning !== false))
    throw new TransportError(`the node still reports a scan after ${boundMs / 1000} s (or did not answer)`);
}
