/** `chaingw config show`: every effective setting and where it comes from; secrets masked. */
import type { Command } from "commander";
import { describeSettings, type GlobalFlags } from "../../../config/config.js";
import type { Run } from "../../run.js";

export function declareShow(config: Command, run: Run): void {
  config
    .command("show")
    .description(
      "every effective setting and where it comes from (flag, env, profile, default); secrets masked",
    )
    .action((_o: unknown, command: Command) => runShow(run, command.optsWithGlobals() as GlobalFlags));
}

export function runShow(run: Run, flags: GlobalFlags): void {
  const rows = describeSettings(flags, run.env);
  run.print(rows, () => {
    const w = Math.max(...rows.map((r) => r.setting.length));
    const v = Math.min(60, Math.max(...rows.map((r) => r.value.length)));
    return rows.map((r) => `${r.setting.padEnd(w)}  ${r.value.padEnd(v)}  ${r.source}`.trimEnd()).join("\n");
  });
}
