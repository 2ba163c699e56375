/**
 * Command families that live in their own modules. Each module exports a builder that only declares
 * options; its action imports the heavy code on use.
 */
import type { Command } from "commander";
import { batchCommand } from "./batch.js";
import { liabilitiesCommand } from "./commands/liabilities/index.js";
import { solvencyCommand } from "./commands/solvency/solvency.js";
import { completionCommand, configCommand } from "./config.js";
import { EVM_COMMANDS, evmCommands } from "./evm.js";
import { infoCommand } from "./info.js";
import { reservesCommand } from "./reserves.js";
import type { Run } from "./run.js";
import { serveCommand } from "./serve.js";

export type CommandBuilder = (program: Command, run: Run) => void;

export const families: CommandBuilder[] = [
  batchCommand,
  reservesCommand,
  infoCommand,
  configCommand,
  completionCommand,
  evmCommands,
  serveCommand,
  liabilitiesCommand,
  solvencyCommand,
];

/** The commands the families add: a run naming one builds no registry command. */
export const FAMILY_COMMANDS = [
  "batch",
  "reserves",
  "info",
  "config",
  "completion",
  "serve",
  "liabilities",
  "solvency",
  ...EVM_COMMANDS,
];
