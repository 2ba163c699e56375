/** `chaingw decode SIG HEX`: ABI-decode a call's answer or its calldata (no node is asked). */
import type { Command } from "commander";
import { UsageError } from "../../../errors/index.js";
import { refuseCsv } from "../../options.js";
import type { Run } from "../../run.js";
import { displayUnit, offlineChain, paramUsage } from "./common.js";
import { type EvmFlags, evmFlags, SIG_HELP, unitOptions } from "./options.js";

export function declareDecode(program: Command, run: Run): void {
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
  ).action((sig: string, hex: string, _o: unknown, command: Command) =>
    runDecode(run, sig, hex, evmFlags(command)),
  );
}

export async function runDecode(run: Run, sig: string, hex: string, flags: EvmFlags): Promise<void> {
  refuseCsv(run, "decode");
  const chain = offlineChain(run, flags, "decode");
  if (!/^0x([0-9a-fA-F]{2})*$/.test(hex.trim()))
    throw new UsageError(`decode: expected 0x hex bytes, got ${JSON.stringify(hex.slice(0, 40))}`);
  const { abi, functionOf, printValues } = await import("./abi-call.js");
  const { fn } = functionOf("decode", sig, 0, flags);
  const asInput = flags.input || fn.outputs.length === 0;
  let data = hex.trim().toLowerCase();
  // calldata carries the selector first: check it and skip it
  if (asInput && data.slice(0, 10) === abi.selectorOf(fn)) data = `0x${data.slice(10)}`;
  const params = asInput ? fn.inputs : fn.outputs;
  const values = paramUsage("decode", () => abi.decodeValues(params, data));
  printValues(run, params, values, displayUnit(flags, chain, "decode"));
}
