/** `chaingw reserves scan`: one scantxoutset pass over addresses and descriptors, a report, a proof. */
import type { Command } from "commander";
import type { GlobalFlags } from "../../../config/config.js";
import { UsageError } from "../../../errors/index.js";
import type { SignatureLine } from "../../../proof/document.js";
import {
  DEFAULT_ABORT_WAIT_S,
  DEFAULT_LINE_EVERY_S,
  DEFAULT_PREPARING_ABORT_WAIT_S,
  DEFAULT_RANGE,
} from "../../../reserves/defaults.js";
import type { Report } from "../../../reserves/utxo/report.js";
import type { ReservesEvent } from "../../../reserves/utxo/run.js";
import type { ScanState } from "../../../reserves/utxo/scan.js";
import { writeAtomic } from "../../../util/atomic.js";
import { escapeDeep } from "../../../util/escape.js";
import { parseDuration, parseWhole } from "../../../util/text.js";
import type { Context } from "../../context.js";
import { collect, QUORUM_READS_HELP, takesCsv } from "../../options.js";
import type { Run } from "../../run.js";

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

export function declareScan(reserves: Command, run: Run): void {
  takesCsv(reserves.command("scan"))
    .description(
      "one scantxoutset pass over all addresses and descriptors; prints unspents and a summary checked to the satoshi",
    )
    .argument("[addresses...]", "addresses (any Bitcoin-derived chain; the node settles the network)")
    .option("-f, --file <path>", "addresses one per line ('-' = stdin); blank lines and # comments ignored")
    .option(
      "-d, --descriptor <desc>",
      "an output descriptor to scan, repeatable (xpub paths ending /* are ranged)",
      collect,
    )
    .option(
      "--range <A..B|N>",
      `index range of ranged descriptors, A..B; N means 0..N (default ${DEFAULT_RANGE.join("..")})`,
    )
    .option(
      "--csv <file>",
      "also write one CSV row per unspent output to <file> ('-' = stdout, instead of the report)",
    )
    .option(
      "--by-address",
      "subtotals per address (every address asked, zero ones included) instead of per output",
    )
    .option("--cross-check", "run the same scan on the second configured endpoint and compare tip and totals")
    .option(
      "--wait",
      "when the node's scan slot is taken, wait for it (up to --scan-timeout) instead of failing",
    )
    .option(
      "--progress [seconds]",
      `without a TTY: a progress line on stderr every few seconds (default ${DEFAULT_LINE_EVERY_S})`,
    )
    .option(
      "--abort-wait <seconds>",
      `after Ctrl-C, how long to wait for the node to confirm the abort (default ${DEFAULT_ABORT_WAIT_S}; ${DEFAULT_PREPARING_ABORT_WAIT_S} while it still expands descriptors, when it ignores aborts)`,
    )
    .option("--proof <file>", "write the proof document (chaingw-reserves-proof/1) to <file> ('-' = stdout)")
    .option("--challenge <text>", "the text the custodian was asked to sign; kept in the proof")
    .option(
      "--min-conf <n>",
      "outputs with fewer confirmations at the scan height are listed apart, not counted",
    )
    .option("--signatures <file>", "address,signature lines over the challenge: ownership, checked offline")
    .option(
      "--chunk <n>",
      "at most <n> objects per scan; all chunks end at one block (moved ones scanned again)",
    )
    .option("--parallel", "chunks side by side, one per configured node at the same best block")
    .option("--quorum <k>", QUORUM_READS_HELP)
    .addHelpText(
      "after",
      [
        "",
        "The scan proves confirmed outputs at the tip when it started (height and best block are printed);",
        "the mempool is not included. A scan that did not complete (success: false) is never reported: exit 1.",
        "Ctrl-C/SIGTERM aborts the scan on the node once, waits for the node's answer, and exits 130; a second Ctrl-C quits at once.",
        "--json (global) prints the full report as JSON: amounts as exact decimal strings, total_sats a string.",
        "Global options (--url, --gateway, --scan-timeout, ...) are listed under `chaingw --help`.",
      ].join("\n"),
    )
    .action(async (addresses: string[], _o: unknown, command: Command) => {
      await runScan(run, addresses, command.optsWithGlobals() as GlobalFlags, command.opts());
    });
}

export async function runScan(run: Run, args: string[], flags: GlobalFlags, o: ScanFlags): Promise<void> {
  const { abortWaitMs, plainEveryMs, minConf, chunk } = scanFlags(o);
  const [{ progress }, { scanReserves, crossCheckFailure }, { contextFor }, files] = await Promise.all([
    import("../../../output/progress.js"),
    import("../../../reserves/utxo/run.js"),
    import("../../context.js"),
    import("../../files.js"),
  ]);
  const { checkWritable, quorumOf, readSignatures } = files;
  // read before anything is sent: a bad line is exit 2 with nothing sent
  const signatures = o.signatures === undefined ? undefined : await readSignatures(o.signatures);
  // and the files the scan ends by writing: a long scan is not lost to a typo in a path
  checkWritable(o.proof, "--proof");
  checkWritable(o.csv, "--csv");
  const ctx = contextFor(run, flags, "utxo");
  const events = scanEvents(run, progress, plainEveryMs);
  const onEvent = events.onEvent;
  // from the first scan on, an interrupt is the workflow's to handle: it aborts the scan on the node
  run.interrupt.handled = true;
  // a diagnostic line (-v, a warning) takes the spinner off first instead of being glued to it
  run.clearProgress = () => events.clear();
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
    events.stop();
    run.clearProgress = undefined;
    run.interrupt.handled = false;
  }
  await printScan(run, ctx, report, o, { minConf, signatures });
  const bad = crossCheckFailure(report);
  if (bad) throw bad;
}

/** The flags a scan reads as numbers, and the combinations it refuses (exit 2, nothing sent). */
function scanFlags(o: ScanFlags) {
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
  return { abortWaitMs, plainEveryMs, minConf, chunk };
}

/**
 * The scan's events on the terminal: a spinner (or plain lines) per scan, notes, and what an interrupt says
 * (the hint while a node scans, the aborts sent for a second Ctrl-C's report).
 */
function scanEvents(
  run: Run,
  progress: typeof import("../../../output/progress.js").progress,
  plainEveryMs: number | undefined,
) {
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
      else run.tell("note", `chaingw: ${e.text}`);
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
  return { onEvent, clear: () => bar?.clear(), stop: () => bar?.stop() };
}

/** The outputs of a finished scan: CSV, the proof (written whole, or on stdout), the report. */
async function printScan(
  run: Run,
  ctx: Context,
  report: Report,
  o: ScanFlags,
  p: { minConf?: number; signatures?: SignatureLine[] },
): Promise<void> {
  const { minConf, signatures } = p;
  const { reportCsv, reportHuman, reportJson, reportJsonLines } = await import("../../render/reserves.js");
  const { unitOfAddresses } = await import("../../../reserves/claims.js");
  const addrs = report.scan.unspents.flatMap((u) => (u.address ? [u.address] : []));
  let unit = unitOfAddresses(addrs);
  // descriptors and test networks' shared prefixes name no coin: the node's chain does (people only)
  if (unit === "coins" && !run.machine) unit = unitOfAddresses(addrs, await nodeCoinOf(ctx));
  const csvTo = run.format === "csv" ? "-" : o.csv;
  if (csvTo !== undefined) {
    const csv = reportCsv(report);
    if (csvTo === "-") run.out(csv);
    else writeAtomic(csvTo, csv, "--csv");
  }
  if (o.proof !== undefined) {
    const { buildProof } = await import("../../../reserves/utxo/proof.js");
    const proof = await buildProof(ctx.client, report.plan!, report.scan, {
      challenge: o.challenge,
      minConf,
      signatures,
      chain: report.chain,
      quorum: report.quorum,
      createdAt: report.startedAt,
    });
    const text = `${JSON.stringify(proof, null, 2)}\n`;
    // whole or not at all: a failure after an hour's scan leaves the old file, never half a proof
    if (o.proof === "-") run.out(text);
    else writeAtomic(o.proof, text, "--proof");
    // --json prints the proof document itself (compact; the file is indented to read)
    if (run.format === "json" && o.proof !== "-") run.out(run.json(proof));
    const rows = run.format === "jsonl" && o.proof !== "-" ? reportJsonLines(report) : "";
    if (rows) run.out(rows);
    if (!run.machine && o.proof !== "-") {
      const sum = (xs: { amount_sats: string }[]) => xs.reduce((t, x) => t + BigInt(x.amount_sats), 0n);
      const totals =
        minConf === undefined && !proof.ownership
          ? undefined
          : {
              minConf,
              kept: { sats: BigInt(proof.total.amount_sats), outputs: proof.total.outputs },
              excluded: {
                sats: sum(proof.excluded ?? []),
                outputs: proof.excluded?.length ?? 0,
                outpoints: new Set((proof.excluded ?? []).map((x) => `${x.txid}:${x.vout}`)),
              },
              signatures: proof.ownership?.signatures,
              provenSats: proof.ownership && BigInt(proof.ownership.proven_sats),
            };
      run.out(reportHuman(escapeDeep(report), { color: ctx.color, proof: totals, unit }));
      run.out(
        `proof written to ${o.proof}: ${proof.total.amount} in ${proof.total.outputs} outputs at height ${proof.height}, digest ${proof.digest}`,
      );
    }
  } else if (csvTo !== "-") {
    const text =
      run.format === "json"
        ? reportJson(report, run.pretty ? 2 : 0)
        : run.format === "jsonl"
          ? reportJsonLines(report)
          : reportHuman(escapeDeep(report), { color: ctx.color, unit });
    // JSON Lines of a scan that found nothing: no line at all
    if (text) run.out(text);
  }
}

/**
 * The coin of the scanning node's chain (its genesis block; the user-agent only between coins that share one),
 * if the table knows it; never fails the scan.
 */
async function nodeCoinOf(ctx: Context): Promise<string | undefined> {
  try {
    const { coinOfNode } = await import("../../../chains/coins.js");
    const { marksOf } = await import("../../../methods/prepare.js");
    const [net, genesis] = await Promise.all([
      ctx.client.call("getnetworkinfo", [], marksOf("getnetworkinfo", "utxo")),
      ctx.client.call("getblockhash", [0], marksOf("getblockhash", "utxo")),
    ]);
    const sub = (net.result as { subversion?: unknown } | null)?.subversion;
    return typeof genesis.result === "string"
      ? coinOfNode(genesis.result, typeof sub === "string" ? sub : "")?.id
      : undefined;
  } catch {
    return undefined;
  }
}
