/**
 * The commands of the registry's methods, one per method name (`chaingw getblock <hash>`): arguments from
 * the widest param list over the groups, the method's own options, `--range` where the method walks
 * heights, help from the registry. Declared from the registry; nothing here names a method.
 */
import type { Command } from "commander";
import { chainFromFlags, type GlobalFlags } from "../../../config/config.js";
import { UsageError } from "../../../errors/index.js";
import { definitions, findMethod, marksText, methodHelp } from "../../../methods/index.js";
import { wrapWords } from "../../../util/text.js";
import { GLOBAL_NOTE, helpWidth } from "../../help.js";
import { collect, refuseCsv, takesCsv } from "../../options.js";
import type { Run } from "../../run.js";
import { addBatchOptions } from "../batch.js";

/** Declares the commands of `names` (a call names its method: only that one is built). */
export function declareMethodCommands(
  program: Command,
  run: Run,
  argv: readonly string[],
  names: readonly string[],
): void {
  // params by name or from stdin: how many come on the command line, and in which slots, is not commander's
  // to judge (buildParams names what is missing or too much)
  const loose = argv.some((a) => a === "--named" || a === "--stdin");
  for (const name of names) {
    const defs = definitions(name);
    const d = defs[0];
    const cmd = program
      .command(name)
      .description(`${d.summary} [${defs.map((x) => `${x.group}: ${marksText(x)}`).join("; ")}]`);
    // the widest param list over the groups; each group validates its own
    const widest = defs.reduce((a, b) => (b.params.length > a.params.length ? b : a));
    const ranged = defs.some((x) => x.range);
    for (const [i, p] of widest.params.entries()) {
      // with --range the first param comes from the range: commander must not demand it
      const required =
        !loose &&
        !(ranged && i === 0) &&
        defs.every(
          (x) =>
            x.params.find((q) => q.name === p.name)?.required &&
            x.params.find((q) => q.name === p.name)?.default === undefined,
        );
      cmd.argument(required ? `<${p.name}>` : `[${p.name}]`, `${p.type}: ${p.help}`);
    }
    const seen = new Set<string>();
    for (const x of defs)
      for (const o of x.options ?? []) {
        if (seen.has(o.flags)) continue;
        seen.add(o.flags);
        if (o.repeatable) cmd.option(o.flags, o.help, collect);
        else cmd.option(o.flags, o.help);
      }
    if (defs.some((x) => x.verify))
      cmd.option("--no-verify", "skip the chain's integrity checks on the result");
    if (ranged) {
      addBatchOptions(
        cmd.option("--range <from..to>", "every height in the range, streamed as JSON lines (batched)"),
      );
    }
    // its table as CSV where the method prints one (src/methods/types.ts, `table`); refused by name elsewhere
    if (defs.some((x) => x.table)) takesCsv(cmd);
    if (loose) cmd.allowExcessArguments(true);
    cmd.addHelpText("after", () => {
      const width = helpWidth(run.stdout, run.env);
      return `${wrapWords(methodHelp(name), width, "     ")}\n\n${wrapWords(GLOBAL_NOTE, width)}`;
    });
    cmd.action(async (...args: unknown[]) => {
      const command = args[args.length - 1] as Command;
      const flags = command.optsWithGlobals() as GlobalFlags & { range?: string; split?: string | boolean };
      if (flags.split !== undefined) {
        // eth_getLogs over any range: the logs workflow splits it (src/evm/logs.ts)
        const { runSplitGetLogs } = await import("../evm/log-stream.js");
        return runSplitGetLogs(run, command.args, flags, command.opts());
      }
      if (flags.range !== undefined) {
        refuseCsv(run, `${name} --range`, "it streams JSON lines");
        const def = findMethod(name, chainFromFlags(flags, run.env));
        if (!def.range)
          throw new UsageError(`--range is not available for ${name} on the ${def.group} group`);
        const { runRange } = await import("../batch.js");
        return runRange(run, def, flags.range, command.args, flags);
      }
      const { runMethod } = await import("./call.js");
      await runMethod(run, name, command.args, flags, command.opts());
    });
  }
}
