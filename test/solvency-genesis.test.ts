/**
 * Issue 55 (the forger's seam): a chain is known by its chain id AND, where chaingw knows it, its genesis block.
 * A real anvil started with `--chain-id 1` answers Ethereum's chain id; its block 0 is its own. A token
 * contract set with anvil_setCode at Tether's USDT address (0xdac17f…) there, holding 7 "USDT" at a key that
 * signed the audit's text, was taken as Tether's USDT on Ethereum. Now, on both paths — an exchange's address
 * file (HTX layout, `cast wallet sign` over "huobi") and chaingw's own `reserves balances` proof — it is not
 * Tether's USDT: the node, declared a stand-in, is "chain id 1 (a stand-in for Ethereum: its genesis block is 0x…;
 * --stand-in)" — its coins its own, not Ethereum's —, NOT SOLVENT; in the same
 * invocation a token declared with --backing on that chain (USDX) counts, named as trusted.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SolvencyReport } from "../src/judge/report.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { buildCommitment } from "./helpers/liabilities.js";
import { trackDir } from "./helpers/procs.js";
import { deployToken, mint } from "./helpers/tokens.js";

const CAST = new URL("../node_modules/.bin/cast", import.meta.url).pathname;
const MESSAGE = "huobi";
/** anvil's dev key 0 and its address */
const K0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const A0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
/** Tether's USDT on Ethereum (tether.to) */
const TETHER = "0xdac17f958d2ee523a2206206994597c13d831ec7";
const ETHEREUM_GENESIS = "0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3";

let dir: string;
let anvil: AnvilNode;
let usdx: string;
let genesis: string;
let height: number;
let sig: string;
let proof: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-solvency-genesis-"));
  trackDir(dir);
  anvil = await startAnvil(["--chain-id", "1"]);
  // the self-made "USDT": a test token's code (decimals 6, immutable) and its symbol's slot set at Tether's address
  const made = await deployToken(anvil.rpc, "Token", { symbol: "USDT", decimals: 6 });
  await anvil.rpc("anvil_setCode", [TETHER, await anvil.rpc<string>("eth_getCode", [made, "latest"])]);
  const slot2 = await anvil.rpc<string>("eth_getStorageAt", [made, "0x2", "latest"]);
  await anvil.rpc("anvil_setStorageAt", [TETHER, "0x2", slot2]);
  await mint(anvil.rpc, TETHER, [A0], [7_000_000n]);
  // the honest control: a token the auditor declares on this chain
  usdx = await deployToken(anvil.rpc, "Token", { symbol: "USDX", decimals: 6 });
  await mint(anvil.rpc, usdx, [A0], [4_000_000n]);
  await anvil.rpc("evm_mine", []);
  height = Number(await anvil.rpc<string>("eth_blockNumber"));
  genesis = (await anvil.rpc<{ hash: string }>("eth_getBlockByNumber", ["0x0", false])).hash;
  sig = execFileSync(CAST, ["wallet", "sign", "--private-key", K0, MESSAGE], { encoding: "utf8" }).trim();
  writeFileSync(join(dir, "assets.csv"), "asset,decimals\nUSDT,6\nUSDX,6\n");
  writeFileSync(join(dir, "sigs.csv"), `${A0},${sig}\n`);
  proof = join(dir, "balances.json");
  const r = await runCli(
    [
      "reserves",
      "balances",
      A0,
      "--token",
      TETHER,
      "--token",
      usdx,
      "--proof",
      proof,
      "--challenge",
      MESSAGE,
      "--signatures",
      join(dir, "sigs.csv"),
    ],
    { env: { CHAINGW_URL: anvil.url } },
  );
  expect(r.exitCode, r.stderr).toBe(0);
});

afterAll(async () => {
  await anvil?.stop();
});

const notEthereum = () => `chain id 1 (a stand-in for Ethereum: its genesis block is ${genesis}; --stand-in)`;

describe("a USDT set at Tether's address on an anvil answering chain id 1", () => {
  it("anvil's genesis is not Ethereum's", () => {
    expect(genesis).toMatch(/^0x[0-9a-f]{64}$/);
    expect(genesis).not.toBe(ETHEREUM_GENESIS);
  });

  it("an exchange's address file: not Tether's USDT, NOT SOLVENT; the declared USDX beside it counts", async () => {
    const file = join(dir, "reserves.csv");
    writeFileSync(
      file,
      [
        "coin,snapshot height,balance",
        `USDT,${height},7`,
        `USDX,${height},4`,
        "",
        "coin,address,snapshot height,balance,message,signature",
        `USDT-ETH,${A0},${height},7,${MESSAGE},${sig}`,
        `USDX-ETH,${A0},${height},4,${MESSAGE},${sig}`,
        "",
      ].join("\n"),
    );
    const liab = await buildCommitment(dir, "owed-file", ["c1,USDT,5", "c2,USDX,3"]);
    const r = await runCli([
      "solvency",
      "--reserves",
      file,
      "--liabilities",
      liab,
      "--node",
      `ETH=${anvil.url}`,
      "--stand-in",
      "ethereum",
      "--token",
      `USDT=${TETHER}`,
      "--token",
      `USDX=${usdx}`,
      "--backing",
      `USDX=evm:1:${usdx}`,
      "--challenge",
      MESSAGE,
      "--json",
    ]);
    expect(r.stderr).toBe("");
    const report = JSON.parse(r.stdout) as SolvencyReport;
    const coin = (a: string) => report.assets.find((c) => c.asset === a);
    expect(report.verdict).toBe("not-solvent");
    expect(r.exitCode).toBe(1);
    expect(coin("USDT")).toMatchObject({ proven: { amount: "0.000000" }, status: "not-covered" });
    expect(coin("USDT")?.not_counted).toEqual([
      expect.objectContaining({
        why: `USDT-ETH is the token at ${TETHER} on ${notEthereum()}, not Tether's USDT on Ethereum or Tether's USDT on TRON (the well-known USDT; another network or contract only with --backing USDT=NETWORK[:TOKEN]): not counted as USDT`,
      }),
    ]);
    expect(coin("USDX")).toMatchObject({ proven: { amount: "4.000000" }, status: "covered" });
    expect(report.trusted).toEqual([`the token at ${usdx} on chain id 1 as USDX`]);
  });

  it("chaingw's own proof (reserves balances, solvency --verify): not Tether's USDT, NOT SOLVENT; the declared USDX counts", async () => {
    const liab = await buildCommitment(dir, "owed-own", ["c1,USDT,5", "c2,USDX,3"]);
    const r = await runCli([
      "solvency",
      "--liabilities",
      liab,
      "--reserves",
      `USDT=${proof}#${TETHER}`,
      "--reserves",
      `USDX=${proof}#${usdx}`,
      "--backing",
      `USDX=evm:1:${usdx}`,
      "--verify",
      "--url-for",
      `evm=${anvil.url}`,
      "--stand-in",
      "ethereum",
      "--challenge",
      MESSAGE,
    ]);
    expect(r.stderr).toBe("");
    expect(r.exitCode, r.stdout).toBe(1);
    expect(r.stdout.split("\n")[0]).toMatch(/^NOT SOLVENT: USDT not covered/);
    expect(r.stdout).toContain(
      `USDT: ${proof}#${TETHER}: NOT COUNTED: a token named USDT at ${TETHER} on ${notEthereum()}, not Tether's USDT on Ethereum`,
    );
    expect(r.stdout).toMatch(/USDX .* 3\.000000 .* 4\.000000 .* covered \(proven\)/);
  });
});
