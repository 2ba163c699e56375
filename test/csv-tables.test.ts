/**
 * `--format csv` wherever a command prints a table, else refused by name — never JSON instead (issue 59,
 * item 6). The whole command tree is walked: every command (each registry method's too) either takes CSV and
 * is one this suite or a named test shows writing it, or refuses it with exit 2 naming itself, nothing on
 * stdout. Then the tables of node answers as CSV, against anvil and litecoind, and a loopback node whose
 * answer holds a formula, a comma, a quote and a line feed: one CSV writer (src/util/csv.ts) for every table.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../src/cli/main.js";
import { printsCsv } from "../src/cli/options.js";
import { Run } from "../src/cli/run.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { deployAndPing, PING_TOPIC0 } from "./helpers/evmContract.js";
import { inProcess } from "./helpers/in-process.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";

/** Every command that takes `--format csv`, and where its CSV is shown (this file unless named). */
const CSV_COMMANDS: Record<string, string> = {
  eth_getLogs: "here (anvil)",
  eth_getBlockByNumber: "here (anvil)",
  eth_getBlockByHash: "here (anvil)",
  eth_getTransactionReceipt: "here (anvil)",
  getchaintips: "here (litecoind)",
  getpeerinfo: "here (a loopback node)",
  rpc: "here (anvil)",
  logs: "here (anvil)",
  methods: "test/commands-in-process.test.ts",
  solvency: "test/solvency.test.ts",
  "reserves scan": "test/reserves.test.ts",
  "reserves verify": "test/exchange-ownership.test.ts",
  "reserves balances": "test/csv.test.ts",
  "reserves report": "test/reserves-report.test.ts",
  "reserves sign-help": "test/reserves-sign-help.test.ts",
};

/** The tree's commands that run (no subcommands), each with its words from the top. */
function leaves(cmd: Command, path: string[] = []): { cmd: Command; path: string[] }[] {
  const subs = cmd.commands.filter((c) => c.name() !== "help");
  if (subs.length === 0) return [{ cmd, path }];
  return subs.flatMap((c) => leaves(c, [...path, c.name()]));
}

/** Words that get `cmd` past commander's checks to its action: a value for each required argument and option. */
function filler(cmd: Command): string[] {
  const args = cmd.registeredArguments.filter((a) => a.required).map(() => "x");
  const opts = cmd.options.filter((o) => o.mandatory).flatMap((o) => [o.long ?? o.short ?? "", "x"]);
  return [...args, ...opts];
}

describe("--format csv across the command tree", () => {
  const all = leaves(buildProgram([], new Run("human", {})));

  it("the commands that take it are the ones whose CSV is shown", () => {
    expect(all.length).toBeGreaterThan(75);
    const taking = all.filter((l) => printsCsv(l.cmd)).map((l) => l.path.join(" "));
    expect(taking.sort()).toEqual(Object.keys(CSV_COMMANDS).sort());
  });

  it("every other command refuses it naming itself: exit 2, nothing on stdout, nothing sent", async () => {
    let refused = 0;
    for (const { cmd, path } of all) {
      if (printsCsv(cmd)) continue;
      // port 9 (discard): nothing listens; reaching it would be exit 3, not 2
      const r = await inProcess(["--url", "http://127.0.0.1:9/", "--format", "csv", ...path, ...filler(cmd)]);
      const name = path.join(" ");
      expect(r.exitCode, `${name}: ${r.stderr}`).toBe(2);
      expect(r.stdout, name).toBe("");
      expect(r.stderr, name).toContain(`--format csv is not available for ${name}: it prints no table`);
      refused++;
    }
    expect(refused).toBeGreaterThan(60);
  });

  it("the fast path (a plain method call) refuses it in the same words; rpc of a method chaingw does not know, before sending", async () => {
    const one = await runCli(["--url", "http://127.0.0.1:9/", "--format", "csv", "getblockcount"]);
    expect(one.exitCode).toBe(2);
    expect(one.stdout).toBe("");
    expect(one.stderr).toContain("--format csv is not available for getblockcount: it prints no table");
    const raw = await inProcess(["--url", "http://127.0.0.1:9/", "--format", "csv", "rpc", "sendtoaddress"]);
    expect(raw.exitCode).toBe(2);
    expect(raw.stderr).toContain(
      "--format csv is not available for rpc sendtoaddress: chaingw does not know its answer to be a table",
    );
    const known = await inProcess([
      "--url",
      "http://127.0.0.1:9/",
      "--format",
      "csv",
      "rpc",
      "getblockcount",
    ]);
    expect(known.exitCode).toBe(2);
    expect(known.stderr).toContain("--format csv is not available for rpc getblockcount: it prints no table");
    const range = await inProcess([
      "--url",
      "http://127.0.0.1:9/",
      "--format",
      "csv",
      "eth_getBlockByNumber",
      "--range",
      "0..1",
    ]);
    expect(range.exitCode).toBe(2);
    expect(range.stderr).toContain("--format csv is not available for eth_getBlockByNumber --range");
  });
});

describe("node answers' tables as CSV (anvil)", () => {
  let anvil: AnvilNode;
  let ping: Awaited<ReturnType<typeof deployAndPing>>;
  beforeAll(async () => {
    anvil = await startAnvil();
    ping = await deployAndPing(anvil.rpc);
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  it("eth_getLogs: the table's columns, a row per log, every topic and all the data; --split streams the same rows", async () => {
    const want = (
      await anvil.rpc<
        {
          blockNumber: string;
          logIndex: string;
          topics: string[];
          data: string;
          transactionHash: string;
          address: string;
        }[]
      >("eth_getLogs", [{ fromBlock: "0x0", toBlock: "latest", address: ping.contract }])
    ).map((l) =>
      [
        BigInt(l.blockNumber).toString(),
        BigInt(l.logIndex).toString(),
        l.address,
        l.topics.join(" "),
        l.data,
        l.transactionHash,
      ].join(","),
    );
    expect(want.length).toBe(3);
    const r = await runCli([
      "--url",
      anvil.url,
      "--format",
      "csv",
      "eth_getLogs",
      JSON.stringify({ fromBlock: "0x0", toBlock: "latest", address: ping.contract }),
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`block,log,address,topics,data,transaction\n${want.join("\n")}\n`);
    const split = await runCli([
      "--url",
      anvil.url,
      "--format",
      "csv",
      "eth_getLogs",
      JSON.stringify({ fromBlock: "0x0", toBlock: "latest", address: ping.contract }),
      "--split",
    ]);
    expect(split.exitCode, split.stderr).toBe(0);
    expect(split.stdout).toBe(r.stdout);
    // the same rows through rpc (the registry knows eth_getLogs' answer is a table)
    const raw = await runCli([
      "--url",
      anvil.url,
      "--format",
      "csv",
      "rpc",
      "eth_getLogs",
      JSON.stringify({ fromBlock: "0x0", toBlock: "latest", address: ping.contract }),
    ]);
    expect(raw.exitCode, raw.stderr).toBe(0);
    expect(raw.stdout).toBe(r.stdout);
  });

  it("logs EVENT: a row per log, a column per argument of the event", async () => {
    const r = await runCli([
      "--url",
      anvil.url,
      "--format",
      "csv",
      "logs",
      "--from-block",
      "0",
      "--address",
      ping.contract,
      "Ping(uint256 indexed n)",
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe("block,log,transaction,address,event,n,topics,data");
    expect(lines.slice(1).map((l) => l.split(",")[5])).toEqual(["1", "2", "3"]);
    for (const l of lines.slice(1)) expect(l).toMatch(/^\d+,0,0x[0-9a-f]{64},0x[0-9a-f]{40},Ping,\d,,$/);
  });

  it("a block's transactions and a receipt's logs; a block not found is the note on stderr, nothing on stdout", async () => {
    const hash = ping.pingTxs[0] as string;
    const tx = await anvil.rpc<{ blockNumber: string; from: string; to: string; gas: string; value: string }>(
      "eth_getTransactionByHash",
      [hash],
    );
    const full = await runCli([
      "--url",
      anvil.url,
      "--format",
      "csv",
      "eth_getBlockByNumber",
      tx.blockNumber,
      "true",
    ]);
    expect(full.exitCode, full.stderr).toBe(0);
    expect(full.stdout).toBe(
      `#,hash,from,to,value,gas\n0,${hash},${tx.from},${tx.to},${BigInt(tx.value)},${BigInt(tx.gas)}\n`,
    );
    const hashes = await runCli([
      "--url",
      anvil.url,
      "--format",
      "csv",
      "eth_getBlockByNumber",
      tx.blockNumber,
    ]);
    expect(hashes.stdout).toBe(`#,hash\n0,${hash}\n`);
    const rc = await runCli(["--url", anvil.url, "--format", "csv", "eth_getTransactionReceipt", hash]);
    expect(rc.exitCode, rc.stderr).toBe(0);
    const [head, row, ...rest] = rc.stdout.trimEnd().split("\n");
    expect(head).toBe("block,log,address,topics,data,transaction");
    expect(rest).toEqual([]);
    expect(row?.split(",")[3]).toMatch(new RegExp(`^${PING_TOPIC0} 0x0+1$`));
    const none = await runCli(["--url", anvil.url, "--format", "csv", "eth_getBlockByNumber", "0xffffff"]);
    expect(none.exitCode).toBe(0);
    expect(none.stdout).toBe("");
    expect(none.stderr).toContain("not found");
  });
});

describe("node answers' tables as CSV (litecoind, a loopback node)", () => {
  let ltc: LitecoinNode;
  let server: Server;
  let url: string;
  const HOSTILE = '=HYPERLINK("http://e.x/","x"),\n"two"';
  beforeAll(async () => {
    ltc = await startLitecoind({ blocks: 3 });
    // a node whose peer list names a peer with a formula, a comma, quotes and a line feed in its subversion
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => {
        const { id } = JSON.parse(body) as { id: unknown };
        res.setHeader("content-type", "application/json");
        res.end(
          JSON.stringify({ id, error: null, result: [{ id: 0, addr: "127.0.0.1:1", subver: HOSTILE }] }),
        );
      });
    });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    url = `http://u:p@127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await ltc?.stop();
    await new Promise((ok) => server?.close(ok));
  });

  it("getchaintips: the node's keys as columns, its tip a row", async () => {
    const best = await ltc.rpc<string>("getbestblockhash");
    const r = await runCli(["--url", ltc.authUrl, "--format", "csv", "getchaintips"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`height,hash,branchlen,status\n3,${best},0,active\n`);
  });

  it("getpeerinfo from a hostile node: the formula made inert, quoted as RFC 4180 says", async () => {
    const r = await runCli(["--url", url, "--chain", "utxo", "--format", "csv", "getpeerinfo"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`id,addr,subver\n0,127.0.0.1:1,"'=HYPERLINK(""http://e.x/"",""x""),\n""two"""\n`);
  });
});
