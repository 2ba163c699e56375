/** `chaingw rpc METHOD [PARAMS…]`: any method sent verbatim; params are JSON where they parse, else strings. */
import type { Command } from "commander";
import type { GlobalFlags } from "../../config/config.js";
import { wrapWords } from "../../util/text.js";
import { GLOBAL_NOTE, helpWidth } from "../help.js";
import type { Run } from "../run.js";

export function declareRpc(program: Command, run: Run): void {
  program
    .command("rpc")
    .description("send any method verbatim; params are JSON where they parse, else strings")
    .addHelpText("after", () => `\n${wrapWords(GLOBAL_NOTE, helpWidth(run.stdout, run.env))}`)
    .argument("<method>", "method name")
    .argument("[params...]", "positional params")
    .action(async (method: string, params: string[], _o: unknown, command: Command) => {
      const { runRaw } = await import("./method/call.js");
      await runRaw(run, method, params, command.optsWithGlobals() as GlobalFlags);
    });
}
