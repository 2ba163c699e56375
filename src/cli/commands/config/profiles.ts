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

/** The config file's profile names; none when there is no file or it cannot be read. */
export function listProfiles(env: NodeJS.ProcessEnv): string[] {
  try {
    return Object.keys(loadConfig(env).file?.profiles ?? {});
  } catch {
    // completion asks this on every <TAB>: a broken file lists nothing, silently
    return [];
  }
}

export function runProfiles(run: Run): void {
  const names = listProfiles(run.env);
  if (names.length) run.out(names.join("\n"));
}
