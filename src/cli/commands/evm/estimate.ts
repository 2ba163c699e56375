/** `chaingw estimate TO [SIG] [ARGS…]`: eth_estimateGas of a contract call with ABI-encoded arguments. */
import type { Command } from "commander";
import type { Run } from "../../run.js";
import { callOptions, type EvmFlags, evmFlags, SIG_HELP } from "./options.js";

export function declareEstimate(program: Command, run: Run): void {
  callOptions(
    program
      .command("estimate")
      .description("eth_estimateGas of a contract call with ABI-encoded arguments")
      .argument("<to>", "the contract (or recipient) address")
      .argument("[sig]", SIG_HELP)
      .argument("[args...]", "the arguments, in order"),
  ).action((to: string, sig: string | undefined, args: string[], _o: unknown, command: Command) =>
    runEstimate(run, to, sig, args, evmFlags(command)),
  );
}

export async function runEstimate(
  run: Run,
  to: string,
  sig: string | undefined,
  args: string[],
  flags: EvmFlags,
): Promise<void> {
  const { runAbiCall } = await import("./abi-call.js");
  await runAbiCall(run, "eth_estimateGas", to, sig, args, flags);
}
