/**
 * `chaingw reserves`: the family's command tree, one command a file beside this one (scan, verify,
 * balances, report, status, abort). Each file declares its command and holds its run; the workflows
 * (src/reserves/) are imported when a command runs, so building the tree stays light.
 */
import type { Command } from "commander";
import type { Run } from "../../run.js";
import { declareAbort } from "./abort.js";
import { declareBalances } from "./balances.js";
import { declareReport } from "./report.js";
import { declareScan } from "./scan.js";
import { declareSignHelp } from "./sign-help.js";
import { declareStatus } from "./status.js";
import { declareVerify } from "./verify.js";

export function declareReserves(program: Command, run: Run): void {
  const reserves = program
    .command("reserves")
    .description("proof of reserves: scan the UTXO set (scantxoutset) or read EVM balances, at one block");
  declareScan(reserves, run);
  declareVerify(reserves, run);
  declareBalances(reserves, run);
  declareReport(reserves, run);
  declareStatus(reserves, run);
  declareAbort(reserves, run);
  declareSignHelp(reserves, run);
}
