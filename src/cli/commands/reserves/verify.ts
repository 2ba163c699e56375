/**
 * `chaingw reserves verify FILE`: a proof checked against the node now. Either format: the UTXO proof
 * (digest, block, every output existed and was unspent at the proof's height, signatures) or the EVM
 * balances proof (every balance re-read at its block, metadata, signatures). One verdict, one exit table.
 */
import type { Command } from "commander";
import type { GlobalFlags } from "../../../config/config.js";
import { UsageError } from "../../../errors/index.js";
import type { RowSink } from "../../../exchange/ownership/verify.js";
import type { AddressFileModule, ProofReport, ReservesModule } from "../../../formats/registry.js";
import type { QuorumNode } from "../../../proof/document.js";
import type { Verdict } from "../../../reserves/verdict.js";
import { csvRow } from "../../../util/csv.js";
import { escapeDeep, escapeTerminal } from "../../../util/escape.js";
import { OWNERSHIP_LAYOUTS, OWNERSHIP_PUBLISHERS, RESERVES_FORMATS } from "../../help-lists.js";
import { NODE_OPTION, type NodeUsed, STAND_IN_OPTION } from "../../nodes.js";
import { collect, takesCsv, WALK_OPTION, walkOf } from "../../options.js";
import type { Run } from "../../run.js";

export interface VerifyFlags {
  signatures?: string;
  challenge?: string;
  quorum?: string;
  /** the file's format by name (formats/registry.ts), instead of detecting it; `previous`: an exchange's
   * address file's older one, whose signatures are flagged as reused */
  proofFormat?: string;
  previous?: string;
  node?: string[];
  token?: string[];
  /** a UTXO proof: the most blocks above its height walked for outputs spent since */
  walk?: string;
  /** --stand-in NETWORK: a devnet on that network's chain id is read as standing in for it (nodes.ts) */
  standIn?: string[];
}

export function declareVerify(reserves: Command, run: Run): void {
  takesCsv(reserves.command("verify"))
    .description(
      "check a proof file against the node now: digest, block, every output existed and was unspent at the proof's height, signatures",
    )
    .argument("<file>", "the proof document ('-' = stdin)")
    .option(
      "--signatures <file>",
      "address,signature lines to check over the proof's challenge (instead of the proof's own)",
    )
    .option(
      "--challenge <text>",
      "the challenge the signatures must be over: a proof signed over another text does not hold (an exchange's address file: the message every signed row must be over)",
    )
    .option(
      "--quorum <k>",
      "verify on K distinct nodes (--url once per node): holds only when every node says it holds",
    )
    .option(
      "--proof-format <name>",
      `the file's format by name, when detection should not choose (${RESERVES_FORMATS}; an exchange's address file: ${OWNERSHIP_LAYOUTS})`,
    )
    .option(
      "--previous <file>",
      "an exchange's address file: an older one of the same exchange; a signature found in it fails the row (reused, not fresh)",
    )
    .option(
      NODE_OPTION.flags,
      `${NODE_OPTION.help}; an exchange's address file: its NET rows' balances at the snapshot block, contract wallets' owners (a node of another chain refused)`,
      collect,
      [],
    )
    .option(
      "--token <symbol=address>",
      "an exchange's address file: the contract of a token the rows name by symbol (USDT=0x…; a TRC-20 USDT=T…), read with --node (repeatable)",
      collect,
      [],
    )
    .option(STAND_IN_OPTION.flags, STAND_IN_OPTION.help, collect, [])
    .option(WALK_OPTION.flags, WALK_OPTION.help)
    .addHelpText(
      "after",
      [
        "",
        `Also reads exchanges' address/signature files (${OWNERSHIP_PUBLISHERS}; docs/exchange-proofs.md): every row's`,
        "signature judged, exit 0 only when every row with a balance is proven, 1 when a signature fails or",
        "a row with a balance is unsigned, 3 when the only open rows are forms chaingw cannot judge.",
        "",
        "Exit codes: 0 the proof holds; 1 it does not (a check the chain answered went against it, each",
        "item named); 2 the file is not a proof (the field and why; nothing sent); 3 cannot say (the node is",
        "behind the proof, of another kind or network, lacks the data, or did not answer).",
        "The proof's own claims (created_at, the challenge) are printed as claims; --challenge requires one.",
        "Works on any node of the chain, without -txindex; blocks above the proof's height are walked only for",
        "outputs spent since, at most --walk of them. The file's format is detected from its text",
        "(--proof-format NAME forces one).",
      ].join("\n"),
    )
    .action(async (file: string, _o: unknown, command: Command) => {
      await runVerify(run, file, command.optsWithGlobals() as GlobalFlags, command.opts());
    });
}

export async function runVerify(run: Run, file: string, flags: GlobalFlags, o: VerifyFlags): Promise<void> {
  if (o.challenge !== undefined && o.challenge.trim() === "")
    throw new UsageError("--challenge: empty; give the text the signatures must be over");
  const walkBlocks = walkOf(o.walk);
  const [files, registry] = await Promise.all([
    import("../../files.js"),
    import("../../../formats/registry.js"),
  ]);
  const text = files.readText(file, "reserves verify");
  // what the file is: --proof-format names it, else the registry detects it; a file no format recognises is
  // read as chaingw's UTXO proof, whose refusal names the field (the hint says what reserves verify reads)
  const format =
    o.proofFormat !== undefined
      ? registry.formatNamed(o.proofFormat, "reserves", "--proof-format")
      : registry.detectFormat(text, "reserves");
  if (format === undefined) registry.unclaimedReserves(text, file);
  const hint =
    format === undefined
      ? `reserves verify reads ${registry.formatList(registry.formatsOf("reserves"))}`
      : undefined;
  const m = await (format ?? registry.FALLBACK.reserves).load();
  if (walkBlocks !== undefined && (m.kind === "address-file" || m.namesGroup))
    throw new UsageError(
      "--walk bounds the spend walk of a UTXO proof (chaingw-reserves-proof); this file is not one",
    );
  // an exchange's address file (src/exchange/ownership/): every row judged
  if (m.kind === "address-file") return verifyAddressFile(run, file, text, m, flags, o);
  if (o.previous !== undefined || o.token?.length)
    throw new UsageError("--previous and --token are for exchanges' address files; this is not one");
  return verifyOwnFile(run, file, text, flags, o, files.quorumOf(o.quorum), m, hint, walkBlocks);
}

/**
 * `reserves verify` of an exchange's address file: every row judged, the report printed in the run's format.
 */
async function verifyAddressFile(
  run: Run,
  file: string,
  text: string,
  m: AddressFileModule,
  flags: GlobalFlags,
  o: VerifyFlags,
): Promise<void> {
  const [{ addressFileJudged }, render, { colorOf }, spool] = await Promise.all([
    import("./verify-exchange.js"),
    import("../../render/ownership.js"),
    import("../../context.js"),
    import("../../../util/spool.js"),
  ]);
  // --json (compact or --pretty) and --format csv: each window of judged rows written out as it comes
  // (src/util/spool.ts: a temporary file past a bound) and not kept, then the report around them — the same
  // bytes as a report that kept every row. The table is written from spools of its cells (OwnershipTable).
  const json =
    run.format === "json"
      ? {
          rows: new spool.JsonArraySpool(run.pretty),
          findings: new spool.JsonArraySpool(run.pretty),
          others: new spool.JsonArraySpool(run.pretty),
          own: new spool.JsonArraySpool(run.pretty),
          places: new Map() as import("../../render/ownership.js").CoinPlaces,
        }
      : undefined;
  const csv = run.format === "csv" ? new spool.TextSpool() : undefined;
  // the table a person reads: each window's cells and findings' lines spooled, the columns' widths kept
  const human = run.format === "human" ? new render.OwnershipTable(colorOf(run, flags)) : undefined;
  const sink: RowSink | undefined = json
    ? (w) => {
        render.addPlaces(json.places, w.units, w.rows);
        json.rows.push(w.rows.map((x) => render.ownershipJsonRow(w.units, x)));
        json.findings.push(w.findings);
        json.others.push(w.others);
      }
    : csv
      ? (w) => {
          // escaped as Run.outPieces escapes CSV text, row by row: written back as bytes
          for (const x of w.rows)
            csv.append(escapeTerminal(`\n${csvRow(render.ownershipCsvRow(w.units, escapeDeep(x)))}`));
        }
      : human
        ? (w) => human.add(w.units, w.rows, w.findings, w.others)
        : undefined;
  try {
    const { report, used } = await addressFileJudged(run, file, text, m, flags, o, sink);
    const { nodesLine } = await import("../../nodes.js");
    json?.own.push(report.findings);
    return await printReport(
      run,
      used.length ? { ...report, nodes: used } : report,
      colorOf(run, flags),
      (x, c) =>
        human
          ? human.pieces(x, nodesLine(escapeDeep(used)))
          : [render.renderOwnership(x, c), ...nodesLine(escapeDeep(used))].join("\n"),
      // the spooled lines read back as they are written, never all at once
      (x) =>
        csv
          ? (function* () {
              yield csvRow(render.OWNERSHIP_CSV_HEAD);
              yield* csv.bytes();
            })()
          : render.ownershipCsv(x),
      // --json: every amount the one way (coin units; base units only in fields named so)
      (x) =>
        render.ownershipJson(
          x,
          json && {
            rows: json.rows,
            findings: spool.joinedArrays([json.findings, json.others, json.own]),
            places: json.places,
          },
        ),
    );
  } finally {
    for (const x of json ? [json.rows, json.findings, json.others, json.own] : []) x.close();
    csv?.close();
    human?.close();
  }
}

/**
 * `reserves verify FILE` for chaingw's own proofs, one path for every format: the registry entry's module
 * reads the file (a refusal names the field: exit 2, nothing sent), its report is the verifier's (the UTXO
 * proof: every output re-derived at the proof's height; the EVM proof: every balance re-read at its block),
 * on one node or K (--quorum).
 */
async function verifyOwnFile(
  run: Run,
  file: string,
  text: string,
  flags: GlobalFlags,
  o: VerifyFlags,
  k: number | undefined,
  m: ReservesModule,
  hint?: string,
  walkBlocks?: number,
): Promise<void> {
  const [files, { contextFor }, { groupOf }] = await Promise.all([
    import("../../files.js"),
    import("../../context.js"),
    import("../../../chains/index.js"),
  ]);
  const r = await files.asUsage(file, () => m.read(file, text), hint);
  const group = m.group(r);
  // --node: the node of the proof's coin, network or group (src/cli/nodes.ts); any other named one refused
  const nodes = await import("../../nodes.js");
  const choices = await nodes.nodeChoices(o.node, undefined);
  const standIns = await nodes.standInsOf(o.standIn);
  const node = await nodes.nodeForProof(choices, r, group);
  if (choices.length && !node)
    throw new UsageError(
      `--node: none of ${choices.map((c) => c.net).join(", ")} answers for this proof's chain (${await nodes.proofChainLabel(r)}): name its coin, its network or its group (${group})`,
    );
  await nodes.refuseUnused(choices, new Set(node ? [node] : []));
  if (node && k !== undefined)
    throw new UsageError(
      "--quorum verifies on K nodes given with --url; --node names one node for the proof",
    );
  const used = node ? [nodes.nodeUsed(node, await nodes.proofChainLabel(r, standIns))] : [];
  const f: GlobalFlags = node ? { ...flags, url: [node.url] } : flags;
  const signatures =
    o.signatures === undefined
      ? undefined
      : m.namesGroup
        ? await files.readAccountSignatures(o.signatures, groupOf(group))
        : await files.readSignatures(o.signatures);
  const ctx = contextFor(run, m.namesGroup ? { ...f, chain: group } : f, group, { pooled: true });
  const { renderProofReport, proofReportCsv } = await import("../../render/verify.js");
  // which node answered for which chain, in the words of every verdict (src/cli/nodes.ts)
  const render = (x: Parameters<typeof renderProofReport>[0], color: boolean) =>
    [renderProofReport(x, color), ...nodes.nodesLine(escapeDeep(used))].join("\n");
  await verifyAndPrint(run, ctx, k, render, proofReportCsv, used, async (bar) => {
    const once = (client: typeof ctx.client) =>
      m.report(
        {
          client,
          options: {
            signatures,
            challenge: o.challenge,
            ...(walkBlocks === undefined ? {} : { walkBlocks }),
            ...(standIns.size ? { standIns } : {}),
          },
          onEvent: (line) => bar.update(line),
          signal: ctx.signal,
        },
        r,
      );
    if (k === undefined) return { report: await once(ctx.client) };
    const { verifyOnQuorum } = await import("../../../reserves/quorum.js");
    return { quorum: await verifyOnQuorum(ctx.client, k, (c, ep) => m.describeNode(c, ep, r), once) };
  });
}

/** A verifier's report, or the quorum's (the report all K nodes agreed on, and the nodes). */
type Verified<R> = { report: R } | { quorum: { report: R; nodes: QuorumNode[] } };

/**
 * What both formats do around their checks: a progress line while they run; the report (with the quorum's
 * nodes when K nodes verified it) printed as `printReport` prints it.
 */
async function verifyAndPrint<R extends ProofReport>(
  run: Run,
  ctx: { color: boolean },
  k: number | undefined,
  render: (r: R & { quorum?: { k: number; nodes: QuorumNode[] } }, color: boolean) => string,
  csv: (r: R) => string,
  used: readonly NodeUsed[],
  work: (bar: { update(text: string): void }) => Promise<Verified<R>>,
): Promise<void> {
  const { progress } = await import("../../../output/progress.js");
  const bar = progress({ plainEveryMs: undefined });
  run.clearProgress = () => bar.clear();
  let v: Verified<R>;
  try {
    v = await work(bar);
  } finally {
    bar.stop();
    run.clearProgress = undefined;
  }
  const report =
    "quorum" in v
      ? {
          ...v.quorum.report,
          holds: v.quorum.report.verdict === "holds",
          quorum: { k: k as number, nodes: v.quorum.nodes },
        }
      : v.report;
  await printReport(run, used.length ? { ...report, nodes: used } : report, ctx.color, render, csv);
}

/**
 * The tail of every `reserves verify` path (chaingw's own proofs, an exchange's address file): the report as
 * JSON, or rendered with every string of the file and the node escaped among the renderer's own lines; the
 * verdict's exit code (0 holds, 1 does not hold, 3 cannot say).
 */
async function printReport<R extends { verdict: Verdict }>(
  run: Run,
  report: R,
  color: boolean,
  render: (r: R, color: boolean) => string | Iterable<string | Uint8Array>,
  csv: (r: R) => string | Iterable<string | Uint8Array>,
  json: (r: R) => unknown = (r) => r,
): Promise<void> {
  const { exitCodeOfVerdict } = await import("../../../reserves/verdict.js");
  // --format csv: the report's table, one row per row (an exchange's file) or output (a UTXO proof); or its
  // lines in pieces, as they were written while the rows were judged
  if (run.format === "csv") {
    const text = csv(escapeDeep(report));
    if (typeof text === "string") run.out(text);
    else run.outPieces(text);
  } else if (run.machine) run.print(json(report), () => "");
  else {
    // the text, or (an address file's rows spooled as they were judged) its pieces
    const text = render(escapeDeep(report), color);
    if (typeof text === "string") run.print(report, () => text);
    else run.outPieces(text);
  }
  run.exitCode = exitCodeOfVerdict(report.verdict);
}
