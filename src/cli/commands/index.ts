/**
 * The one table of chaingw's commands that are not registry methods, in the order help lists them. The
 * command tree (src/cli/main.ts) declares from it; the words a call may start with, "did you mean", the
 * fast path's refusal of anything that is not a method, and shell completion (walking the tree built from
 * it) all follow, so a command added here is everywhere at once. Each entry's file holds its options type,
 * its declaration and its run; a family's file (reserves, config, liabilities) declares its subcommands,
 * one file each beside it. Declaring is light: a command imports its workflow when it runs.
 */
import type { Command } from "commander";
import type { Run } from "../run.js";
import { declareBatch } from "./batch.js";
import { declareCompletion } from "./completion.js";
import { declareConfig } from "./config/index.js";
import { EVM_COMMANDS } from "./evm/index.js";
import { declareInfo } from "./info.js";
import { declareLiabilities } from "./liabilities/index.js";
import { declareMethods } from "./methods.js";
import { declareReportFamily } from "./report/index.js";
import { declareReserves } from "./reserves/index.js";
import { declareRpc } from "./rpc.js";
import { declareServe } from "./serve.js";
import { declareSolvency } from "./solvency.js";
import { declareVerifyMessage } from "./verify-message.js";

export interface CommandEntry {
  readonly name: string;
  /** adds the command (and its subcommands) to the program */
  readonly declare: (program: Command, run: Run) => void;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: "rpc", declare: declareRpc },
  { name: "batch", declare: declareBatch },
  { name: "reserves", declare: declareReserves },
  { name: "info", declare: declareInfo },
  { name: "config", declare: declareConfig },
  { name: "completion", declare: declareCompletion },
  ...EVM_COMMANDS,
  { name: "serve", declare: declareServe },
  { name: "liabilities", declare: declareLiabilities },
  { name: "solvency", declare: declareSolvency },
  { name: "report", declare: declareReportFamily },
  { name: "verify-message", declare: declareVerifyMessage },
  { name: "methods", declare: declareMethods },
];

/** Every command word that is not a registry method (commander's own `help` included). */
export const COMMAND_NAMES: readonly string[] = [...COMMANDS.map((c) => c.name), "help"];
