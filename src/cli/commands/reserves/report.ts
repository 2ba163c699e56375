/**
 * `chaingw reserves report PROOF…`: UTXO and EVM proofs read (each by its format's strict reader),
 * optionally verified against their chains, and printed as one summary — text, JSON, or one self-contained
 * HTML page for the audit file. The combining is the workflow's (src/reserves/combined.ts).
 */
import type { Command } from "commander";
import type { GlobalFlags } from "../../../config/config.js";
import { UsageError } from "../../../errors/index.js";
import { escapeDeep } from "../../../util/escape.js";
import { shellQuote } from "../../../util/text.js";
import { NODE_OPTION, STAND_IN_OPTION, URL_FOR_OPTION } from "../../nodes.js";
import { collect, takesCsv, WALK_OPTION } from "../../options.js";
import type { ProofSetFlags } from "../../proofs.js";
import type { Run } from "../../run.js";

export function declareReport(reserves: Command, run: Run): void {
  takesCsv(reserves.command("report"))
    .description(
      "several proofs (UTXO and EVM) as one summary: per chain, per asset, block, proven-owned share",
    )
    .argument("<proofs...>", "proof documents")
    .option("--verify", "verify each proof against its chain first; fail when any does not hold")
    .option(NODE_OPTION.flags, `with --verify: ${NODE_OPTION.help}`, collect)
    .option(URL_FOR_OPTION.flags, URL_FOR_OPTION.help, collect)
    .option(STAND_IN_OPTION.flags, `with --verify: ${STAND_IN_OPTION.help}`, collect)
    .option(WALK_OPTION.flags, `with --verify: ${WALK_OPTION.help}`)
    .option("--html <file>", "also write the report as one self-contained HTML page (no network fetches)")
    .action(async (files: string[], _o: unknown, command: Command) => {
      await runReport(run, files, command.optsWithGlobals() as GlobalFlags, command.opts());
    });
}

export async function runReport(run: Run, files: string[], flags: GlobalFlags, o: ProofSetFlags) {
  if (run.format === "jsonl")
    throw new UsageError(
      "--format jsonl is not available for reserves report (human, json or csv; --html FILE)",
    );
  const [{ loadReserveProofs }, { writeAtomic }, { renderReport }, { exitCodeOfVerdict }] = await Promise.all(
    [
      import("../../proofs.js"),
      import("../../files.js"),
      import("../../render/report.js"),
      import("../../../reserves/verdict.js"),
    ],
  );
  const { proofs, nodes, used } = await loadReserveProofs(run, files, flags, o, "reserves report");
  const { combine } = await import("../../../reserves/combined.js");
  const { nodeArgs } = await import("../../proofs.js");
  const combined = combine(
    proofs,
    o.verify === true,
    // the nodes it was verified against go with it (credentials and key-like query values masked: they never print)
    `chaingw reserves report --verify ${o.walk === undefined ? "" : `--walk ${shellQuote(o.walk)} `}${(await nodeArgs(nodes, o.standIn)).map((a) => `${a} `).join("")}${files.map(shellQuote).join(" ")}`,
  );
  // which node answered for which chain, in the words of every verdict (src/cli/nodes.ts)
  const report = used.length ? { ...combined, nodes: used } : combined;
  const verdict = report.verdict;
  if (o.html !== undefined) {
    const { reportHtml } = await import("../../render/html.js");
    writeAtomic(o.html, reportHtml(report, new Date()), "--html");
  }
  const { colorOf } = await import("../../context.js");
  const { nodesLine } = await import("../../nodes.js");
  if (run.format === "csv") run.out((await import("../../render/report.js")).reportCsv(escapeDeep(combined)));
  else
    run.print(report, () =>
      [renderReport(escapeDeep(combined), colorOf(run, flags)), ...nodesLine(escapeDeep(used))].join("\n"),
    );
  if (o.html !== undefined && !run.machine) run.out(`report page written to ${o.html}`);
  if (verdict !== "not-verified") run.exitCode = exitCodeOfVerdict(verdict);
}
