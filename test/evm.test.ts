/**
 * The EVM group end to end: the built CLI against a real anvil (through a counting pass-through proxy),
 * cross-checked against foundry's `cast rpc` for the same calls, and through the gateway fixture.
 */
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FaultServer, startFaultServer } from "./fixtures/faults.js";
import { type Gateway, startGateway } from "./fixtures/gateway.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import {
  type DeployResult,
  deployAndPing,
  PING_TOPIC0,
  PING_TOPIC1S,
  SEL_GET,
  SEL_PING,
  SEL_REVERT,
  word,
} from "./helpers/evmContract.js";
import { HANG_GUARD_MS } from "./helpers/procs.js";

const CAST = fileURLToPath(new URL("../node_modules/.bin/cast", import.meta.url));

let anvil: AnvilNode;
let proxy: FaultServer;
let dep: DeployResult;
let env: Record<string, string>;

/** `cast rpc <method> <params...>` against anvil directly, parsed. */
async function cast(method: string, ...params: string[]): Promise<unknown> {
  const r = await execa(CAST, ["rpc", "--rpc-url", anvil.url, method, ...params], { timeout: HANG_GUARD_MS });
  return JSON.parse(r.stdout);
}

/** chaingw --json through the proxy, parsed, asserting a clean exit. */
async function cg(...args: string[]): Promise<unknown> {
  const r = await runCli(["--json", ...args], { env });
  expect(r.stderr).toBe("");
  expect(r.exitCode).toBe(0);
  return JSON.parse(r.stdout);
}

beforeAll(async () => {
  anvil = await startAnvil();
  dep = await deployAndPing(anvil.rpc);
  // a block without transactions on top, so "latest" and the ping blocks differ
  await anvil.rpc("evm_mine", []);
  proxy = await startFaultServer({ upstream: { url: anvil.url }, fault: { kind: "pass" } });
  env = { CHAINGW_URL: proxy.url };
});

afterAll(async () => {
  await proxy?.stop();
  await anvil?.stop();
});

describe("eth_ methods against anvil, cross-checked with cast rpc", () => {
  it("eth_getBlockByNumber: tags, hex and decimal numbers; fullTransactions false is sent by default", async () => {
    expect(await cg("eth_getBlockByNumber", "latest")).toEqual(
      await cast("eth_getBlockByNumber", "latest", "false"),
    );
    expect(await cg("eth_getBlockByNumber", "2")).toEqual(await cast("eth_getBlockByNumber", "0x2", "false"));
    expect(await cg("eth_getBlockByNumber", "0x2", "true")).toEqual(
      await cast("eth_getBlockByNumber", "0x2", "true"),
    );
    expect(await cg("eth_getBlockByNumber", "earliest")).toEqual(
      await cast("eth_getBlockByNumber", "earliest", "false"),
    );
    const pending = (await cg("eth_getBlockByNumber", "pending")) as { number: string };
    expect(pending.number).toMatch(/^0x[0-9a-f]+$/);
  });

  it("eth_getBlockByNumber human: decimal beside hex, timestamp as a date, transactions listed", async () => {
    const block = (await anvil.rpc("eth_getBlockByNumber", ["0x2", false])) as {
      hash: string;
      transactions: string[];
    };
    const r = await runCli(["eth_getBlockByNumber", "2"], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^number\s+0x2 {2}\(2\)$/m);
    expect(r.stdout).toMatch(new RegExp(`^hash\\s+${block.hash}$`, "m"));
    expect(r.stdout).toMatch(/^timestamp\s+0x[0-9a-f]+ {2}\(\d+, \d{4}-\d\d-\d\dT[\d:.]+Z\)$/m);
    expect(r.stdout).toMatch(/^logsBloom\s+0x0{16}\.\.\. \(256 bytes\)$/m);
    expect(r.stdout).toContain(`transactions (1)\n  ${block.transactions[0]}`);

    const full = await runCli(["eth_getBlockByNumber", "2", "true"], { env });
    expect(full.exitCode).toBe(0);
    expect(full.stdout).toContain(block.transactions[0]);
    expect(full.stdout).toMatch(/│ #\s+│ hash\s+│ from\s+│ to\s+│ value\s+│ gas\s+│/);
  });

  it("a block past the tip is null: a not-found line, exit 0", async () => {
    const h = await runCli(["eth_getBlockByNumber", "999999"], { env });
    expect(h.exitCode).toBe(0);
    expect([h.stdout, h.stderr]).toEqual([
      "",
      "chaingw: null (eth_getBlockByNumber: not found — no such block)\n",
    ]);
    const j = await runCli(["--json", "eth_getBlockByNumber", "0xf423f"], { env });
    expect(j.exitCode).toBe(0);
    expect(j.stdout).toBe("null\n");
  });

  it("eth_getTransactionByHash: equal to cast; QUANTITY fields annotated; unknown hash is null", async () => {
    const tx = dep.pingTxs[1];
    expect(await cg("eth_getTransactionByHash", tx)).toEqual(await cast("eth_getTransactionByHash", tx));
    // 0x is optional on input
    expect(await cg("eth_getTransactionByHash", tx.slice(2))).toEqual(
      await cast("eth_getTransactionByHash", tx),
    );
    const h = await runCli(["eth_getTransactionByHash", tx], { env });
    expect(h.exitCode).toBe(0);
    expect(h.stdout).toMatch(new RegExp(`^from\\s+${dep.from}$`, "m"));
    expect(h.stdout).toMatch(/^blockNumber\s+0x3 {2}\(3\)$/m);
    expect(h.stdout).toMatch(/^value\s+0x0 {2}\(0 wei = 0 ether\)$/m);

    const unknown = `0x${"ab".repeat(32)}`;
    const n = await runCli(["eth_getTransactionByHash", unknown], { env });
    expect(n.exitCode).toBe(0);
    expect([n.stdout, n.stderr]).toEqual([
      "",
      "chaingw: null (eth_getTransactionByHash: not found — unknown transaction hash)\n",
    ]);
    expect(await cast("eth_getTransactionByHash", unknown)).toBeNull();
  });

  it("eth_getBlockByHash and eth_getTransactionReceipt on an EVM node: no TRON rules, no energy", async () => {
    const tx = dep.pingTxs[1];
    const block = (await cast("eth_getBlockByNumber", "0x3", "false")) as { hash: string };
    // no --chain: the EVM group's own definitions (before: the EVM-compat rule failed the block hash)
    expect(await cg("eth_getBlockByHash", block.hash)).toEqual(block);
    expect(await cg("--chain", "evm", "eth_getBlockByHash", block.hash, "false")).toEqual(block);
    expect(await cg("eth_getTransactionReceipt", tx)).toEqual(await cast("eth_getTransactionReceipt", tx));
    const h = await runCli(["eth_getTransactionReceipt", tx], { env });
    expect(h.exitCode).toBe(0);
    expect(h.stdout).toMatch(/^gasUsed\s+0x[0-9a-f]+ {2}\(\d+\)$/m);
    expect(h.stdout).not.toMatch(/energy/);
    expect(h.stdout).not.toMatch(/integrity/);
  });

  it("eth_getLogs: named options equal the JSON filter and cast; topics are position-aware", async () => {
    const all = await cg(
      "eth_getLogs",
      "--from-block",
      "0",
      "--address",
      dep.contract,
      "--topic",
      PING_TOPIC0,
    );
    const viaJson = await cg(
      "eth_getLogs",
      JSON.stringify({ fromBlock: "0x0", address: dep.contract, topics: [PING_TOPIC0] }),
    );
    const viaCast = await cast(
      "eth_getLogs",
      JSON.stringify({ fromBlock: "0x0", address: dep.contract, topics: [PING_TOPIC0] }),
    );
    expect(all).toEqual(viaCast);
    expect(viaJson).toEqual(viaCast);
    expect((all as unknown[]).length).toBe(3);

    // wildcard first position, one exact value second
    const second = (await cg(
      "eth_getLogs",
      "--from-block",
      "earliest",
      "--topic",
      "",
      "--topic",
      PING_TOPIC1S[1],
    )) as {
      topics: string[];
      transactionHash: string;
    }[];
    expect(second.map((l) => l.transactionHash)).toEqual([dep.pingTxs[1]]);
    const nullWord = await cg(
      "eth_getLogs",
      "--from-block",
      "0",
      "--topic",
      "null",
      "--topic",
      PING_TOPIC1S[1],
    );
    expect(nullWord).toEqual(second);

    // any of several in one position
    const oneOrThree = (await cg(
      "eth_getLogs",
      "--from-block",
      "0x0",
      "--to-block",
      "latest",
      "--topic",
      PING_TOPIC0,
      "--topic",
      `${PING_TOPIC1S[0]},${PING_TOPIC1S[2]}`,
    )) as { transactionHash: string }[];
    expect(oneOrThree.map((l) => l.transactionHash)).toEqual([dep.pingTxs[0], dep.pingTxs[2]]);

    // repeatable --address: any of
    const two = await cg(
      "eth_getLogs",
      "--from-block",
      "0",
      "--address",
      dep.contract,
      "--address",
      dep.from,
    );
    expect(two).toEqual(all);

    // default range is latest..latest: the empty top block
    expect(await cg("eth_getLogs")).toEqual([]);
  });

  it("eth_getLogs human: a table, with a count", async () => {
    const r = await runCli(["eth_getLogs", "--from-block", "0", "--address", dep.contract], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/│ block\s+│ log\s+│ address\s+│ topics\s+│ data\s+│ transaction\s+│/);
    expect(r.stdout).toContain(PING_TOPIC0);
    expect(r.stdout).toContain(dep.pingTxs[2]);
    expect(r.stdout).toMatch(/3 logs\n$/);
    const none = await runCli(["eth_getLogs"], { env });
    expect(none.stdout).toBe("(no logs)\n");
  });

  it("eth_call: --to/--data or a JSON call object; equal to cast; blockNumber latest by default, --block otherwise", async () => {
    const call = JSON.stringify({ to: dep.contract, data: SEL_GET });
    const expected = await cast("eth_call", call, "latest");
    expect(expected).toBe(word(42));
    expect(await cg("eth_call", "--to", dep.contract, "--data", SEL_GET)).toBe(expected);
    expect(await cg("eth_call", call)).toBe(expected);
    expect(await cg("eth_call", call, "latest")).toBe(expected);
    // before the deploy (block 0) there is no code: empty output
    expect(await cg("eth_call", call, "0")).toBe(await cast("eth_call", call, "0x0"));
    expect(await cg("eth_call", "--to", dep.contract, "--data", SEL_GET, "--block", "0")).toBe("0x");
    const h = await runCli(["eth_call", "--to", dep.contract, "--data", SEL_GET], { env });
    expect(h.stdout).toBe(`${word(42)}\n`);
  });

  it("eth_estimateGas: equal to cast; human shows the decimal", async () => {
    const data = SEL_PING + word(9).slice(2);
    const obj = JSON.stringify({ from: dep.from, to: dep.contract, data });
    const expected = (await cast("eth_estimateGas", obj)) as string;
    expect(await cg("eth_estimateGas", "--from", dep.from, "--to", dep.contract, "--data", data)).toBe(
      expected,
    );
    expect(await cg("eth_estimateGas", obj)).toBe(expected);
    const h = await runCli(["eth_estimateGas", obj], { env });
    expect(h.stdout).toBe(`${expected}\n`);
    // a plain value transfer, value given in decimal wei
    const transfer = await cg(
      "eth_estimateGas",
      "--from",
      dep.from,
      "--to",
      `0x${"11".repeat(20)}`,
      "--value",
      "1000",
    );
    expect(transfer).toBe("0x5208");
  });
});

describe("reverts", () => {
  it("eth_call revert: 'execution reverted: nope', exit 1, one request (never retried)", async () => {
    const before = proxy.hits;
    const r = await runCli(["eth_call", "--to", dep.contract, "--data", SEL_REVERT], { env });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^chaingw: execution reverted: nope$/m);
    expect(r.stderr).toContain("error 3: execution reverted: nope");
    expect(proxy.hits - before).toBe(1);
  });

  it("eth_estimateGas revert, and --json keeps the node's code, message and data", async () => {
    const r = await runCli(["eth_estimateGas", "--to", dep.contract, "--data", SEL_REVERT], { env });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^chaingw: execution reverted: nope$/m);
    const j = await runCli(["--json", "eth_call", "--to", dep.contract, "--data", SEL_REVERT], { env });
    expect(j.exitCode).toBe(1);
    const err = JSON.parse(j.stderr).error;
    expect(err.code).toBe(3);
    expect(err.message).toBe("execution reverted: nope");
    expect(err.data).toMatch(/^0x08c379a0/);
  });
});

describe("bad input: exit 2, nothing sent", () => {
  const cases: [string, string[], RegExp][] = [
    [
      "short hash",
      ["eth_getTransactionByHash", "0x1234"],
      /invalid txHash: expected a 32-byte transaction hash/,
    ],
    ["unknown tag", ["eth_getBlockByNumber", "newest"], /invalid blockNumber: unknown block tag "newest"/],
    ["negative number", ["eth_getBlockByNumber", "-1"], /invalid blockNumber/],
    ["fullTransactions not a boolean", ["eth_getBlockByNumber", "1", "yes"], /invalid fullTransactions/],
    [
      "short --to",
      ["eth_call", "--to", "0x1234", "--data", SEL_GET],
      /invalid callObject: to: expected an address/,
    ],
    ["odd-length --data", ["eth_call", "--to", `0x${"11".repeat(20)}`, "--data", "0x123"], /invalid --data/],
    [
      "T-address on the EVM chain",
      ["eth_call", "--to", "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf"],
      /expected an address/,
    ],
    [
      "non-numeric --value",
      ["eth_estimateGas", "--to", `0x${"11".repeat(20)}`, "--value", "1 ether"],
      /invalid --value/,
    ],
    [
      "typo in a call object",
      ["eth_call", `{"to":"0x${"11".repeat(20)}","date":"0x"}`],
      /unknown callObject field "date"/,
    ],
    ["nothing to call", ["eth_call"], /nothing to call/],
    [
      "five topic positions",
      ["eth_getLogs", ...Array(5).fill(["--topic", ""]).flat()],
      /at most 4 positions/,
    ],
    ["bad topic", ["eth_getLogs", "--topic", "0xabc"], /invalid --topic: topic 1: expected a 32-byte topic/],
    ["bad --from-block", ["eth_getLogs", "--from-block", "yesterday"], /invalid filter: fromBlock/],
    ["filter not JSON", ["eth_getLogs", "{fromBlock:1}"], /expected a JSON filter object/],
    [
      "unknown chain method",
      // (eth_getTransactionReceipt was the example here; the EVM group has it now)
      ["--chain", "evm", "getblockheader", "ab".repeat(32)],
      /not a method of the evm group/,
    ],
  ];
  for (const [what, args, msg] of cases) {
    it(what, async () => {
      const before = proxy.hits;
      const r = await runCli(args, { env });
      expect(r.stderr).toMatch(msg);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe("");
      expect(proxy.hits).toBe(before);
    });
  }
});

describe("through the gateway", () => {
  let gw: Gateway;
  const KEY = "evm-key-123";
  beforeAll(async () => {
    gw = await startGateway({ apiKey: KEY, products: { "eth-local": { url: anvil.url } } });
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it("eth_getBlockByNumber and eth_call via POST /v1/<product> with X-API-Key", async () => {
    const genv = { CHAINGW_GATEWAY: gw.baseUrl, CHAINGW_PRODUCT: "eth-local", CHAINGW_API_KEY: KEY };
    const r = await runCli(["--json", "eth_getBlockByNumber", "1"], { env: genv });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(await cast("eth_getBlockByNumber", "0x1", "false"));
    expect(gw.lastHeaders?.["x-api-key"]).toBe(KEY);
    const c = await runCli(
      ["--json", "--chain", "evm", "eth_call", "--to", dep.contract, "--data", SEL_GET],
      { env: genv },
    );
    expect(c.stdout).toBe(`"${word(42)}"\n`);
    expect(gw.hits.byProduct["eth-local"]).toBe(2);
  });
});
