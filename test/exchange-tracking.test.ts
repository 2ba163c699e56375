/**
 * Issue 55, item 4, on an exchange's address file: a token declared with `--token SYMBOL=0x…` whose balanceOf
 * tracks the native balance at the file's addresses (test/fixtures/token/Tracking.sol: `a.balance`, + 1 wei at
 * one address; Follower.sol: another row's address's balance) backs nothing twice — the same probe as chaingw's
 * own proofs (one eth_call, the native balances raised by a state override). Real anvil, contracts compiled
 * with solc-js (sources beside the fixtures), an HTX-layout file whose rows anvil's dev keys signed (ethers'
 * Wallet, EIP-191 over HTX's text "huobi"), the real `solvency` and `reserves verify`; each forgery beside the
 * honest token of the same file, SOLVENT in the same invocation; a node that refuses or ignores state
 * overrides (loopback proxies in front of anvil): CANNOT SAY. A declared token whose balanceOf is another
 * declared token's (Shadow.sol: USDX's balanceOf, + 1 at one address) backs nothing: the token it reads counts
 * the coins, once (the same eth_call, that token's code answering otherwise by a state override).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SolvencyAsset, SolvencyReport } from "../src/judge/report.js";
import { entryProxy, type RawServer } from "./fixtures/forward.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { trackDir } from "./helpers/procs.js";
import {
  deployFollower,
  deployLedger,
  deployShadow,
  deployToken,
  deployTracking,
  mint,
} from "./helpers/tokens.js";

const MESSAGE = "huobi";
/** anvil's first two dev keys: the exchange's two addresses, each signing its rows */
const W0 = new Wallet("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const W1 = new Wallet("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const A0 = W0.address.toLowerCase();
const A1 = W1.address.toLowerCase();
const ETHER = 10n ** 18n;

let dir: string;
let anvil: AnvilNode;
let height: number;
let genesis: string;
/** balanceOf(a) = a.balance (+1 wei at A1) */
let trk: string;
/** balanceOf(A0) = A1.balance: the coins of the file's other address */
let fol: string;
/** an ordinary token: 7 at A0 */
let usd: string;
/** Shadow.sol: balanceOf(a) is USDX's balanceOf(a), + 1 at A1 — USDX's coins again */
let shd: string;
let n = 0;

const write = (name: string, text: string) => {
  const p = join(dir, `${n++}-${name}`);
  writeFileSync(p, text);
  return p;
};

/**
 * The exchange's file in HTX's layout: its rows (coin, address, amount) in the order given, each signed by its
 * address's key over "huobi", and the summary lines their sums.
 */
function addressFile(rows: [coin: string, wallet: Wallet, amount: string][]): string {
  const sums = new Map<string, bigint>();
  for (const [coin, , amount] of rows) sums.set(coin, (sums.get(coin) ?? 0n) + BigInt(amount));
  return write(
    "reserves.csv",
    [
      "coin,snapshot height,balance",
      ...[...sums].map(([coin, s]) => `${coin},${height},${s}`),
      "",
      "coin,address,snapshot height,balance,message,signature",
      ...rows.map(
        ([coin, w, amount]) =>
          `${coin},${w.address},${height},${amount},${MESSAGE},${w.signMessageSync(MESSAGE)}`,
      ),
      "",
    ].join("\n"),
  );
}

/** chaingw's commitment of customers owing `owed` (asset → amount, 18 places each), by `liabilities build`. */
async function commitment(owed: Record<string, string>): Promise<string> {
  const out = join(dir, `${n++}-snap`);
  const input = write(
    "balances.csv",
    ["customer_id,asset,amount", ...Object.entries(owed).map(([a, v], i) => `c${i},${a},${v}`), ""].join(
      "\n",
    ),
  );
  const assets = write(
    "assets.csv",
    ["asset,decimals", ...Object.keys(owed).map((a) => `${a},18`), ""].join("\n"),
  );
  const r = await runCli(["liabilities", "build", "--input", input, "--assets", assets, "--out", out]);
  expect(r.exitCode, r.stderr).toBe(0);
  return join(out, "commitment.json");
}

/**
 * Each token row's contract and what it backs: --token SYMBOL=0x… and --backing SYMBOL=evm:1:0x… (anvil answers
 * Ethereum's chain id, not its genesis: what it holds counts only as declared by chain id)
 */
const declare = (tokens: Record<string, string>) =>
  Object.entries(tokens).flatMap(([s, t]) => ["--token", `${s}=${t}`, "--backing", `${s}=evm:1:${t}`]);

async function solvency(node: string, reserves: string, liabilities: string, more: string[]) {
  const args = [
    "solvency",
    "--reserves",
    reserves,
    "--liabilities",
    liabilities,
    "--node",
    `ETH=${node}`,
    "--stand-in",
    "ethereum",
    "--challenge",
    MESSAGE,
    // its ether, by chain id, where the test declares nothing else for ETH
    ...(more.some((m) => m.startsWith("ETH=")) ? [] : ["--backing", "ETH=evm:1"]),
    ...more,
  ];
  const text = await runCli(args);
  const json = await runCli([...args, "--json"]);
  const report = JSON.parse(json.stdout) as SolvencyReport;
  const asset = (a: string) => report.assets.find((c) => c.asset === a) as SolvencyAsset;
  /** the asset's record, with its rows and rows not counted (an address file's: always present) */
  const coin = (a: string) => {
    const x = asset(a);
    return { ...x, rows: x.rows ?? [], not_counted: x.not_counted ?? [] };
  };
  return { ...text, report, coin };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-exchange-tracking-"));
  trackDir(dir);
  // chain id 1: the file's ETH rows are Ethereum's (reserves verify asks each --node which chain it is on)
  anvil = await startAnvil(["--chain-id", "1"]);
  trk = await deployTracking(anvil.rpc, "TRK", A1);
  fol = await deployFollower(anvil.rpc, "FOL", [A0], [A1]);
  usd = await deployToken(anvil.rpc, "Token", { symbol: "USDX", decimals: 18 });
  await mint(anvil.rpc, usd, [A0], [7n * ETHER]);
  shd = await deployShadow(anvil.rpc, "SHD", usd, A1);
  // after the deployments (gas): 3 ETH at A0, 5 at A1
  await anvil.rpc("anvil_setBalance", [A0, `0x${(3n * ETHER).toString(16)}`]);
  await anvil.rpc("anvil_setBalance", [A1, `0x${(5n * ETHER).toString(16)}`]);
  await anvil.rpc("evm_mine", []);
  height = Number(await anvil.rpc<string>("eth_blockNumber"));
  genesis = (await anvil.rpc<{ hash: string }>("eth_getBlockByNumber", ["0x0", false])).hash;
});

/** how a verdict names anvil's chain: Ethereum's chain id, its own genesis */
const chain1 = () => `chain id 1 (a stand-in for Ethereum: its genesis block is ${genesis}; --stand-in)`;

afterAll(async () => {
  await anvil?.stop();
});

describe("a declared token whose balances are another declared token's", () => {
  it("SHD (USDX's balanceOf, + 1 at A1) backing a second asset: NOT COUNTED, it reads USDX — NOT SOLVENT; USDX and ETH of the same file covered", async () => {
    const file = addressFile([
      ["ETH", W0, "3"],
      ["SHD-ETH", W0, "7"],
      ["USDX-ETH", W0, "7"],
    ]);
    const liab = await commitment({ ETH: "3", SHD: "7", USDX: "7" });
    const r = await solvency(anvil.url, file, liab, [...declare({ SHD: shd, USDX: usd })]);
    expect(r.exitCode, r.stdout + r.stderr).toBe(1);
    expect(r.stdout.split("\n")[0]).toMatch(/^NOT SOLVENT: SHD not covered/);
    expect(r.coin("ETH")).toMatchObject({ status: "covered", proven: { amount: "3.000000000000000000" } });
    expect(r.coin("USDX")).toMatchObject({ status: "covered", proven: { amount: "7.000000000000000000" } });
    expect(r.coin("SHD")).toMatchObject({
      status: "not-covered",
      proven: { amount: "0.000000000000000000" },
    });
    expect(r.coin("SHD").not_counted).toEqual([
      {
        line: 8,
        coin: "SHD-ETH",
        network: "ETH",
        address: W0.address,
        claimed: "7.000000000000000000",
        status: "proven",
        code: "reads-token",
        why: `SHD-ETH is the token at ${shd} on ${chain1()}, one balance backs one asset: it reads the token at ${usd}: its balanceOf(${A0}) moved when that token answered otherwise at block ${height} (eth_call with a state override): that token's coins again; the token at ${usd} counts once, as itself: not counted as SHD`,
        finding: expect.objectContaining({
          code: "reads-token",
          asset: "SHD",
          coin: "SHD-ETH",
          reads: { of: "token", token: usd, address: A0, block: String(height) },
        }),
      },
    ]);
    // reserves verify: the row stands (its key signed, the balance is there), named as USDX's coins again
    const v = await runCli([
      "reserves",
      "verify",
      file,
      "--node",
      `ETH=${anvil.url}`,
      "--stand-in",
      "ethereum",
      "--token",
      `USDX=${usd}`,
      "--token",
      `SHD=${shd}`,
    ]);
    expect(v.exitCode, v.stdout + v.stderr).toBe(0);
    expect(v.stdout).toContain(
      `SHD-ETH ${W0.address}: its token reads the token at ${usd}: its balanceOf(${A0}) moved when that token answered otherwise at block ${height} (eth_call with a state override): that token's coins again, which solvency counts once, as that token`,
    );
  });
});

describe("two declared tokens that are facades of one undeclared ledger, in an exchange's address file", () => {
  it("FA and FB over one Ledger beside IA and IB (ordinary), 7 of each owed: FB CANNOT SAY naming the ledger's slot FA reads too; FA, IA, IB covered", async () => {
    const l = await deployLedger(anvil.rpc, ["FA", "FB"], [A0], [7n * ETHER]);
    const [fa, fb] = l.facades as [string, string];
    const ia = await deployToken(anvil.rpc, "Token", { symbol: "IA", decimals: 18 });
    const ib = await deployToken(anvil.rpc, "Token", { symbol: "IB", decimals: 18 });
    await mint(anvil.rpc, ia, [A0], [7n * ETHER]);
    await mint(anvil.rpc, ib, [A0], [7n * ETHER]);
    // after the deployments (gas): 3 ETH at A0 again
    await anvil.rpc("anvil_setBalance", [A0, `0x${(3n * ETHER).toString(16)}`]);
    await anvil.rpc("evm_mine", []);
    const before = height;
    height = Number(await anvil.rpc<string>("eth_blockNumber"));
    try {
      const file = addressFile([
        ["ETH", W0, "3"],
        ["FA-ETH", W0, "7"],
        ["FB-ETH", W0, "7"],
        ["IA-ETH", W0, "7"],
        ["IB-ETH", W0, "7"],
      ]);
      const liab = await commitment({ ETH: "3", FA: "7", FB: "7", IA: "7", IB: "7" });
      const r = await solvency(anvil.url, file, liab, [...declare({ FA: fa, FB: fb, IA: ia, IB: ib })]);
      expect(r.exitCode, r.stdout + r.stderr).toBe(3);
      expect(r.stdout.split("\n")[0]).toMatch(/^CANNOT SAY: /);
      for (const a of ["FA", "IA", "IB"])
        expect(r.coin(a)).toMatchObject({ status: "covered", proven: { amount: "7.000000000000000000" } });
      expect(r.coin("FB")).toMatchObject({
        status: "cannot-say",
        proven: { amount: "0.000000000000000000" },
      });
      expect([...(r.coin("FB").rows ?? [])][0]?.not_for_this_audit).toMatch(
        new RegExp(
          `^line 11: its balanceOf reads the storage of ${l.ledger} \\(slot 0x[0-9a-f]{64}\\) that the token at ${fa}'s balanceOf reads too \\(eth_createAccessList\\): one ledger's coins may back both, and the token at ${fa} counts them, once; whether these are other coins cannot be said$`,
        ),
      );
    } finally {
      height = before;
    }
  });
});

describe("the token-reads-token probe is linear in the declared tokens", () => {
  /** eth_call entries that replace some declared token's code (the probe's), counted by a proxy before anvil */
  let counting: RawServer;
  let declared = new Set<string>();
  let replacing = 0;
  beforeAll(async () => {
    counting = await entryProxy(async (e) => {
      const over =
        e.method === "eth_call" ? (e.params?.[2] as Record<string, unknown> | undefined) : undefined;
      if (over && Object.keys(over).some((a) => declared.has(a.toLowerCase()))) replacing++;
      try {
        return { jsonrpc: "2.0", id: e.id, result: await anvil.rpc(e.method, e.params) };
      } catch (x) {
        const err = x as { code?: number; message: string };
        return { jsonrpc: "2.0", id: e.id, error: { code: err.code ?? -32000, message: err.message } };
      }
    });
  });
  afterAll(async () => {
    await counting?.close();
  });

  it("14 honest tokens, USDX and SHD (it reads USDX) declared: SHD named as reading USDX, no other token named; 16 + ⌈log2 15⌉ = 20 calls replacing tokens' code (one per token, then 4 halvings for the one that moved), not 16 × 15 = 240", async () => {
    const honest: string[] = [];
    for (let k = 0; k < 14; k++) {
      const t = await deployToken(anvil.rpc, "Token", { symbol: `H${k}`, decimals: 18 });
      await mint(anvil.rpc, t, [A0], [ETHER]);
      honest.push(t);
    }
    await anvil.rpc("evm_mine", []);
    const at = Number(await anvil.rpc<string>("eth_blockNumber"));
    // SHD between the honest tokens, USDX late: the halving has to walk to it
    const order: [string, string][] = [
      ...honest.slice(0, 5).map((t, k): [string, string] => [`H${k}`, t]),
      ["SHD", shd],
      ...honest.slice(5, 12).map((t, k): [string, string] => [`H${k + 5}`, t]),
      ["USDX", usd],
      ...honest.slice(12).map((t, k): [string, string] => [`H${k + 12}`, t]),
    ];
    declared = new Set(order.map(([, t]) => t));
    const balance = (sym: string) => (sym === "USDX" || sym === "SHD" ? "7" : "1");
    const rows = order.map(([sym]): [string, Wallet, string] => [`${sym}-ETH`, W0, balance(sym)]);
    const sums = rows.map(([coin, , amount]) => `${coin},${at},${amount}`);
    const file = write(
      "reserves.csv",
      [
        "coin,snapshot height,balance",
        ...sums,
        "",
        "coin,address,snapshot height,balance,message,signature",
        ...rows.map(
          ([coin, w, amount]) =>
            `${coin},${w.address},${at},${amount},${MESSAGE},${w.signMessageSync(MESSAGE)}`,
        ),
        "",
      ].join("\n"),
    );
    replacing = 0;
    const v = await runCli([
      "reserves",
      "verify",
      file,
      "--node",
      `ETH=${counting.url}`,
      "--stand-in",
      "ethereum",
      ...order.flatMap(([sym, t]) => ["--token", `${sym}=${t}`]),
    ]);
    expect(v.exitCode, v.stdout + v.stderr).toBe(0);
    expect(v.stdout).toContain(
      `SHD-ETH ${W0.address}: its token reads the token at ${usd}: its balanceOf(${A0}) moved when that token answered otherwise at block ${at} (eth_call with a state override): that token's coins again, which solvency counts once, as that token`,
    );
    expect(v.stdout.match(/its token reads the token at/g)?.length).toBe(1);
    expect(v.stdout).not.toMatch(/tracks the native coin|cannot tell/);
    expect(replacing).toBe(16 + 4);
  });
});

describe("a declared token that tracks the native balance, in an exchange's address file", () => {
  it("TRK (a.balance) backing a second asset: NOT COUNTED, it tracks the native coin — NOT SOLVENT; USDX of the same file SOLVENT; ETH counted once", async () => {
    const file = addressFile([
      ["ETH", W0, "3"],
      ["ETH", W1, "5"],
      ["TRK-ETH", W0, "3"],
      ["USDX-ETH", W0, "7"],
    ]);
    const liab = await commitment({ ETH: "8", TRK: "3", USDX: "7" });
    const r = await solvency(anvil.url, file, liab, [...declare({ TRK: trk, USDX: usd })]);
    expect(r.exitCode, r.stdout + r.stderr).toBe(1);
    expect(r.stdout.split("\n")[0]).toMatch(/^NOT SOLVENT: TRK not covered/);
    expect(r.report.verdict).toBe("not-solvent");
    expect(r.coin("ETH")).toMatchObject({ status: "covered", proven: { amount: "8.000000000000000000" } });
    expect(r.coin("USDX")).toMatchObject({ status: "covered", proven: { amount: "7.000000000000000000" } });
    expect(r.coin("TRK")).toMatchObject({
      status: "not-covered",
      proven: { amount: "0.000000000000000000" },
      claimed: { amount: "0.000000000000000000" },
    });
    expect(r.coin("TRK").not_counted).toEqual([
      {
        line: 9,
        coin: "TRK-ETH",
        network: "ETH",
        address: W0.address,
        claimed: "3.000000000000000000",
        status: "proven",
        code: "reads-native",
        why: `TRK-ETH is the token at ${trk} on ${chain1()}, one balance backs one asset: it tracks the native coin: its balanceOf(${A0}) moved with that address's native balance at block ${height} (eth_call with a state override), whatever it adds to it; the native coin counts once, as itself: not counted as TRK`,
        finding: expect.objectContaining({ code: "reads-native", asset: "TRK", coin: "TRK-ETH" }),
      },
    ]);
    expect(r.stdout).toContain(`it tracks the native coin: its balanceOf(${A0}) moved with`);
    // the honest control alone: SOLVENT, exit 0
    const honest = await solvency(
      anvil.url,
      addressFile([
        ["ETH", W0, "3"],
        ["USDX-ETH", W0, "7"],
      ]),
      await commitment({ ETH: "3", USDX: "7" }),
      [...declare({ USDX: usd })],
    );
    expect(honest.exitCode, honest.stdout + honest.stderr).toBe(0);
    expect(honest.stdout).toMatch(/^SOLVENT/);
  });

  it("FOL (balanceOf(A0) = A1.balance, the file's other address): NOT COUNTED, naming whose balance it follows — listed before the native rows and backing ETH itself, the 5 ETH at A1 count once (8 proven, not 13)", async () => {
    const file = addressFile([
      ["FOL-ETH", W0, "5"],
      ["ETH", W0, "3"],
      ["ETH", W1, "5"],
      ["USDX-ETH", W0, "7"],
    ]);
    const follows = `its balanceOf(${A0}) moved with the native balance of ${A1} at block ${height}`;
    // a second asset
    const two = await solvency(anvil.url, file, await commitment({ ETH: "8", FOL: "5", USDX: "7" }), [
      ...declare({ FOL: fol, USDX: usd }),
    ]);
    expect(two.exitCode, two.stdout + two.stderr).toBe(1);
    expect(two.stdout.split("\n")[0]).toMatch(/^NOT SOLVENT: FOL not covered/);
    expect(two.coin("FOL").not_counted[0]?.why).toContain(follows);
    expect(two.coin("USDX").status).toBe("covered");
    // the follower declared as ETH itself, first in the file: 8 ETH proven, 13 owed is not covered
    const eth = ["--backing", "ETH=evm:1", "--backing", `ETH=evm:1:${fol}`, "--token", `FOL=${fol}`];
    const over = await solvency(anvil.url, file, await commitment({ ETH: "13" }), eth);
    expect(over.exitCode, over.stdout + over.stderr).toBe(1);
    expect(over.coin("ETH")).toMatchObject({
      status: "not-covered",
      proven: { amount: "8.000000000000000000" },
    });
    expect(over.coin("ETH").not_counted[0]).toMatchObject({ line: 7, coin: "FOL-ETH" });
    expect(over.coin("ETH").not_counted[0]?.why).toContain(follows);
    const eight = await solvency(anvil.url, file, await commitment({ ETH: "8" }), eth);
    expect(eight.exitCode, eight.stdout + eight.stderr).toBe(0);
  });

  it("reserves verify: the row proven (its key signed, the balance there), its detail naming the native coin again; --json balance.tracking", async () => {
    const file = addressFile([
      ["ETH", W0, "3"],
      ["TRK-ETH", W0, "3"],
      ["USDX-ETH", W0, "7"],
    ]);
    const args = [
      "reserves",
      "verify",
      file,
      "--node",
      `ETH=${anvil.url}`,
      "--stand-in",
      "ethereum",
      "--token",
      `TRK=${trk}`,
      "--token",
      `USDX=${usd}`,
    ];
    const v = await runCli(args);
    expect(v.exitCode, v.stdout + v.stderr).toBe(0);
    expect(v.stdout).toContain(
      `tracking   line 8: TRK-ETH ${W0.address}: its token tracks the native coin: its balanceOf(${A0}) moved with that address's native balance at block ${height} (eth_call with a state override), whatever it adds to it: the native coin again, which solvency counts once, as itself`,
    );
    expect(v.stdout).not.toContain(`USDX-ETH ${W0.address}: its token`);
    const j = JSON.parse((await runCli([...args, "--json"])).stdout);
    const rows = j.rows as { coin: string; balance: { tracking?: { tracks: boolean | null } } }[];
    expect(rows.find((x) => x.coin === "TRK-ETH")).toMatchObject({
      status: "proven",
      reason: expect.stringContaining(`but the token at ${trk} tracks the native coin`),
      balance: { tracking: { tracks: true } },
    });
    expect(rows.find((x) => x.coin === "USDX-ETH")?.balance.tracking).toBeUndefined();
  });
});

describe("a node that does not apply eth_call's state override: whether a token reads the native coin it cannot tell", () => {
  let refusing: RawServer;
  let ignoring: RawServer;
  const anvilAnswer = async (e: { id: unknown; method: string; params?: unknown[] }) => {
    try {
      return { jsonrpc: "2.0", id: e.id, result: await anvil.rpc(e.method, e.params) };
    } catch (x) {
      const err = x as { code?: number; message: string };
      return { jsonrpc: "2.0", id: e.id, error: { code: err.code ?? -32000, message: err.message } };
    }
  };
  beforeAll(async () => {
    refusing = await entryProxy(async (e) =>
      e.method === "eth_call" && (e.params?.length ?? 0) > 2
        ? { jsonrpc: "2.0", id: e.id, error: { code: -32602, message: "too many arguments, want at most 2" } }
        : anvilAnswer(e),
    );
    ignoring = await entryProxy(async (e) =>
      anvilAnswer(e.method === "eth_call" ? { ...e, params: e.params?.slice(0, 2) } : e),
    );
  });
  afterAll(async () => {
    await refusing?.close();
    await ignoring?.close();
  });

  it("the tracking token and the ordinary one: CANNOT SAY (exit 3) naming why, beside NOT SOLVENT / SOLVENT on anvil itself; ETH covered", async () => {
    const file = addressFile([
      ["ETH", W0, "3"],
      ["TRK-ETH", W0, "3"],
      ["USDX-ETH", W0, "7"],
    ]);
    const liab = await commitment({ ETH: "3", TRK: "3", USDX: "7" });
    const more = [...declare({ TRK: trk, USDX: usd })];
    const told = await solvency(anvil.url, file, liab, more);
    expect(told.exitCode, told.stdout + told.stderr).toBe(1);
    expect(told.coin("USDX").status).toBe("covered");
    const code = "the probe's code given to 0x00000000000000000000000000000000c0de0b01 answered";
    for (const [node, answered] of [
      [refusing, `${code} too many arguments, want at most 2`],
      [ignoring, `${code} "0x"`],
    ] as const) {
      const r = await solvency(node.url, file, liab, more);
      expect(r.exitCode, r.stdout + r.stderr).toBe(3);
      expect(r.stdout.split("\n")[0]).toMatch(/^CANNOT SAY: /);
      expect(r.coin("ETH")).toMatchObject({ status: "covered", proven: { amount: "3.000000000000000000" } });
      for (const a of ["TRK", "USDX"]) {
        expect(r.coin(a)).toMatchObject({ status: "cannot-say", proven: { amount: "0.000000000000000000" } });
        expect([...(r.coin(a).rows ?? [])][0]?.not_for_this_audit).toContain(
          `whether its balanceOf reads the native coin of ${chain1()} (counted twice then) its node cannot tell: the node did not apply eth_call's state override (${answered}`,
        );
      }
    }
    // reserves verify through the refusing node: the rows still proven, the field says it could not tell
    const v = JSON.parse(
      (
        await runCli([
          "reserves",
          "verify",
          file,
          "--node",
          `ETH=${refusing.url}`,
          "--stand-in",
          "ethereum",
          "--token",
          `TRK=${trk}`,
          "--json",
        ])
      ).stdout,
    );
    expect(v.verdict).not.toBe("fails");
    const row = (v.rows as { coin: string; status: string; balance: { tracking?: unknown } }[]).find(
      (x) => x.coin === "TRK-ETH",
    );
    expect(row).toMatchObject({ status: "proven", balance: { tracking: { tracks: null } } });
    expect(readFileSync(file, "utf8")).toContain("TRK-ETH");
  });
});
