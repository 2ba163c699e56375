/**
 * Tried as an auditor's adversary would (issue 55, "tried again later … with cases nobody here has seen"): each
 * forgery beside its honest control, on real nodes (anvil; the token of test/fixtures/token), asserting what
 * the user sees — the verdict line and the exit code.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { trackDir } from "./helpers/procs.js";
import { deployToken, mint, move } from "./helpers/tokens.js";

const CAST = new URL("../node_modules/.bin/cast", import.meta.url).pathname;
const K0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const A0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const OKX = "I am an OKX address";
const cast = (...args: string[]) => execFileSync(CAST, args, { encoding: "utf8" }).trim();
/** OKX's EVM form: personal_sign over the 32 bytes of keccak256(message) */
const okxSign = (key: string) => cast("wallet", "sign", "--private-key", key, cast("keccak", OKX));

let dir: string;
let anvil: AnvilNode;
let n = 0;
const write = (name: string, text: string) => {
  const p = join(dir, `${n++}-${name}`);
  writeFileSync(p, text);
  return p;
};

/** chaingw's commitment of one customer per asset owing `owed` (asset → [amount, decimals]). */
async function commitment(owed: Record<string, [string, number]>): Promise<string> {
  const out = join(dir, `${n++}-snap`);
  const input = write(
    "balances.csv",
    ["customer_id,asset,amount", ...Object.entries(owed).map(([a, [v]], i) => `c${i},${a},${v}`), ""].join(
      "\n",
    ),
  );
  const assets = write(
    "assets.csv",
    ["asset,decimals", ...Object.entries(owed).map(([a, [, d]]) => `${a},${d}`), ""].join("\n"),
  );
  const r = await runCli(["liabilities", "build", "--input", input, "--assets", assets, "--out", out]);
  expect(r.exitCode, r.stderr).toBe(0);
  return join(out, "commitment.json");
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-solvency-adversary-"));
  trackDir(dir);
  anvil = await startAnvil();
});

afterAll(async () => {
  await anvil?.stop();
});

describe("an OKX 2022 file (amounts in base units) of a token declared with --token", () => {
  it("its base units are counted in the places the chain gives them (the token's decimals()), not chaingw's table's for the coin's name: 1 token of 18 decimals is not 10^12 USDT", async () => {
    // a declared USDT whose contract has 18 decimals (as Tether's BEP-20 issue has); the table's USDT-ERC20 has 6
    const token = await deployToken(anvil.rpc, "Token", { symbol: "USDT", decimals: 18 });
    await mint(anvil.rpc, token, [A0], [10n ** 24n]);
    await anvil.rpc("anvil_mine", ["0x1"]);
    const height = Number(BigInt(await anvil.rpc<string>("eth_blockNumber", [])));
    const sig = okxSign(K0);
    const file = (coins: string, base: string) =>
      write(
        "okx.csv",
        [
          "coin,snapshot height,amount",
          `USDT-ERC20,${height},${coins}`,
          "",
          "coin,address,amount,message,signature1,signature2,redeem script/ public key",
          `USDT-ERC20,${A0},${base},${OKX},${sig},,`,
          "",
        ].join("\n"),
      );
    const liabilities = await commitment({ USDT: ["1000000", 6] });
    const solvency = (reserves: string) =>
      runCli([
        "solvency",
        "--reserves",
        reserves,
        "--liabilities",
        liabilities,
        "--node",
        `ERC20=${anvil.url}`,
        "--token",
        `USDT=${token}`,
        "--backing",
        `USDT=anvil:${token}`,
        "--challenge",
        OKX,
      ]);
    // honest: 10^24 base units, 1,000,000 tokens, and its summary line says so in coins
    const honest = await solvency(file("1000000", `1${"0".repeat(24)}`));
    expect(honest.stderr).toBe("");
    expect(honest.stdout.split("\n")[0]).toMatch(/^SOLVENT: every coin owed \(1\) covered/);
    expect(honest.stdout).toContain(
      // at USDT's 6 places, the commitment's (the token's 18 cut no digit of these amounts)
      "USDT covered: proven 1000000.000000 of 1000000.000000 USDT",
    );
    expect(honest.exitCode).toBe(0);
    // forged: 10^18 base units, one token, whose summary line is what the table's 6 places would make of them
    // (10^12): it was SOLVENT, "proven 1000000000000 of 1000000 USDT"
    const forged = await solvency(file("1000000000000", `1${"0".repeat(18)}`));
    expect(forged.stdout.split("\n")[0]).toMatch(/^NOT SOLVENT: /);
    expect(forged.stdout).toContain(
      "the file's summary says 1000000000000.000000, its 1 row sum to 1.000000",
    );
    expect(forged.stdout).not.toContain("USDT covered");
    expect(forged.exitCode).toBe(1);
    // the same forgery with a summary line that agrees with the chain: short, not covered
    const short = await solvency(file("1", `1${"0".repeat(18)}`));
    expect(short.stdout.split("\n")[0]).toMatch(/^NOT SOLVENT: /);
    expect(short.stdout).toContain(
      "USDT not covered: short 999999.000000 USDT (claimed reserves 1.000000 of 1000000.000000)",
    );
    expect(short.exitCode).toBe(1);
  });
});

describe("one snapshot per chain: value read at one block, the same value read again at a later one in another form", () => {
  it("a row of the native coin below the latest snapshot of a declared token backing the same asset on the same chain proves nothing (it was SOLVENT for twice the coins held at either block)", async () => {
    await anvil.rpc("anvil_mine", ["0x1"]);
    const h1 = Number(BigInt(await anvil.rpc<string>("eth_blockNumber", [])));
    // A0 "wraps" 9,000 ETH: the ether leaves, 9,000 WETH arrive
    const weth = await deployToken(anvil.rpc, "Token", { symbol: "WETH", decimals: 18 });
    await mint(anvil.rpc, weth, [A0], [9000n * 10n ** 18n]);
    await anvil.rpc("eth_sendTransaction", [
      {
        from: A0,
        to: "0x000000000000000000000000000000000000dEaD",
        value: `0x${(9000n * 10n ** 18n).toString(16)}`,
      },
    ]);
    await anvil.rpc("anvil_mine", ["0x1"]);
    const h2 = Number(BigInt(await anvil.rpc<string>("eth_blockNumber", [])));
    const sig = okxSign(K0);
    const file = write(
      "okx-2024.csv",
      [
        "coin,Network,Snapshot Height,address,amount,message,signature1,signature2,redeem script/ public key, eoa1, eoa2",
        `ETH,ETH,${h1},${A0},9000,${OKX},${sig},,,,`,
        `WETH,ETH,${h2},${A0},9000,${OKX},${sig},,,,`,
        "",
      ].join("\n"),
    );
    const solvency = async (owed: string) =>
      runCli([
        "solvency",
        "--reserves",
        file,
        "--liabilities",
        await commitment({ ETH: [owed, 18] }),
        "--node",
        `ETH=${anvil.url}`,
        "--token",
        `WETH=${weth}`,
        "--backing",
        "ETH=anvil",
        "--backing",
        `ETH=anvil:${weth}`,
        "--challenge",
        OKX,
      ]);
    // honest: 9,000 ETH owed, held at the later block as WETH
    const honest = await solvency("9000");
    expect(honest.stderr).toBe("");
    expect(honest.stdout.split("\n")[0]).toMatch(/^SOLVENT: /);
    expect(honest.exitCode).toBe(0);
    // forged: 18,000 owed, the 9,000 counted once as ether at h1 and again as WETH at h2
    const forged = await solvency("18000");
    expect(forged.stdout.split("\n")[0]).toMatch(
      /^NOT PROVEN SOLVENT: ETH covered only by claimed reserves: proven 9000\.000000000000000000 of 18000\.000000000000000000 ETH \(50\.00%\)/,
    );
    expect(forged.stdout).toContain(
      `line 2: proven at height ${h1}, but the file's latest snapshot on this chain is height ${h2}: value moved between the two (paid to another address, wrapped, or swapped into another asset owed) would count at both`,
    );
    expect(forged.exitCode).toBe(1);
  });

  it("a USDT row below the latest snapshot of a USDC row on the same chain proves nothing: 1,000 USDT swapped for 1,000 USDC between the two blocks made 1,000 of each owed SOLVENT", async () => {
    await anvil.rpc("anvil_mine", ["0x1"]);
    const usdt = await deployToken(anvil.rpc, "Token", { symbol: "USDT", decimals: 6 });
    const usdc = await deployToken(anvil.rpc, "Token", { symbol: "USDC", decimals: 6 });
    await mint(anvil.rpc, usdt, [A0], [1000n * 10n ** 6n]);
    await anvil.rpc("anvil_mine", ["0x1"]);
    const h1 = Number(BigInt(await anvil.rpc<string>("eth_blockNumber", [])));
    // the swap: A0's USDT leaves, as much USDC arrives
    await move(anvil.rpc, usdt, A0, "0x000000000000000000000000000000000000dead", 1000n * 10n ** 6n);
    await mint(anvil.rpc, usdc, [A0], [1000n * 10n ** 6n]);
    await anvil.rpc("anvil_mine", ["0x1"]);
    const h2 = Number(BigInt(await anvil.rpc<string>("eth_blockNumber", [])));
    const sig = okxSign(K0);
    const file = write(
      "okx-2024.csv",
      [
        "coin,Network,Snapshot Height,address,amount,message,signature1,signature2,redeem script/ public key, eoa1, eoa2",
        `USDT,ETH,${h1},${A0},1000,${OKX},${sig},,,,`,
        `USDC,ETH,${h2},${A0},1000,${OKX},${sig},,,,`,
        "",
      ].join("\n"),
    );
    const solvency = async (owed: Record<string, [string, number]>) =>
      runCli([
        "solvency",
        "--reserves",
        file,
        "--liabilities",
        await commitment(owed),
        "--node",
        `ETH=${anvil.url}`,
        "--token",
        `USDT=${usdt}`,
        "--token",
        `USDC=${usdc}`,
        ...Object.keys(owed).flatMap((a) => ["--backing", `${a}=anvil:${a === "USDT" ? usdt : usdc}`]),
        "--challenge",
        OKX,
      ]);
    // honest: 1,000 USDC owed, held at the file's one snapshot of the chain
    const honest = await solvency({ USDC: ["1000", 6] });
    expect(honest.stderr).toBe("");
    expect(honest.stdout.split("\n")[0]).toMatch(/^SOLVENT: /);
    expect(honest.exitCode).toBe(0);
    // forged: 1,000 of each owed, the same 1,000 counted as USDT at h1 and as USDC at h2
    const forged = await solvency({ USDT: ["1000", 6], USDC: ["1000", 6] });
    expect(forged.stderr).toBe("");
    expect(forged.stdout.split("\n")[0]).toMatch(
      /^NOT PROVEN SOLVENT: USDT covered only by claimed reserves: proven 0\.000000 of 1000\.000000 USDT \(0\.00%\)/,
    );
    expect(forged.stdout).toContain(
      `line 2: proven at height ${h1}, but the file's latest snapshot on this chain is height ${h2}`,
    );
    expect(forged.stdout).toContain("USDC covered: proven 1000.000000 of 1000.000000 USDC");
    expect(forged.exitCode).toBe(1);
  });
});

describe("chaingw's own proofs: one block per EVM chain for every asset owed (it held)", () => {
  it("1,000 USDT proven at block N and the same value swapped into 1,000 USDC proven at N+1: refused (exit 2: proofs of one chain at two blocks), never SOLVENT for 1,000 of each; 1,000 USDC owed: SOLVENT", async () => {
    const CHALLENGE = "adversary audit 55";
    const usdt = await deployToken(anvil.rpc, "Token", { symbol: "USDT", decimals: 6 });
    const usdc = await deployToken(anvil.rpc, "Token", { symbol: "USDC", decimals: 6 });
    await mint(anvil.rpc, usdt, [A0], [1000n * 10n ** 6n]);
    await anvil.rpc("anvil_mine", ["0x1"]);
    const h1 = Number(BigInt(await anvil.rpc<string>("eth_blockNumber", [])));
    const sigs = write("sigs.csv", `${A0},${cast("wallet", "sign", "--private-key", K0, CHALLENGE)}\n`);
    const prove = async (token: string, block: string) => {
      const proof = join(dir, `${n++}-balances.json`);
      const r = await runCli(
        ["reserves", "balances", A0, "--token", token, "--block", block, "--proof", proof].concat([
          "--challenge",
          CHALLENGE,
          "--signatures",
          sigs,
        ]),
        { env: { CHAINGW_URL: anvil.url } },
      );
      expect(r.exitCode, r.stderr).toBe(0);
      return proof;
    };
    const before = await prove(usdt, String(h1));
    // the swap: A0's USDT leaves, as much USDC arrives
    await move(anvil.rpc, usdt, A0, "0x000000000000000000000000000000000000dead", 1000n * 10n ** 6n);
    await mint(anvil.rpc, usdc, [A0], [1000n * 10n ** 6n]);
    await anvil.rpc("anvil_mine", ["0x1"]);
    const h2 = Number(BigInt(await anvil.rpc<string>("eth_blockNumber", [])));
    const after = await prove(usdc, String(h2));
    const solvency = async (owed: Record<string, [string, number]>) =>
      runCli([
        "solvency",
        "--liabilities",
        await commitment(owed),
        ...Object.keys(owed).flatMap((a) => ["--reserves", `${a}=${a === "USDT" ? before : after}`]),
        ...Object.keys(owed).flatMap((a) => ["--backing", `${a}=anvil:${a === "USDT" ? usdt : usdc}`]),
        "--verify",
        "--url-for",
        `evm=${anvil.url}`,
        "--challenge",
        CHALLENGE,
      ]);
    const honest = await solvency({ USDC: ["1000", 6] });
    expect(honest.stderr).toBe("");
    expect(honest.stdout.split("\n")[0]).toMatch(/^SOLVENT: /);
    expect(honest.exitCode).toBe(0);
    // held before the exchange path did: one chain's EVM proofs at two blocks are refused, whatever their assets
    const forged = await solvency({ USDT: ["1000", 6], USDC: ["1000", 6] });
    expect(forged.stdout).toBe("");
    expect(forged.stderr).toContain(
      `anvil (chain id 31337): proofs at different blocks (${before} at ${h1}, ${after} at ${h2}) cannot be counted together — make them at one block`,
    );
    expect(forged.exitCode).toBe(2);
  });
});
