/** `chaingw config init|show|check|profiles` and `chaingw completion bash|zsh|fish`: declarations only. */
import type { Command } from "commander";
import type { GlobalFlags } from "../config/config.js";
import type { Run } from "./context.js";

export function configCommand(program: Command, run: Run): void {
  const config = program
    .command("config")
    .description("the config file: write a starter, show what applies, check it");
  config
    .command("init")
    .description("write a commented starter config file (refuses to overwrite one)")
    .option(
      "--path <file>",
      "where to write it (default: $CHAINGW_CONFIG or $XDG_CONFIG_HOME/chaingw/config.json)",
    )
    .action(async (o: { path?: string }) => {
      const { configInit } = await import("./config-run.js");
      configInit(run, o.path);
    });
  config
    .command("show")
    .description(
      "every effective setting and where it comes from (flag, env, profile, default); secrets masked",
    )
    .action(async (_o: unknown, command: Command) => {
      const { configShow } = await import("./config-run.js");
      configShow(run, command.optsWithGlobals() as GlobalFlags);
    });
  config
    .command("check")
    .description("check the config file: unknown keys and wrong types, with the line and a did-you-mean")
    .action(async () => {
      const { configCheck } = await import("./config-run.js");
      configCheck(run);
    });
  config
    .command("profiles", { hidden: true })
    .description("the profile names, one a line (for shell completion)")
    .action(async () => {
      const { configProfiles } = await import("./config-run.js");
      configProfiles(run);
    });
}

export function completionCommand(program: Command, run: Run): void {
  program
    .command("completion")
    .description("print a shell completion script: source <(chaingw completion bash)")
    .argument("<shell>", "bash, zsh or fish")
    .action(async (shell: string) => {
      const { completionScript } = await import("./completion.js");
      run.out(completionScript(shell, program));
    });
}
