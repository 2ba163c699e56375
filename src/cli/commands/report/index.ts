/**
 * `chaingw report`: an audit's package as `solvency … --report DIR` writes it — `verify` (its manifest
 * recomputed) and `history` (several audits side by side). One command a file beside this one.
 */
import type { Command } from "commander";
import type { Run } from "../../run.js";
import { declareReportHistory } from "./history.js";
import { declareReportVerify } from "./verify.js";

export function declareReportFamily(program: Command, run: Run): void {
  const report = program
    .command("report")
    .description("an audit's report package (solvency --report DIR): verify its manifest, draw a history");
  declareReportVerify(report, run);
  declareReportHistory(report, run);
}
