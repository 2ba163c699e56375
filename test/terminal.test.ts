/**
 * Terminal manners (issue 19): every command's help at 80 columns with no line wider and no word broken
 * (the words, in order, are those of the same help at 300 columns); `chaingw methods` as a table, markdown
 * and JSON from the registry; completion scripts that load in bash.
 */
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { methodNames, registry } from "../src/methods/index.js";
import { runCli } from "./helpers/cli.js";

const OTHER: string[][] = [
  [],
  ["rpc"],
  ["batch"],
  ["reserves"],
  ["reserves", "scan"],
  ["reserves", "verify"],
  ["verify-message"],
  ["reserves", "status"],
  ["reserves", "abort"],
  ["methods"],
  ["info"],
  ["config"],
  ["config", "init"],
  ["config", "show"],
  ["config", "check"],
  ["completion"],
];
const COMMANDS = [...methodNames().map((m) => [m]), ...OTHER];

const words = (t: string) => t.split(/\s+/).filter(Boolean);

describe("help fits the terminal", () => {
  it("every command's --help at COLUMNS=80: no line wider than 80, no word broken (2 processes at a time)", async () => {
    const jobs = [...COMMANDS];
    const bad: string[] = [];
    let done = 0;
    await Promise.all(
      [0, 1].map(async () => {
        for (let c = jobs.shift(); c; c = jobs.shift()) {
          const [narrow, wide] = await Promise.all([
            runCli([...c, "--help"], { env: { COLUMNS: "80" } }),
            runCli([...c, "--help"], { env: { COLUMNS: "300" } }),
          ]);
          expect(narrow.exitCode, c.join(" ")).toBe(0);
          for (const line of narrow.stdout.split("\n"))
            if (line.length > 80) bad.push(`${c.join(" ") || "(top)"}: ${line.length}: ${line}`);
          expect(words(narrow.stdout), c.join(" ")).toEqual(words(wide.stdout));
          done++;
        }
      }),
    );
    expect(bad).toEqual([]);
    expect(done).toBe(COMMANDS.length);
  });

  it("a long command signature sits on its own line, its description under it", async () => {
    const r = await runCli(["--help"], { env: { COLUMNS: "80" } });
    expect(r.stdout).toMatch(
      /^ {2}verify-message <address> <signature> <message>\n {30}check a signed message/m,
    );
    // the option column is narrow: descriptions start at column 30, not 65
    expect(r.stdout).toMatch(/^ {2}--url <url> {17}JSON-RPC node URL/m);
  });
});

describe("chaingw methods", () => {
  it("human: aligned columns with each mark's source; --markdown the README's table; --json the rows", async () => {
    const h = await runCli(["methods"], { env: { COLUMNS: "80" } });
    expect(h.exitCode).toBe(0);
    expect(h.stdout.split("\n").every((l) => l.length <= 80)).toBe(true);
    expect(h.stdout).toMatch(/^gettxout\s+utxo\s+yes\s+yes·spec\s+no·spec$/m);
    expect(h.stdout).toMatch(/^getblockcount\s+utxo\s+no\s+yes·chaingw\s+no·chaingw$/m);
    const md = await runCli(["methods", "--markdown"]);
    expect(md.stdout).toContain(
      "| utxo | `scantxoutset` | yes | action, scanobjects? | no (chaingw) | yes (spec) |",
    );
    expect(md.stdout).toContain(
      "| evm | `eth_getBlockByHash` | no | blockHash, fullTransactions? | yes (chaingw) | no (chaingw) |",
    );
    const j = await runCli(["methods", "--json"]);
    const rows = JSON.parse(j.stdout) as { method: string; group: string; inSpec: boolean }[];
    expect(rows).toHaveLength(registry().length);
    expect(rows.find((r) => r.method === "eth_getBlockByHash" && r.group === "evm-compat")?.inSpec).toBe(
      true,
    );
    expect(rows.find((r) => r.method === "getblockcount")?.inSpec).toBe(false);
  });
});

describe("completion", () => {
  it("bash: the script loads and completes methods, flags, chain groups and profile names", async () => {
    const bin = new URL("../bin/chaingw", import.meta.url).pathname;
    const script = `
      chaingw() { node ${bin} "$@"; }
      source <(chaingw completion bash) || exit 9
      COMP_WORDS=(chaingw getblockc); COMP_CWORD=1; _chaingw; echo "1:\${COMPREPLY[*]}"
      COMP_WORDS=(chaingw --cha); COMP_CWORD=1; _chaingw; echo "2:\${COMPREPLY[*]}"
      COMP_WORDS=(chaingw --chain evm-); COMP_CWORD=2; _chaingw; echo "3:\${COMPREPLY[*]}"
      COMP_WORDS=(chaingw --profile ""); COMP_CWORD=2; _chaingw; echo "4:\${COMPREPLY[*]}"
      COMP_WORDS=(chaingw eth_call --t); COMP_CWORD=2; _chaingw; echo "5:\${COMPREPLY[*]}"
    `;
    const dir = (await import("node:fs")).mkdtempSync(`${(await import("node:os")).tmpdir()}/chaingw-compl-`);
    const cfg = `${dir}/config.json`;
    (await import("node:fs")).writeFileSync(cfg, JSON.stringify({ profiles: { alpha: {}, beta: {} } }));
    const r = await execa("bash", ["-c", script], { reject: false, env: { CHAINGW_CONFIG: cfg } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/1:(\S+ )*getblockcount/);
    expect(r.stdout).toContain("2:--chain");
    expect(r.stdout).toContain("3:evm-compat");
    expect(r.stdout).toContain("4:alpha beta");
    expect(r.stdout).toMatch(/5:.*--to/);
  });

  it("bash -c 'source <(chaingw completion bash)'; zsh and fish scripts print; anything else exit 2", async () => {
    const bin = new URL("../bin/chaingw", import.meta.url).pathname;
    const r = await execa("bash", ["-c", `source <(node ${bin} completion bash)`], { reject: false });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe("");
    for (const sh of ["zsh", "fish"]) {
      const s = await runCli(["completion", sh]);
      expect(s.exitCode).toBe(0);
      expect(s.stdout).toContain(`completion ${sh} --words --`);
    }
    expect((await runCli(["completion", "tcsh"])).exitCode).toBe(2);
  });
});
