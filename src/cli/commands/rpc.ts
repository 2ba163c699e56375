/**
 * `chaingw rpc METHOD [PARAMS…]`: any method sent verbatim, its params typed as litecoin-cli types them
 * (src/methods/raw-params.ts); `--json-params`: JSON where they parse, else strings.
 */
import type { Command } from "commander";
import type { GlobalFlags } from "../../config/config.js";
import { wrapWords } from "../../util/text.js";
import { GLOBAL_NOTE, helpWidth } from "../help.js";
import { takesCsv } from "../options.js";
import type { Run } from "../run.js";

export function declareRpc(program: Command, run: Run): void {
  // --format csv where the registry knows the method's answer is a table (runRaw refuses the rest by name)
  takesCsv(program.command("rpc"))
    .description(
      "send any method verbatim; params typed as bitcoin-cli types them (the registry's methods by the registry, others by bitcoin-cli's list of JSON params, the rest strings; EVM methods as cast rpc: JSON where it parses)",
    )
    .addHelpText("after", () => `\n${wrapWords(GLOBAL_NOTE, helpWidth(run.stdout, run.env))}`)
    .argument("<method>", "method name")
    .argument("[params...]", "positional params")
    .option("--json-params", "read every param as JSON where it parses, else as a string")
    .action(async (method: string, params: string[], _o: unknown, command: Command) => {
      const { runRaw } = await import("./method/call.js");
      await runRaw(run, method, params, command.optsWithGlobals() as GlobalFlags & { jsonParams?: boolean });
    });
}
