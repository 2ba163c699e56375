/** `chaingw config check`: unknown keys and wrong types in the config file, with the line and a did-you-mean. */
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { checkConfigText } from "../../../config/check.js";
import { configPath, loadConfig } from "../../../config/config.js";
import { UsageError } from "../../../errors/index.js";
import type { Run } from "../../run.js";

export function declareCheck(config: Command, run: Run): void {
  config
    .command("check")
    .description("check the config file: unknown keys and wrong types, with the line and a did-you-mean")
    .action(() => runCheck(run));
}

export function runCheck(run: Run): void {
  const path = configPath(run.env);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT" && !run.env.CHAINGW_CONFIG) {
      run.print(
        { path, exists: false },
        () => `no config file at ${path} (nothing to check; \`chaingw config init\` writes one)`,
      );
      return;
    }
    throw new UsageError(`cannot read config file ${path}: ${(e as NodeJS.ErrnoException).code ?? e}`);
  }
  // not JSON: the loader's message names the line
  const { file } = (() => {
    try {
      JSON.parse(text);
    } catch {
      loadConfig(run.env);
    }
    return { file: JSON.parse(text) as { profiles?: Record<string, unknown> } };
  })();
  const problems = checkConfigText(text, { references: true });
  if (problems.length)
    throw new UsageError(
      `config file ${path}: ${problems.length} problem${problems.length === 1 ? "" : "s"}`,
      {
        details: problems,
      },
    );
  const names = Object.keys(file.profiles ?? {});
  run.print(
    { path, ok: true, profiles: names },
    () =>
      `${path}: ok (${names.length} profile${names.length === 1 ? "" : "s"}${names.length ? `: ${names.join(", ")}` : ""})`,
  );
}
