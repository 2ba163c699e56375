/** `chaingw calldata SIG [ARGS…]`: ABI-encode a call (no node is asked). */
import type { Command } from "commander";
import { refuseCsv } from "../../options.js";
import type { Run } from "../../run.js";
import { offlineChain } from "./common.js";
import { type EvmFlags, evmFlags, SIG_HELP } from "./options.js";

export function declareCalldata(program: Command, run: Run): void {
  program
    .command("calldata")
    .description("ABI-encode a call: selector and arguments (no node is asked)")
    .argument("<sig>", SIG_HELP)
    .argument("[args...]", "the arguments, in order")
    .option("--abi <file>", "a JSON ABI: the function by name")
    .action((sig: string, args: string[], _o: unknown, command: Command) =>
      runCalldata(run, sig, args, evmFlags(command)),
    );
}

export async function runCalldata(run: Run, sig: string, args: string[], flags: EvmFlags): Promise<void> {
  refuseCsv(run, "calldata");
  const chain = offlineChain(run, flags, "calldata");
  const { abi, functionOf } = await import("./abi-call.js");
  const { fn } = functionOf("calldata", sig, args.length, flags);
  const data = abi.encodeCall("calldata", fn, args, chain);
  run.print(data, () => data);
}
