/**
 * Command families that live in their own modules. Each module exports a builder that only declares
 * options; its action imports the heavy code on use.
 */
import type { Command } from "commander";
import { batchCommand } from "./batch.js";
import { reservesCommand } from "./reserves.js";
import type { Run } from "./run.js";
import { serveCommand } from "./serve.js";

export type CommandBuilder = (program: Command, run: Run) => void;

export const families: CommandBuilder[] = [batchCommand, reservesCommand, serveCommand];
