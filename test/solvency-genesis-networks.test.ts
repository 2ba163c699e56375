/**
 * Issue 55, tried again as an auditor's adversary: a chain id is a number any node can answer, and chaingw knew
 * the genesis of only Ethereum and TRON. A real anvil started with `--chain-id 56` answers BNB Smart Chain's
 * chain id from a one-block devnet whose faucet gives anvil's dev key 10,000 "BNB"; with the auditor's
 * `--backing BNB=bnb-smart-chain` (the network by name) it was taken as BNB Smart Chain: SOLVENT, exit 0, on
 * both paths — chaingw's own `reserves balances` proof (`solvency --verify`) and an exchange's address file
 * (HTX layout, `--node BSC=`). Each signature is `cast wallet sign`'s. Now the table knows the genesis of every
 * mainnet and Ethereum test network it names (BSC, OP, Polygon, Base, Arbitrum One, Avalanche C, Holesky,
 * Sepolia), and such a node is "not BNB Smart Chain" (cannot say / NOT COUNTED, as test/solvency-genesis is for
 * Ethereum). Honest control, in the same invocations' files: the devnet declared a stand-in and its coin by
 * chain id (`--stand-in bnb-smart-chain --backing BNB=evm:56`) counts, SOLVENT exit 0.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { buildCommitment } from "./helpers/liabilities.js";
import { trackDir } from "./helpers/procs.js";

const CAST = new URL("../node_modules/.bin/cast", import.meta.url).pathname;
const MESSAGE = "huobi";
/** anvil's dev key 0 and its address */
const K0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const A0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
/** bnb-chain/bsc params/config.go BSCGenesisHash */
const BSC_GENESIS = "0x0d21840abff46b96c84b2ac9e10e4f5cdaeb5693cb665db62a2f3b02d2d57b5b";

let dir: string;
let anvil: AnvilNode;
let genesis: string;
let proof: string;
let file: string;
let liab: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-solvency-genesis-networks-"));
  trackDir(dir);
  anvil = await startAnvil(["--chain-id", "56"]);
  await anvil.rpc("evm_mine", []);
  const height = Number(await anvil.rpc<string>("eth_blockNumber"));
  genesis = (await anvil.rpc<{ hash: string }>("eth_getBlockByNumber", ["0x0", false])).hash;
  const sig = execFileSync(CAST, ["wallet", "sign", "--private-key", K0, MESSAGE], {
    encoding: "utf8",
  }).trim();
  writeFileSync(join(dir, "assets.csv"), "asset,decimals\nBNB,18\n");
  writeFileSync(join(dir, "sigs.csv"), `${A0},${sig}\n`);
  proof = join(dir, "balances.json");
  const r = await runCli(
    [
      "reserves",
      "balances",
      A0,
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
  // anvil's faucet: 10,000 of its coin at A0
  file = join(dir, "reserves.csv");
  writeFileSync(
    file,
    [
      "coin,snapshot height,balance",
      `BNB,${height},10000`,
      "",
      "coin,address,snapshot height,balance,message,signature",
      `BNB,${A0},${height},10000,${MESSAGE},${sig}`,
      "",
    ].join("\n"),
  );
  liab = await buildCommitment(dir, "owed", ["c1,BNB,10000"], MESSAGE);
});

afterAll(async () => {
  await anvil?.stop();
});

const first = (s: string) => s.split("\n")[0];
const own = (p: string, ...more: string[]) =>
  runCli([
    "solvency",
    "--liabilities",
    liab,
    "--reserves",
    `BNB=${p}`,
    "--verify",
    "--url-for",
    `evm=${anvil.url}`,
    ...more,
  ]);
const exchange = (...more: string[]) =>
  runCli(["solvency", "--liabilities", liab, "--reserves", file, "--node", `BSC=${anvil.url}`, ...more]);

describe("an anvil answering BNB Smart Chain's chain id 56 is not BNB Smart Chain", () => {
  it("its genesis is not BSC's", () => {
    expect(genesis).toMatch(/^0x[0-9a-f]{64}$/);
    expect(genesis).not.toBe(BSC_GENESIS);
  });

  it("chaingw's own proof, --backing BNB=bnb-smart-chain: cannot say, naming both genesis blocks (was SOLVENT, exit 0); declared a stand-in by chain id: SOLVENT", async () => {
    const forged = await own(proof, "--backing", "BNB=bnb-smart-chain");
    expect(forged.stderr).toBe("");
    expect(first(forged.stdout)).toBe(
      "CANNOT SAY: BNB: a node could not say whether its reserves hold; proven 0.000000000000000000 of 10000.000000000000000000 BNB",
    );
    expect(forged.stdout).toContain(
      `the node answers chain id 56, BNB Smart Chain's, but its genesis block is ${genesis}, not BNB Smart Chain's ${BSC_GENESIS}: it is not BNB Smart Chain and cannot say what BNB Smart Chain holds (a devnet standing in for BNB Smart Chain: --stand-in bnb-smart-chain)`,
    );
    expect(forged.exitCode).toBe(3);
    // the proof made on the devnet declared a stand-in (its coin then BNB): still not BNB Smart Chain's
    const declared = join(dir, "declared.json");
    const made = await runCli(
      [
        "reserves",
        "balances",
        A0,
        "--proof",
        declared,
        "--challenge",
        MESSAGE,
        "--signatures",
        join(dir, "sigs.csv"),
        "--stand-in",
        "bnb-smart-chain",
      ],
      { env: { CHAINGW_URL: anvil.url } },
    );
    expect(made.exitCode, made.stderr).toBe(0);
    const standIn = await own(declared, "--backing", "BNB=bnb-smart-chain", "--stand-in", "bnb-smart-chain");
    expect(first(standIn.stdout)).toBe(
      "NOT SOLVENT: BNB not covered: short 10000.000000000000000000 BNB (no reserves count for it)",
    );
    expect(standIn.stdout).toContain(
      `NOT COUNTED: the native coin of chain id 56 (a stand-in for BNB Smart Chain: its genesis block is ${genesis}; --stand-in), not the native coin of BNB Smart Chain (--backing BNB)`,
    );
    expect(standIn.exitCode).toBe(1);
    // honest control: the auditor declares the devnet's coin by its chain id
    const honest = await own(declared, "--backing", "BNB=evm:56", "--stand-in", "bnb-smart-chain");
    expect(honest.stderr).toBe("");
    expect(first(honest.stdout)).toMatch(/^SOLVENT: every asset covered \(1\) by proven reserves/);
    expect(honest.exitCode).toBe(0);
  });

  it("an exchange's address file, --node BSC=: its row NOT COUNTED (was SOLVENT, exit 0); declared a stand-in by chain id: SOLVENT", async () => {
    const forged = await exchange("--backing", "BNB=bnb-smart-chain");
    expect(forged.stderr).toBe("");
    expect(first(forged.stdout)).toBe(
      "NOT SOLVENT: BNB not covered: short 10000.000000000000000000 BNB (no reserves count for it)",
    );
    expect(forged.stdout).toContain(
      `NOT COUNTED (cannot-say): BNB is the own coin of chain id 56 (not BNB Smart Chain: its genesis block is ${genesis}), not the native coin of BNB Smart Chain (--backing BNB)`,
    );
    expect(forged.exitCode).toBe(1);
    const honest = await exchange("--backing", "BNB=evm:56", "--stand-in", "bnb-smart-chain");
    expect(honest.stderr).toBe("");
    expect(first(honest.stdout)).toBe(
      "SOLVENT: every coin owed (1) covered by proven reserves: signed over the accepted text, re-read on chain at the snapshot",
    );
    expect(honest.exitCode).toBe(0);
  });
});
