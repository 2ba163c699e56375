/**
 * Shell completion is derived from the command tree (issue 23): the test walks every command the help
 * shows, every subcommand and every flag, and checks that the bash, zsh and fish scripts each offer them.
 * Nothing here lists a command by hand either: a new command or flag is checked the day it is added.
 */
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";

/** The command names and the --flags of one help page. */
function parseHelp(text: string): { commands: string[]; flags: string[] } {
  // the Commands: block ends at its first blank line (a footer may follow)
  const section = (text.split(/^Commands:$/m)[1] ?? "").split(/\n\s*\n/)[0] ?? "";
  const commands = [...section.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((m) => m[1] as string);
  const options = text.split(/^Commands:$/m)[0] ?? "";
  const flags = [...options.matchAll(/(?:^|[\s,])(--[a-z][a-z0-9-]*)/gm)].map((m) => m[1] as string);
  return { commands, flags };
}

describe("completion offers every command, subcommand and flag in bash, zsh and fish", () => {
  it("walks the help tree and finds each word in each script", { timeout: 240_000 }, async () => {
    const top = parseHelp((await runCli(["--help"])).stdout);
    expect(top.commands).toEqual(
      expect.arrayContaining(["reserves", "serve", "call", "logs", "liabilities"]),
    );
    const words = new Set<string>([...top.commands, ...top.flags]);
    const subs: [string, string][] = [];
    // the family commands (not registry methods): each help page, and each of its subcommands' pages
    const methods = new Set(
      (JSON.parse((await runCli(["methods", "--json"])).stdout) as { method: string }[]).map((m) => m.method),
    );
    const queue: string[][] = top.commands.filter((c) => !methods.has(c) && c !== "help").map((c) => [c]);
    // level by level, each level's pages read side by side (process starts dominate)
    let level = queue;
    for (let depth = 0; depth < 4 && level.length; depth++) {
      // four at a time: a page is a process start
      const pages: { stdout: string }[] = [];
      for (let k = 0; k < level.length; k += 4)
        pages.push(...(await Promise.all(level.slice(k, k + 4).map((path) => runCli([...path, "--help"])))));
      const next: string[][] = [];
      pages.forEach((r, k) => {
        const path = level[k] as string[];
        // a word that is no command of its own (e.g. `params`) answers with the top page: not a level
        if (!r.stdout.startsWith(`Usage: chaingw ${path.join(" ")}`)) return;
        const page = parseHelp(r.stdout);
        for (const f of page.flags) words.add(f);
        for (const c of page.commands) {
          if (c === "help") continue;
          words.add(c);
          subs.push([path[path.length - 1] as string, c]);
          next.push([...path, c]);
        }
      });
      level = next;
    }
    expect(subs).toContainEqual(["reserves", "balances"]);
    expect(subs).toContainEqual(["liabilities", "build"]);
    for (const shell of ["bash", "zsh", "fish"]) {
      const script = (await runCli(["completion", shell])).stdout;
      const missing = [...words].filter(
        (w) => !new RegExp(`(^|[\\s"(=])(${w.replace(/^--/, "(--)?")})([\\s");]|$)`, "m").test(script),
      );
      expect(missing, `${shell} lacks ${missing.join(" ")}`).toEqual([]);
      // each subcommand is offered after its parent
      for (const [parent, sub] of subs) {
        const line = script
          .split("\n")
          .find((l) => new RegExp(`^\\s*${parent}\\)|__fish_seen_subcommand_from ${parent}"`).test(l));
        expect(line, `${shell}: no completion after ${parent}`).toBeDefined();
        expect(line).toContain(sub);
      }
    }
  });
});
