/**
 * zsh's and fish's completion scripts run in the real shells (scripts/setup.sh installs both for the tests):
 * the script `chaingw completion zsh|fish` prints is loaded as a user loads it, asked for the words after what
 * was typed, and must give what bash's does — files after `reserves verify` and `--abi`, each command's own
 * flags, the chain groups' names. chaingw is the bin under test, found on PATH as the scripts expect.
 */
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { trackDir } from "./helpers/procs.js";

const BIN = new URL("../bin/chaingw", import.meta.url).pathname;

/** A directory with p.json and notes.txt in it, and a PATH whose `chaingw` is the bin under test. */
async function setUp(shell: "zsh" | "fish"): Promise<{ dir: string; env: NodeJS.ProcessEnv }> {
  const dir = mkdtempSync(join(tmpdir(), `chaingw-${shell}-`));
  trackDir(dir);
  writeFileSync(join(dir, "p.json"), "{}");
  writeFileSync(join(dir, "notes.txt"), "");
  const bin = join(dir, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "chaingw"), `#!/bin/sh\nexec ${process.execPath} ${BIN} "$@"\n`);
  chmodSync(join(bin, "chaingw"), 0o755);
  writeFileSync(join(dir, `c.${shell}`), (await runCli(["completion", shell])).stdout);
  return { dir, env: { PATH: `${bin}:${process.env.PATH}`, HOME: dir, XDG_CONFIG_HOME: join(dir, "cfg") } };
}

describe("completion in the real zsh and fish", () => {
  it("fish: `complete -C` after the script is sourced gives files, each command's flags, group names", async () => {
    const { dir, env } = await setUp("fish");
    const complete = async (line: string): Promise<string[]> => {
      const r = await execa(
        "fish",
        ["--no-config", "-c", `source c.fish; complete -C ${JSON.stringify(line)}`],
        {
          cwd: dir,
          env,
          reject: false,
        },
      );
      expect(r.exitCode, r.stderr).toBe(0);
      // fish prints "candidate<TAB>description"
      return r.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split("\t")[0]);
    };
    expect(await complete("chaingw reserves verify ")).toEqual(
      expect.arrayContaining(["p.json", "notes.txt"]),
    );
    expect(await complete("chaingw call --abi p")).toContain("p.json");
    expect(await complete("chaingw reserves scan --ch")).toContain("--chunk");
    expect(await complete("chaingw reserves verify --ch")).not.toContain("--chunk");
    expect(await complete("chaingw reserves verify --u")).toContain("--url");
    expect(await complete("chaingw --url http://x reserves ")).toContain("verify");
    expect(await complete("chaingw --chain ev")).toEqual(["evm", "evm-compat"]);
    expect(await complete("chaingw getblockc")).toContain("getblockcount");
    expect(await complete("chaingw eth_getBalance 0x1 --e")).toEqual(["--ether"]);
  });

  it("zsh: _chaingw from the sourced script hands compadd the same words, and _files where files go", async () => {
    const { dir, env } = await setUp("zsh");
    // outside a completion widget compadd and _files are stood in for: each prints what it was handed;
    // words, CURRENT and PREFIX are set as zsh sets them when TAB is pressed after `line`
    const complete = async (...typed: string[]): Promise<string[]> => {
      const script = [
        "source ./c.zsh",
        'compadd() { print -rl -- "$@" }',
        '_files() { print -r -- FILES "$@" }',
        'words=("$@"); CURRENT=$#; PREFIX="$words[CURRENT]"',
        "_chaingw",
      ].join("\n");
      const r = await execa("zsh", ["-f", "-c", script, "zsh", ...typed], { cwd: dir, env, reject: false });
      expect(r.exitCode, r.stderr).toBe(0);
      return r.stdout.split("\n").filter((l) => l !== "" && l !== "--");
    };
    expect(await complete("chaingw", "reserves", "verify", "")).toEqual(["FILES"]);
    expect(await complete("chaingw", "call", "--abi", "")).toEqual(["FILES"]);
    expect(await complete("chaingw", "liabilities", "build", "--out", "")).toEqual(["FILES -/"]);
    expect(await complete("chaingw", "reserves", "scan", "--ch")).toContain("--chunk");
    expect(await complete("chaingw", "reserves", "verify", "--ch")).not.toContain("--chunk");
    expect(await complete("chaingw", "--chain", "ev")).toEqual(["evm", "evm-compat"]);
    expect(await complete("chaingw", "getblockc")).toContain("getblockcount");
    expect(await complete("chaingw", "eth_getBalance", "0x1", "--e")).toEqual(["--ether"]);
  });
});
