/**
 * The EVM commands as cast users work: `call`, `estimate`, `calldata`, `decode`, `logs`, `to-wei`,
 * `from-wei`. The command tree only: the work (src/evm/, ox) is imported when a command runs, so the
 * start-up of every other call stays where it was.
 */
import type { Command } from "commander";
import type { GlobalFlags } from "../config/config.js";
import { collect } from "./options.js";
import type { Run } from "./run.js";

/** The names this module adds, so main.ts builds no registry command for them. */
export const EVM_COMMANDS = ["call", "estimate", "calldata", "decode", "logs", "to-wei", "from-wei"];

export interface AbiFlags {
  abi?: string;
  errorSig?: string[];
  from?: string;
  value?: string;
  block?: string;
  unit?: string;
  ether?: boolean;
  gwei?: boolean;
  input?: boolean;
}

export interface LogsFlags {
  event?: string;
  abi?: string;
  address?: string[];
  fromBlock?: string;
  toBlock?: string;
  window?: string;
  maxWindow?: string;
}

const SIG_HELP =
  'function signature as cast takes it, "balanceOf(address)(uint256)", or with --abi the function name';

const unitOptions = (c: Command) =>
  c
    .option("--unit <unit>", "show integer results also in this unit (ether, gwei, wei; trx, sun)")
    .option("--ether", "show integer results also in ether (TRX on the EVM-compat chain) = --unit <coin>")
    .option("--gwei", "show integer results also in gwei = --unit gwei");

const callOptions = (c: Command) =>
  c
    .option("--abi <file>", 'a JSON ABI (or an artifact with "abi"): the function by name, its custom errors')
    .option("--error-sig <sig>", 'a custom error to decode reverts with, "Name(types)"; repeatable', collect)
    .option("--from <address>", "callObject.from: the sender")
    .option("--value <amount>", "callObject.value: base units (wei, sun), or with a unit: 1.5ether, 2trx");

export function evmCommands(program: Command, run: Run): void {
  const opts = (command: Command) => command.optsWithGlobals() as GlobalFlags & AbiFlags & LogsFlags;

  unitOptions(
    callOptions(
      program
        .command("call")
        .description(
          "eth_call with ABI-encoded arguments; decodes the return values (and reverts, custom errors too)",
        )
        .argument("<to>", "the contract address")
        .argument("<sig>", SIG_HELP)
        .argument(
          "[args...]",
          "the arguments, in order (arrays as [a,b], tuples as (a,b), amounts like 1.5ether)",
        ),
    ).option("--block <block>", "block number, tag, or block hash (sent as EIP-1898 {blockHash})"),
  ).action(async (to: string, sig: string, args: string[], _o: unknown, command: Command) => {
    const { runCall } = await import("./evm-run.js");
    await runCall(run, "eth_call", to, sig, args, opts(command));
  });

  callOptions(
    program
      .command("estimate")
      .description("eth_estimateGas of a contract call with ABI-encoded arguments")
      .argument("<to>", "the contract (or recipient) address")
      .argument("[sig]", SIG_HELP)
      .argument("[args...]", "the arguments, in order"),
  ).action(async (to: string, sig: string | undefined, args: string[], _o: unknown, command: Command) => {
    const { runCall } = await import("./evm-run.js");
    await runCall(run, "eth_estimateGas", to, sig, args, opts(command));
  });

  program
    .command("calldata")
    .description("ABI-encode a call: selector and arguments (no node is asked)")
    .argument("<sig>", SIG_HELP)
    .argument("[args...]", "the arguments, in order")
    .option("--abi <file>", "a JSON ABI: the function by name")
    .action(async (sig: string, args: string[], _o: unknown, command: Command) => {
      const { runCalldata } = await import("./evm-run.js");
      await runCalldata(run, sig, args, opts(command));
    });

  unitOptions(
    program
      .command("decode")
      .description(
        "ABI-decode hex: the return types of the signature, or its argument types (--input, or when it has no return types)",
      )
      .argument("<sig>", SIG_HELP)
      .argument("<hex>", "the data: a call's answer, or calldata (its selector is checked and skipped)")
      .option("--input", "decode as the function's arguments (calldata)")
      .option("--abi <file>", "a JSON ABI: the function by name"),
  ).action(async (sig: string, hex: string, _o: unknown, command: Command) => {
    const { runDecode } = await import("./evm-run.js");
    await runDecode(run, sig, hex, opts(command));
  });

  program
    .command("logs")
    .description(
      "event logs decoded into named fields, over a block range of any length (split where the upstream refuses)",
    )
    .argument(
      "[event]",
      'the event, "Transfer(address indexed from,address indexed to,uint256 value)", or its name with --abi',
    )
    .argument("[filters...]", 'values of the indexed arguments in order; "" or * for any, a|b for either')
    .option("--event <sig>", "the event (instead of the first argument)")
    .option("--abi <file>", "a JSON ABI: the event by name")
    .option("--address <address>", "only logs of this contract; repeatable (any of)", collect)
    .option("--from-block <block>", "first block: number, or a tag (default latest)")
    .option("--to-block <block>", "last block: number, or a tag (default latest)")
    .option(
      "--window <blocks>",
      "blocks in the first eth_getLogs window (default 100); doubles while answers are sparse, halves when refused",
    )
    .option("--max-window <blocks>", "widest window after growing (default 100000)")
    .addHelpText(
      "after",
      [
        "",
        "Output: one line per log in block order, streamed (--format jsonl: one JSON object per line; --json: a JSON array).",
        "Ctrl-C stops after what was printed and says which block to resume from (--from-block).",
      ].join("\n"),
    )
    .action(async (event: string | undefined, filters: string[], _o: unknown, command: Command) => {
      const { runLogs } = await import("./evm-run.js");
      await runLogs(run, event, filters, opts(command));
    });

  program
    .command("to-wei")
    .description("an amount in a unit → base units (wei; sun on the EVM-compat chain), exactly")
    .argument("<amount>", "decimal amount, e.g. 1.5")
    .argument("[unit]", "ether (default), gwei, wei; trx (default), sun on --chain evm-compat")
    .action(async (amount: string, unit: string | undefined, _o: unknown, command: Command) => {
      const { runUnits } = await import("./evm-run.js");
      await runUnits(run, "to", amount, unit, opts(command));
    });

  program
    .command("from-wei")
    .description("base units (wei; sun) → an amount in a unit, exactly")
    .argument("<amount>", "base units: decimal or 0x hex")
    .argument("[unit]", "ether (default), gwei, wei; trx (default), sun on --chain evm-compat")
    .action(async (amount: string, unit: string | undefined, _o: unknown, command: Command) => {
      const { runUnits } = await import("./evm-run.js");
      await runUnits(run, "from", amount, unit, opts(command));
    });
}
