/** `chaingw config profiles` (hidden): the profile names, one a line, for shell completion. */
import type { Command } from "commander";
import { loadConfig } from "../../../config/config.js";
import type { Run } from "../../run.js";

export function declareProfiles(config: Command, run: Run): void {
  config
    .command("profiles", { hidden: true })
    .description("the profile names, one a line (for shell completion)")
    .action(() => runProfiles(run));
}

export function runProfiles(run: Run): void {
  try {
    const { file } = loadConfig(run.env);
    const names = Object.keys(file?.profiles ?? {});
    if (names.length) run.out(names.join("\n"));
  } catch {
    // completion asks this on every <TAB>: a broken file lists nothing, silently
  }
}
