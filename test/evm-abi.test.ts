/**
 * The EVM commands as cast users work (issue 18): ABI-aware call/estimate/calldata/decode, logs decoded
 * over any range, units, --rpc-url and ETH_RPC_URL, --block by hash. The built CLI against a real anvil
 * running the test token (test/fixtures/evm/Token.sol, deployed from its stored bytecode), compared with
 * cast's answers for the same questions; splitting against real HTTP fixtures that refuse with real
 * providers' words.
 */
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FaultServer, startFaultServer } from "./fixtures/faults.js";
import { type LogsLimitServer, startLogsLimitServer } from "./fixtures/logs-limit.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli, spawnCli } from "./helpers/cli.js";
import { HANG_GUARD_MS, running, until } from "./helpers/procs.js";
import { ALICE, BOB, deployToken, SEL, send, TOKEN_ABI_PATH, word } from "./helpers/token.js";

const CAST = fileURLToPath(new URL("../node_modules/.bin/cast", import.meta.url));
const TRANSFER = "Transfer(address indexed from,address indexed to,uint256 value)";
const E18 = 10n ** 18n;
const SUPPLY = 1_000_000n * E18;

let anvil: AnvilNode;
let proxy: FaultServer;
let token: string;
let env: Record<string, string>;
/** block 2's hash: BOB's balance there is 5 tokens, later 4 */
let block2: string;
let tip: number;
/** a plain transfer of 1.5 ether, after the token's blocks */
let valueTx: string;

async function cast(...args: string[]): Promise<string> {
  const r = await execa(CAST, [...args], { timeout: HANG_GUARD_MS, env: { ETH_RPC_URL: anvil.url } });
  return r.stdout.trim();
}

async function cg(args: string[], extraEnv: Record<string, string> = {}) {
  return runCli(args, { env: { ...env, ...extraEnv } });
}

/** chaingw --json …, parsed, asserting a clean exit. */
async function cgJson(...args: string[]): Promise<unknown> {
  const r = await cg(["--json", ...args]);
  expect(r.stderr).toBe("");
  expect(r.exitCode).toBe(0);
  return JSON.parse(r.stdout);
}

beforeAll(async () => {
  anvil = await startAnvil();
  token = await deployToken(anvil.rpc, SUPPLY); // block 1: Transfer(0 → ALICE)
  await send(anvil.rpc, { from: ALICE, to: token, data: SEL.transfer + word(BOB) + word(5n * E18) }); // block 2
  block2 = (await anvil.rpc<{ hash: string }>("eth_getBlockByNumber", ["0x2", false])).hash;
  // blocks 3..32: spam(k % 4) → 0 to 3 Transfer logs per block (43 logs)
  for (let k = 0; k < 30; k++) await send(anvil.rpc, { from: BOB, to: token, data: SEL.spam + word(k % 4) });
  await anvil.rpc("anvil_mine", ["0x14"]); // 20 empty blocks
  await send(anvil.rpc, { from: BOB, to: token, data: SEL.transfer + word(ALICE) + word(E18) });
  tip = Number(await anvil.rpc("eth_blockNumber", []));
  valueTx = (await send(anvil.rpc, { from: ALICE, to: BOB, value: "0x14d1120d7b160000" })).transactionHash;
  proxy = await startFaultServer({ upstream: { url: anvil.url }, fault: { kind: "pass" } });
  env = { CHAINGW_URL: proxy.url };
});

afterAll(async () => {
  await proxy?.stop();
  await anvil?.stop();
});

describe("call, calldata, decode: the same values as cast", () => {
  it("call decodes return values like cast call (uint, string, several outputs)", async () => {
    for (const [sig, args] of [
      ["balanceOf(address)(uint256)", [BOB]],
      ["totalSupply()(uint256)", []],
      ["name()(string)", []],
      ["decimals()(uint8)", []],
      ["info()(string,string,uint8,uint256)", []],
    ] as [string, string[]][]) {
      const ours = (await cgJson("call", token, sig, ...args)) as string[];
      const theirs = JSON.parse(await cast("call", "--json", token, sig, ...args)) as unknown[];
      expect(ours.map(String)).toEqual(theirs.map(String));
    }
    // human: one value a line, big integers exact
    const h = await cg(["call", token, "balanceOf(address)(uint256)", BOB]);
    expect(h.stdout).toBe(`${4n * E18}\n`);
  });

  it("call --abi FILE picks the function by name; --ether shows both units", async () => {
    const r = await cg(["call", "--abi", TOKEN_ABI_PATH, "--ether", token, "balanceOf", ALICE]);
    expect(r.exitCode).toBe(0);
    const alice = SUPPLY - 4n * E18;
    expect(r.stdout).toBe(`${alice}  (999996 ether)\n`);
    expect(await cgJson("call", "--abi", TOKEN_ABI_PATH, token, "symbol")).toEqual(["TST"]);
  });

  it("--block takes numbers and block hashes (EIP-1898), as cast does", async () => {
    expect(await cgJson("call", "--block", "1", token, "balanceOf(address)(uint256)", BOB)).toEqual([0]);
    const byHash = (await cgJson(
      "call",
      "--block",
      block2,
      token,
      "balanceOf(address)(uint256)",
      BOB,
    )) as string[];
    expect(byHash).toEqual([Number(5n * E18)]);
    expect(await cast("call", "--block", block2, token, "balanceOf(address)(uint256)", BOB)).toMatch(
      /^5000000000000000000 /,
    );
    // the registry's eth_call takes the hash too, sent as {"blockHash": ...}
    const raw = await cg([
      "--json",
      "eth_call",
      "--to",
      token,
      "--data",
      `0x70a08231${word(BOB)}`,
      "--block",
      block2,
    ]);
    expect(raw.exitCode).toBe(0);
    expect(BigInt(JSON.parse(raw.stdout))).toBe(5n * E18);
  });

  it("calldata equals cast calldata, arrays, tuples and amounts with units included", async () => {
    for (const [sig, ...args] of [
      ["transfer(address,uint256)", BOB, "1000"],
      ["f(uint256[],(address,bool),string)", "[1,2,3]", `(${BOB},true)`, "hello, world"],
      ["g(int8,bytes32,bytes)", "-5", `0x${"ab".repeat(32)}`, "0x0102"],
    ]) {
      const r = await cg(["calldata", sig, ...args]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout.trim()).toBe(await cast("calldata", sig, ...args));
    }
    const eth = await cg(["calldata", "transfer(address,uint256)", BOB, "1.5ether"]);
    expect(eth.stdout.trim()).toBe(
      await cast("calldata", "transfer(address,uint256)", BOB, "1500000000000000000"),
    );
  });

  it("decode equals cast abi-decode (outputs, and calldata with --input)", async () => {
    const enc = await cast("abi-encode", "f(uint256,string,address[])", "42", "hi", `[${BOB},${ALICE}]`);
    const ours = (await cgJson("decode", "f()(uint256,string,address[])", enc)) as unknown[];
    const theirs = JSON.parse(
      await cast("abi-decode", "--json", "f()(uint256,string,address[])", enc),
    ) as unknown[];
    // integers that fit 64 bits are JSON numbers in both (issue 39 item 11)
    expect(JSON.stringify(ours).toLowerCase()).toBe(JSON.stringify(theirs).toLowerCase());
    const cd = await cast("calldata", "transfer(address,uint256)", BOB, "7");
    expect(await cgJson("decode", "--input", "transfer(address,uint256)", cd)).toEqual([
      expect.stringMatching(new RegExp(BOB, "i")),
      7,
    ]);
  });

  it("estimate gives cast estimate's figure", async () => {
    const ours = (await cgJson(
      "estimate",
      "--from",
      BOB,
      token,
      "transfer(address,uint256)",
      ALICE,
      "1",
    )) as string;
    expect(ours).toBe(await cast("estimate", "--from", BOB, token, "transfer(address,uint256)", ALICE, "1"));
  });
});

describe("reverts decoded", () => {
  it("a require string", async () => {
    const r = await cg([
      "call",
      "--from",
      BOB,
      token,
      "transfer(address,uint256)(bool)",
      "0x0000000000000000000000000000000000000000",
      "1",
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("execution reverted: Token: transfer to the zero address");
  });

  it("a custom error, from --abi or --error-sig; unnamed without them", async () => {
    const args = ["--from", BOB, token, "transfer(address,uint256)(bool)", ALICE, String(100n * E18)];
    const named = `InsufficientBalance(account: ${BOB}, have: ${4n * E18}, want: ${100n * E18})`;
    const a = await cg(["call", "--abi", TOKEN_ABI_PATH, ...args]);
    expect(a.exitCode).toBe(1);
    expect(a.stderr.toLowerCase()).toContain(`execution reverted: ${named}`.toLowerCase());
    const s = await cg([
      "call",
      "--error-sig",
      "InsufficientBalance(address account,uint256 have,uint256 want)",
      ...args,
    ]);
    expect(s.stderr.toLowerCase()).toContain(named.toLowerCase());
    const none = await cg(["call", ...args]);
    expect(none.stderr).toMatch(/execution reverted: custom error 0xdb42144d \(96 bytes of arguments\)/);
    // unnamed: the message says how to name it; the reason fact stays the selector alone
    expect(none.stderr).toContain('`call … --error-sig "Name(types)"` or `--abi FILE` names it');
    const unnamed = await cg(["--json", "call", ...args]);
    expect(JSON.parse(unnamed.stderr).error.reason).toBe("custom error 0xdb42144d (96 bytes of arguments)");
    // machines get the same reason as a fact
    const j = await cg(["--json", "call", "--abi", TOKEN_ABI_PATH, ...args]);
    expect(JSON.parse(j.stderr).error.reason.toLowerCase()).toBe(named.toLowerCase());
    // estimate explains the same revert
    const e = await cg(["estimate", "--abi", TOKEN_ABI_PATH, ...args.map((x) => x.replace("(bool)", ""))]);
    expect(e.exitCode).toBe(1);
    expect(e.stderr.toLowerCase()).toContain(named.toLowerCase());
  });

  it("a panic, with its meaning", async () => {
    const r = await cg(["call", token, "divide(uint256,uint256)(uint256)", "1", "0"]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("execution reverted: panic 0x12 (division or modulo by zero)");
  });
});

describe("bad input: exit 2 naming the argument, nothing sent", () => {
  it.each([
    [["call", "0x1234", "balanceOf(address)(uint256)", "0x1"], /call: .*address/],
    [["call", "TOKEN", "balanceOf(address)(uint256)", "0x12"], /argument 1 \(address\)/],
    [["call", "TOKEN", "balanceOf(address)(uint256)"], /takes 1 argument \(address\), got 0/],
    [["call", "TOKEN", "balanceOf(adress)(uint256)", BOB], /invalid signature/],
    [["call", "TOKEN", "f(uint8)", "256"], /argument 1 \(uint8\): 256 is out of range/],
    [
      ["logs", "--from-block", "0", "Transfer(address indexed from,address indexed to,uint256 value)", "0x1"],
      /indexed argument 1 \(address from\)/,
    ],
    [["to-wei", "1.0000000000000000001"], /more decimals than the unit allows \(18\)/],
    [["decode", "f()(uint256)", "0x12"], /decode: the data does not decode as \(uint256\)/],
    [
      ["--chain", "evm-compat", "to-wei", "1", "gwei"],
      /unknown unit "gwei" on the evm-compat chain; expected sun, trx/,
    ],
  ])("%j", async (args, msg) => {
    const before = proxy.hits;
    const r = await cg(args.map((a) => (a === "TOKEN" ? token : a)));
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(msg);
    expect(proxy.hits).toBe(before);
  });
});

describe("units", () => {
  it("to-wei / from-wei equal cast's, exactly; TRON's trx/sun from the chain object", async () => {
    for (const [amount, unit] of [
      ["1.5", "ether"],
      ["0.000000001", "ether"],
      ["123456789.123456789", "gwei"],
      ["7", "wei"],
    ]) {
      expect((await cg(["to-wei", amount, unit])).stdout.trim()).toBe(await cast("to-wei", amount, unit));
    }
    expect((await cg(["from-wei", "1500000000000000000"])).stdout.trim()).toBe("1.5");
    expect((await cg(["from-wei", "123456789123456789", "gwei"])).stdout.trim()).toBe("123456789.123456789");
    expect((await cg(["from-wei", "0x3e8", "gwei"])).stdout.trim()).toBe("0.000001");
    expect((await cg(["--chain", "evm-compat", "to-wei", "2.5"])).stdout.trim()).toBe("2500000");
    expect((await cg(["--chain", "evm-compat", "from-wei", "1234567", "trx"])).stdout.trim()).toBe(
      "1.234567",
    );
    expect((await cg(["--json", "to-wei", "100000000000", "ether"])).stdout.trim()).toBe(
      '"100000000000000000000000000000"',
    );
  });
});

describe("amounts in both units on a terminal", () => {
  it("a transaction's value in wei and ether, its gas price in wei and gwei", async () => {
    const r = await cg(["eth_getTransactionByHash", valueTx]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/value +0x14d1120d7b160000 +\(1500000000000000000 wei = 1\.5 ether\)/);
    expect(r.stdout).toMatch(/gasPrice +0x[0-9a-f]+ +\(\d+ wei = [\d.]+ gwei\)/);
    // machines keep the node's bytes
    expect(JSON.parse((await cg(["--json", "eth_getTransactionByHash", valueTx])).stdout).value).toBe(
      "0x14d1120d7b160000",
    );
  });
});

describe("cast's words for endpoints", () => {
  it("--rpc-url is --url; ETH_RPC_URL is read when no chaingw endpoint is given", async () => {
    const args = ["call", token, "decimals()(uint8)"];
    const none = { CHAINGW_URL: "" };
    const before = proxy.hits;
    expect((await runCli(["--rpc-url", proxy.url, ...args], { env: none })).stdout).toBe("18\n");
    expect((await runCli(args, { env: { ETH_RPC_URL: proxy.url } })).stdout).toBe("18\n");
    expect(proxy.hits).toBe(before + 2);
    // a chaingw setting wins: ETH_RPC_URL (a closed port) is not asked
    const w = await runCli(args, { env: { CHAINGW_URL: proxy.url, ETH_RPC_URL: "http://127.0.0.1:9/" } });
    expect(w.stdout).toBe("18\n");
    // an error names where the URL came from
    const bad = await runCli(args, { env: { ETH_RPC_URL: "127.0.0.1:8545" } });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("invalid ETH_RPC_URL");
    // never for the UTXO group: its default node is asked instead
    const utxo = await runCli(["--timeout", "2", "getblockchaininfo"], { env: { ETH_RPC_URL: proxy.url } });
    expect(utxo.stderr).toContain("127.0.0.1:8332");
  });
});

/** Every Transfer log of the token, as anvil answers one eth_getLogs over the whole range. */
async function allTransfers(): Promise<
  { blockNumber: string; logIndex: string; topics: string[]; data: string }[]
> {
  return anvil.rpc("eth_getLogs", [{ fromBlock: "0x0", toBlock: "latest", address: token }]);
}

const jsonLines = (s: string) =>
  s
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe("logs: decoded, like cast logs", () => {
  it("every Transfer decoded into named fields, the same logs as cast logs", async () => {
    const r = await cg([
      "--format",
      "jsonl",
      "logs",
      "--from-block",
      "0",
      "--to-block",
      "latest",
      "--address",
      token,
      TRANSFER,
    ]);
    expect(r.exitCode).toBe(0);
    const ours = jsonLines(r.stdout);
    const theirs = JSON.parse(
      await cast("logs", "--json", "--from-block", "0", "--address", token, TRANSFER),
    ) as {
      topics: string[];
      data: string;
      blockNumber: string;
      transactionHash: string;
    }[];
    expect(ours.length).toBe(theirs.length);
    expect(ours.length).toBe(1 + 1 + 43 + 1);
    ours.forEach((l, i) => {
      const t = theirs[i];
      expect(l.blockNumber).toBe(Number(t.blockNumber));
      expect(l.transactionHash).toBe(t.transactionHash);
      expect(l.event).toBe("Transfer");
      expect(l.args.from.toLowerCase()).toBe(`0x${t.topics[1].slice(26)}`);
      expect(l.args.to.toLowerCase()).toBe(`0x${t.topics[2].slice(26)}`);
      expect(l.args.value).toBe(BigInt(t.data).toString());
    });
    expect(ours[0].args).toEqual({
      from: "0x0000000000000000000000000000000000000000",
      to: expect.stringMatching(/^0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266$/i),
      value: SUPPLY.toString(),
    });
  });

  it("indexed filters: positional values, * for any; the same as cast's", async () => {
    const r = await cg([
      "--format",
      "jsonl",
      "logs",
      "--from-block",
      "0",
      "--address",
      token,
      "--to-block",
      "latest",
      TRANSFER,
      "*",
      ALICE,
    ]);
    const ours = jsonLines(r.stdout);
    const theirs = JSON.parse(
      await cast("logs", "--json", "--from-block", "0", "--address", token, TRANSFER, "", ALICE),
    ) as unknown[];
    expect(ours.length).toBe(theirs.length);
    expect(ours.length).toBe(2); // the mint and BOB's transfer back
    // from an ABI file by name; human lines
    const h = await cg([
      "logs",
      "--abi",
      TOKEN_ABI_PATH,
      "--from-block",
      "0",
      "--to-block",
      "2",
      "Transfer",
      ALICE,
    ]);
    expect(h.stdout).toMatch(
      /^2 {2}0 {2}0x[0-9a-f]{64} {2}0x[0-9a-f]{40} {2}Transfer\(from: 0xf39f.*, to: 0x7099.*, value: 5000000000000000000\)\n$/i,
    );
  });
});

describe("any range: split where the upstream refuses, every log once and in order", () => {
  let fx: LogsLimitServer | undefined;
  afterAll(async () => fx?.stop());

  it("a provider refusing ranges over 5 blocks (java-tron's words): windows halve, then grow to the limit", async () => {
    fx = await startLogsLimitServer({ upstream: { url: anvil.url }, mode: "range", maxBlocks: 5 });
    const full = await allTransfers();
    // --heavy-rate 0: the client's own 2 calls/s for heavy methods would make this test wait, not fail
    const r = await runCli(
      [
        "--heavy-rate",
        "0",
        "--format",
        "jsonl",
        "logs",
        "--from-block",
        "0",
        "--to-block",
        String(tip),
        "--address",
        token,
        TRANSFER,
      ],
      {
        env: { CHAINGW_URL: fx.url },
      },
    );
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    const ours = jsonLines(r.stdout);
    expect(ours.map((l) => [l.blockNumber, l.logIndex])).toEqual(
      full.map((l) => [Number(l.blockNumber), Number(l.logIndex)]),
    );
    const refused = fx.windows.filter((w) => w.refused);
    expect(refused.length).toBeGreaterThan(0);
    const ok = fx.windows.filter((w) => !w.refused);
    // the accepted windows tile the range exactly: no gap, no overlap
    expect(ok[0].from).toBe(0);
    expect(ok.slice(1).map((w) => w.from)).toEqual(ok.slice(0, -1).map((w) => w.to + 1));
    expect(ok.at(-1)?.to).toBe(tip);
    expect(Math.max(...ok.map((w) => w.to - w.from + 1))).toBeLessThanOrEqual(5);
    // growing stops below the refused span: few refusals after the first halvings
    expect(refused.length).toBeLessThan(12);
  });

  it("a provider refusing more than 4 results (Infura's words), eth_getLogs --split raw: equal to anvil's whole answer", async () => {
    await fx?.stop();
    fx = await startLogsLimitServer({ upstream: { url: anvil.url }, mode: "results", maxResults: 4 });
    const full = await allTransfers();
    const plain = await runCli(
      ["--json", "eth_getLogs", "--from-block", "0", "--to-block", String(tip), "--address", token],
      { env: { CHAINGW_URL: fx.url } },
    );
    expect(plain.exitCode).toBe(1);
    expect(plain.stderr).toContain("query returned more than 4 results");
    const r = await runCli(
      [
        "--heavy-rate",
        "0",
        "--json",
        "eth_getLogs",
        "--split",
        "64",
        "--from-block",
        "0",
        "--to-block",
        String(tip),
        "--address",
        token,
      ],
      {
        env: { CHAINGW_URL: fx.url },
      },
    );
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(full);
    expect(fx.windows.filter((w) => w.refused).length).toBeGreaterThan(0);
  });

  it("Ctrl-C: what was printed stays whole, the last line says where to resume", async () => {
    await fx?.stop();
    fx = undefined;
    proxy.setMethodFault("eth_getLogs", { kind: "delay", ms: 400 });
    try {
      const p = spawnCli(
        [
          "--format",
          "jsonl",
          "logs",
          "--window",
          "2",
          "--from-block",
          "0",
          "--to-block",
          String(tip),
          "--address",
          token,
          TRANSFER,
        ],
        { env },
      );
      let out = "";
      p.stdout?.on("data", (c: Buffer) => {
        out += c.toString();
      });
      await until("two lines of logs", () => out.split("\n").length >= 3, running(p));
      p.kill("SIGINT");
      const res = await p;
      expect(res.exitCode).toBe(130);
      const m = /resume with --from-block (\d+) --to-block (\d+)/.exec(String(res.stderr));
      expect(m).not.toBeNull();
      const next = Number(m?.[1]);
      const printed = jsonLines(out);
      const full = (await allTransfers()).filter((l) => Number(l.blockNumber) < next);
      expect(printed.map((l) => l.blockNumber)).toEqual(full.map((l) => Number(l.blockNumber)));
      // resuming from there gives the rest
      const rest = await cg([
        "--format",
        "jsonl",
        "logs",
        "--from-block",
        String(next),
        "--to-block",
        String(tip),
        "--address",
        token,
        TRANSFER,
      ]);
      expect(printed.length + jsonLines(rest.stdout).length).toBe((await allTransfers()).length);
    } finally {
      proxy.setMethodFault("eth_getLogs", null);
    }
  });
});
