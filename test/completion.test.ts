/**
 * Shell completion is one entry point, `chaingw completion SHELL --words -- WORD…`, that the bash, zsh and fish
 * scripts call, answering from the command tree and the registry (issue 23, issue 39 item 9). The walk here
 * reads every help page and asks the entry point, in each page's context, for its subcommands and its flags:
 * nothing lists a command by hand, so a new command or flag is checked the day it is added. Bash runs the real
 * script (terminal.test.ts, operator-side-by-side.test.ts); zsh and fish are not installed on the test host,
 * so their scripts are checked for the call they make and the entry point is asked as each of them asks it.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { inProcess } from "./helpers/in-process.js";

/** What the entry point answers for the words (the last one under the cursor): its kind and candidates. */
async function complete(shell: string, words: string[], env: NodeJS.ProcessEnv = {}) {
  const r = await inProcess(["completion", shell, "--words", "--", ...words], env);
  expect(r.exitCode).toBe(0);
  const [kind, ...candidates] = r.stdout.replace(/\n$/, "").split("\n");
  return { kind, candidates };
}

/** The command names and the --flags of one help page (the options' own terms, not flags named in a text). */
function parseHelp(text: string): { commands: string[]; flags: string[] } {
  // the Commands: block ends at its first blank line (a footer may follow)
  const section = (text.split(/^Commands:$/m)[1] ?? "").split(/\n\s*\n/)[0] ?? "";
  const commands = [...section.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((m) => m[1] as string);
  const options = text.split(/^Commands:$/m)[0] ?? "";
  const flags = [...options.matchAll(/^ {2}(?:-\w, )?(--[a-z][a-z0-9-]*)/gm)].map((m) => m[1] as string);
  return { commands, flags };
}

describe("completion: one entry point for bash, zsh and fish, from the command tree", () => {
  it("every help page's subcommands and flags complete in its context, in each shell", async () => {
    const top = parseHelp((await inProcess(["--help"])).stdout);
    expect(top.commands).toEqual(
      expect.arrayContaining(["reserves", "serve", "call", "logs", "liabilities"]),
    );
    const methods = (JSON.parse((await inProcess(["methods", "--json"])).stdout) as { method: string }[]).map(
      (m) => m.method,
    );
    // the top: every command and every method, and the global flags
    for (const shell of ["bash", "zsh", "fish"]) {
      const words = (await complete(shell, [""])).candidates;
      expect(words).toEqual(expect.arrayContaining([...top.commands, ...methods]));
      expect((await complete(shell, ["--"])).candidates).toEqual(expect.arrayContaining(top.flags));
    }
    // each family page, level by level: its subcommands after it, its own flags (and the global ones) after it
    let level = top.commands.filter((c) => !methods.includes(c) && c !== "help").map((c) => [c]);
    const seen: string[] = [];
    for (let depth = 0; depth < 4 && level.length; depth++) {
      const next: string[][] = [];
      for (const path of level) {
        const help = await inProcess([...path, "--help"]);
        if (!help.stdout.startsWith(`Usage: chaingw ${path.join(" ")}`)) continue;
        const page = parseHelp(help.stdout);
        const flags = await complete("bash", [...path, "--"]);
        expect(flags.candidates, path.join(" ")).toEqual(expect.arrayContaining(page.flags));
        const subs = page.commands.filter((c) => c !== "help");
        if (subs.length)
          expect((await complete("bash", [...path, ""])).candidates, path.join(" ")).toEqual(subs);
        for (const c of subs) next.push([...path, c]);
        seen.push(path.join(" "));
      }
      level = next;
    }
    expect(seen).toEqual(expect.arrayContaining(["reserves balances", "liabilities build", "config init"]));
    // a method's own flags (and not another method's)
    expect((await complete("bash", ["eth_getBalance", "0x1", "--e"])).candidates).toEqual(["--ether"]);
    expect((await complete("bash", ["getblockcount", "--e"])).candidates).not.toContain("--ether");
  });

  it("the context: files, directories, tables, profiles, each command's own flags; the same in each shell", async () => {
    const cfg = join(mkdtempSync(join(tmpdir(), "chaingw-compl-")), "config.json");
    writeFileSync(cfg, JSON.stringify({ profiles: { alpha: {}, beta: {} } }));
    const cases: [string[], string, string[] | ((c: string[]) => void)][] = [
      [["reserves", "verify", ""], "files", []],
      [["reserves", "report", "a.json", "b.json", ""], "files", []],
      [["liabilities", "verify", "p.json", ""], "files", []],
      [["call", "--abi", ""], "files", []],
      [["--datadir", ""], "dirs", []],
      [["--chain", "evm"], "words", ["evm", "evm-compat"]],
      [["--chain=ev"], "words", ["--chain=evm", "--chain=evm-compat"]],
      // bash splits `--chain=ev` at the `=`
      [["--chain", "=", "ev"], "words", ["evm", "evm-compat"]],
      [["--chain", "="], "words", ["=utxo", "=evm", "=evm-compat"]],
      [["--network", ""], "words", ["main", "test", "regtest", "signet"]],
      [["--format", "j"], "words", ["json", "jsonl"]],
      [["--profile", ""], "words", ["alpha", "beta"]],
      [
        ["--url", "http://x", "reserves", ""],
        "words",
        ["scan", "verify", "balances", "report", "status", "abort", "sign-help"],
      ],
      [["completion", ""], "words", ["bash", "zsh", "fish"]],
      [["help", "reser"], "words", ["reserves"]],
      [
        ["reserves", "scan", "--ch"],
        "words",
        (c) => expect(c).toEqual(expect.arrayContaining(["--chunk", "--challenge", "--chain"])),
      ],
      [["reserves", "verify", "--ch"], "words", (c) => expect(c).not.toContain("--chunk")],
      [["reserves", "verify", "--u"], "words", ["--url"]],
      // a method's params are the node's: nothing offered (no command names, no files)
      [["getblock", ""], "words", []],
      [["eth_call", "--t"], "words", (c) => expect(c).toContain("--to")],
    ];
    for (const shell of ["bash", "zsh", "fish"])
      for (const [words, kind, want] of cases) {
        const got = await complete(shell, words, { CHAINGW_CONFIG: cfg });
        expect(got.kind, `${shell}: ${words.join(" ")}`).toBe(kind);
        if (typeof want === "function") want(got.candidates);
        else expect(got.candidates, `${shell}: ${words.join(" ")}`).toEqual(want);
      }
  });

  it("each shell's script hands the words to the entry point; another shell is exit 2", async () => {
    const scripts = Object.fromEntries(
      await Promise.all(
        ["bash", "zsh", "fish"].map(async (s) => [s, (await inProcess(["completion", s])).stdout] as const),
      ),
    );
    expect(scripts.bash).toContain(`completion bash --words -- "\${COMP_WORDS[@]:1:COMP_CWORD}"`);
    expect(scripts.zsh).toContain(`completion zsh --words -- "\${(@)words[2,CURRENT-1]}" "$PREFIX"`);
    expect(scripts.zsh).toMatch(/^#compdef chaingw/);
    expect(scripts.fish).toContain('completion fish --words -- $toks "$cur"');
    expect(scripts.fish).toContain("complete -c chaingw -f -a '(__chaingw_complete)'");
    const bad = await runCli(["completion", "tcsh"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("expected bash, zsh or fish");
  });
});
