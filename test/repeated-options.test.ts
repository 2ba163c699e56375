/**
 * Issue 45, item 3: no silent last-wins. Every option of every command (walked from the built tree, so a
 * command added later is checked too) either refuses a second value — exit 2, both values named, nothing
 * sent — or adds it up, and then its --help says "repeatable". Then the issue's own cases end to end through
 * the built CLI, with a counting HTTP server where a request could have gone: the fast path of a plain call,
 * solvency's --liabilities and --challenge, KEY=VALUE options naming one key twice, bitcoin-cli's spellings,
 * secrets kept out of the message, and a flag given once still overriding the environment.
 */
import { fileURLToPath } from "node:url";
import type { Command, Option } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plainCall } from "../src/cli/fast.js";
import { GLOBAL_OPTIONS } from "../src/cli/global-options.js";
import { buildProgram } from "../src/cli/main.js";
import { onePerKey } from "../src/cli/options.js";
import { Run } from "../src/cli/run.js";
import { type FaultServer, startFaultServer } from "./fixtures/faults.js";
import { runCli } from "./helpers/cli.js";

class Stopped extends Error {}

/** How commander's tree takes `argv` (stopped before any action runs): "stopped" or the error's message. */
async function parse(argv: string[]): Promise<string> {
  const program: Command = buildProgram(argv, new Run("human", {}));
  program.hook("preAction", () => {
    throw new Stopped();
  });
  try {
    await program.parseAsync(argv, { from: "user" });
    return "stopped";
  } catch (e) {
    return e instanceof Stopped ? "stopped" : (e as Error).message;
  }
}

interface Case {
  path: string[];
  option: Option;
}

/** Every option that takes a value, with the command path it belongs to (global options: the program's). */
function everyValueOption(): Case[] {
  const out: Case[] = [];
  const walk = (c: Command, path: string[]) => {
    for (const o of c.options) if (o.required || o.optional) out.push({ path, option: o });
    for (const s of c.commands) walk(s, [...path, s.name()]);
  };
  walk(buildProgram(["--help"], new Run("human", {})), []);
  return out;
}

describe("every option of the tree: one value, or 'repeatable' in its help", () => {
  it("a repeat is refused naming both values, unless the help says the option adds up", async () => {
    const cases = everyValueOption();
    const wrong: string[] = [];
    let refused = 0;
    let added = 0;
    for (const { path, option: o } of cases) {
      const flag = (o.long ?? o.short) as string;
      const [a, b] = o.argChoices ? [o.argChoices[0], o.argChoices[1]] : ["7", "9"];
      // a global option before a method call, a command's own after its path
      const argv = path.length ? [...path, flag, a, flag, b] : [flag, a, flag, b, "getblockcount"];
      const said = await parse(argv);
      const repeatable = /repeatable/i.test(o.description);
      const twice = said.includes(`${flag} given twice`);
      if (repeatable) {
        added++;
        if (twice) wrong.push(`${argv.join(" ")}: refused, but its help says repeatable`);
      } else {
        refused++;
        const hidden = o.hidden;
        const both = hidden ? said.includes("***, then ***") : said.includes(`"${a}", then "${b}"`);
        if (!twice || !both) wrong.push(`${argv.join(" ")}: ${said}`);
      }
    }
    expect(wrong).toEqual([]);
    // the walk reached the whole tree: global options, method commands, every family's subcommands
    expect(refused).toBeGreaterThan(100);
    expect(added).toBeGreaterThan(15);
    const paths = new Set(cases.map((c) => c.path.join(" ")));
    for (const p of [
      "",
      "solvency",
      "reserves verify",
      "liabilities verify",
      "serve keys add",
      "eth_getLogs",
    ])
      expect(paths.has(p), p).toBe(true);
  });

  it("an optional-value option given bare, then with a value, is refused too", async () => {
    expect(await parse(["eth_getLogs", "--split", "--split", "50"])).toContain("--split given twice");
    expect(await parse(["reserves", "scan", "--progress", "3", "--progress", "x"])).toContain(
      '--progress given twice ("3", then "x")',
    );
  });

  it("the fast path leaves a repeated one-value global option to the tree, a repeatable one it reads", () => {
    // every one-value global option of the one list, repeated: the fast path never settles it itself
    for (const o of GLOBAL_OPTIONS) {
      const long = o.flags.split(/[ ,]+/).find((w) => w.startsWith("--")) as string;
      if (!/[<[]/.test(o.flags) || o.repeatable) continue;
      const [a, b] = o.choices ? [o.choices[0], o.choices[1]] : ["7", "9"];
      expect(plainCall([long, a as string, `${long}=${b}`, "getblockcount"]), long).toBeUndefined();
    }
    expect(plainCall(["--retries", "1", "--retries", "2", "getblockcount"])).toBeUndefined();
    expect(plainCall(["--timeout=1", "--timeout", "2", "getblockcount"])).toBeUndefined();
    expect(plainCall(["--url", "http://a/", "--url", "http://b/", "getblockcount"])?.flags).toEqual({
      url: ["http://a/", "http://b/"],
    });
  });
});

describe("the issue's cases, through the built CLI", () => {
  let fs: FaultServer;
  beforeAll(async () => {
    fs = await startFaultServer({ fault: { kind: "status", status: 500 } });
  });
  afterAll(async () => {
    await fs.stop();
  });

  /** Runs chaingw; asserts exit 2, nothing on stdout, no request to the counting server; gives stderr. */
  async function refusedWith(args: string[], env?: Record<string, string>): Promise<string> {
    const before = fs.hits;
    const r = await runCli(args, { env });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stdout).toBe("");
    expect(fs.hits).toBe(before);
    return r.stderr;
  }

  it("a plain call (the fast path): --retries twice is exit 2 naming both, nothing sent", async () => {
    const err = await refusedWith(["--url", fs.url, "--retries", "1", "getblockcount", "--retries", "2"]);
    expect(err).toContain('--retries given twice ("1", then "2"): it takes one value');
  });

  it("solvency: --liabilities part1 --liabilities part2 is refused, not part 2 alone", async () => {
    const err = await refusedWith([
      "solvency",
      "--liabilities",
      "part1/commitment.json",
      "--liabilities",
      "part2/commitment.json",
      "--reserves",
      "LTC=proof.json",
    ]);
    expect(err).toContain(
      '--liabilities given twice ("part1/commitment.json", then "part2/commitment.json")',
    );
  });

  it("--challenge A --challenge B is refused (solvency, reserves verify), not B enforced alone", async () => {
    const args = ["--challenge", "audit A", "--challenge", "audit B"];
    for (const cmd of [
      ["solvency", "--liabilities", "c.json", "--verify", "--url-for", `utxo=${fs.url}`],
      ["--url", fs.url, "reserves", "verify", "proof.json"],
    ]) {
      const err = await refusedWith([...cmd, ...args]);
      expect(err).toContain('--challenge given twice ("audit A", then "audit B")');
    }
  });

  it("a KEY=VALUE option naming one key twice is refused (credentials cut); two keys add up", async () => {
    const pairs: [string, string][] = [
      ["USDT", "0x0000000000000000000000000000000000000001"],
      ["USDT", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"],
    ];
    // --token's key is the symbol and the kind of address: one EVM and one TRON contract for USDT add up
    expect(onePerKey("--token", pairs, ([k, a]) => `${k} ${a[0]}`)).toEqual(pairs);
    const err = await refusedWith([
      "reserves",
      "report",
      "--verify",
      "--url-for",
      `utxo=${fs.url}`,
      "--url-for",
      "utxo=http://user:hunter22@127.0.0.1:1/",
      "p.json",
    ]);
    expect(err).toContain(`--url-for names "utxo" twice ("${fs.url}", then "http://127.0.0.1:1/")`);
    expect(err).not.toContain("hunter22");
    const node = await refusedWith([
      "reserves",
      "verify",
      "--node",
      `ETH=${fs.url}`,
      "--node",
      "eth=http://127.0.0.1:2/",
      fileURLToPath(new URL("./fixtures/exchange/ownership/okx_por_example_2022-11.csv", import.meta.url)),
    ]);
    expect(node).toContain('--node names "ETH" twice');
  });

  it("bitcoin-cli's spellings are the same options: -rpcport=1 --rpc-port 2, -regtest -testnet", async () => {
    expect(await refusedWith(["-rpcport=1", "--rpc-port", "2", "getblockcount"])).toContain(
      '--rpc-port given twice ("1", then "2")',
    );
    expect(await refusedWith(["-regtest", "-testnet", "getblockcount"])).toContain(
      '--network given twice ("regtest", then "test")',
    );
  });

  it("a secret given twice is named by its option, never by its value", async () => {
    const err = await refusedWith([
      "--gateway",
      fs.url,
      "--product",
      "p",
      "--api-key",
      "s3cr3t-first",
      "--api-key",
      "s3cr3t-second",
      "getblockcount",
    ]);
    expect(err).toContain("--api-key given twice (***, then ***)");
    expect(err).not.toContain("s3cr3t");
  });

  it("two spellings of one setting that disagree: --json beside --format csv, in either order, is refused", async () => {
    for (const args of [
      ["--json", "--url", fs.url, "--format", "csv", "getblockcount"],
      ["--url", fs.url, "getblockcount", "--format", "human", "--json"],
      ["--json", "--format", "jsonl", "reserves", "verify", "--url", fs.url, "p.json"],
    ]) {
      const err = await refusedWith(args);
      expect(err).toMatch(
        /--json and --format (csv|human|jsonl) name two output formats \(--json is --format json\)/,
      );
    }
    expect(plainCall(["--json", "--format", "csv", "getblockcount"])).toBeUndefined();
    // agreeing spellings are one setting: sent
    const before = fs.hits;
    const r = await runCli([
      "--json",
      "--format",
      "json",
      "--url",
      fs.url,
      "--retries",
      "0",
      "getblockcount",
    ]);
    expect(r.exitCode, r.stderr).toBe(3);
    expect(fs.hits).toBe(before + 1);
  });

  it("two flags for one credential are refused, the secret never shown: --api-key with --api-key-file, --rpc-user with --rpc-cookie", async () => {
    const key = await refusedWith([
      "--gateway",
      fs.url,
      "--product",
      "p",
      "--api-key-file",
      "/dev/null",
      "--api-key",
      "s3cr3t-key",
      "getblockcount",
    ]);
    expect(key).toContain("--api-key and --api-key-file both give the gateway's API key: give one");
    expect(key).not.toContain("s3cr3t");
    const node = await refusedWith([
      "-rpcuser=u",
      "-rpcpassword=s3cr3t-pass",
      "--rpc-cookie",
      "/nonexistent/.cookie",
      "--rpc-port",
      String(fs.port),
      "getblockcount",
    ]);
    expect(node).toContain(
      "--rpc-user (-rpcuser) and --rpc-cookie both give the node's credentials: give one",
    );
    expect(node).not.toContain("s3cr3t");
  });

  it("a flag given once still overrides the environment (and is sent)", async () => {
    const before = fs.hits;
    const r = await runCli(["--chain", "utxo", "--url", fs.url, "--retries", "0", "getblockcount"], {
      env: { CHAINGW_CHAIN: "evm" },
    });
    // HTTP 500 from the only endpoint: exit 3, after one request
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stderr).not.toContain("given twice");
    expect(fs.hits).toBe(before + 1);
  });

  it("--help says which options add up", async () => {
    const r = await runCli(["solvency", "--help"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/--reserves[^\n]*\n?[^-]*repeatable/);
    const g = await runCli(["--help"]);
    expect(g.stdout).toMatch(/--rpc-url <url>\s+the same as --url, repeatable/);
  });
});
