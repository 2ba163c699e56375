/**
 * The EVM commands as cast users work: `call`, `estimate`, `calldata`, `decode`, `logs`, `to-wei`,
 * `from-wei`, one file each beside this one. Declarations only here; the ABI code (src/evm/, ox) is
 * imported when a command runs, so the start-up of every other call stays where it was.
 */
import type { Command } from "commander";
import type { Run } from "../../run.js";
import { declareCall } from "./call.js";
import { declareCalldata } from "./calldata.js";
import { declareDecode } from "./decode.js";
import { declareEstimate } from "./estimate.js";
import { declareFromWei } from "./from-wei.js";
import { declareLogs } from "./logs.js";
import { declareToWei } from "./to-wei.js";

/** The EVM commands, each a top-level command, in the order help lists them. */
export const EVM_COMMANDS = [
  { name: "call", declare: declareCall },
  { name: "estimate", declare: declareEstimate },
  { name: "calldata", declare: declareCalldata },
  { name: "decode", declare: declareDecode },
  { name: "logs", declare: declareLogs },
  { name: "to-wei", declare: declareToWei },
  { name: "from-wei", declare: declareFromWei },
] as const satisfies readonly { name: string; declare: (program: Command, run: Run) => void }[];
