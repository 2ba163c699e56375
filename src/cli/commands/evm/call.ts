/** `chaingw call TO SIG [ARGS…]`: eth_call with ABI-encoded arguments; the return values decoded. */
import type { Command } from "commander";
import type { Run } from "../../run.js";
import { callOptions, type EvmFlags, evmFlags, SIG_HELP, unitOptions } from "./options.js";

export function declareCall(program: Command, run: Run): void {
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
  ).action((to: string, sig: string, args: string[], _o: unknown, command: Command) =>
    runCall(run, to, sig, args, evmFlags(command)),
  );
}

export async function runCall(run: Run, to: string, sig: string, args: string[], flags: EvmFlags) {
  const { runAbiCall } = await import("./abi-call.js");
  await runAbiCall(run, "eth_call", to, sig, args, flags);
}
