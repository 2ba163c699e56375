/**
 * Chain identity on every path (issue 55): a node is taken as network X only when it is X — its chain id AND,
 * where chaingw knows X's genesis (Ethereum, TRON), its block 0. A real anvil started with `--chain-id 1`
 * answers Ethereum's chain id; its genesis is its own. Given as Ethereum's node, undeclared, its rows and
 * proofs cannot say (exit 3), naming its chain id, its genesis and Ethereum's — before, `reserves verify` of an
 * exchange's address file called its rows proven. Declared with `--stand-in ethereum`, the same node is read
 * and every verdict says "chain id 1 (a stand-in for Ethereum: its genesis block is 0x…; --stand-in)". Each forgery beside its honest control in
 * the same test: an OKX-layout file (`cast wallet sign` over keccak256 of OKX's text) and chaingw's own
 * `reserves balances` proof.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFaultServer } from "./fixtures/faults.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { buildCommitment } from "./helpers/liabilities.js";
import { trackDir } from "./helpers/procs.js";

const CAST = new URL("../node_modules/.bin/cast", import.meta.url).pathname;
const K0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const A0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const MESSAGE = "I am an OKX address";
const ETHEREUM_GENESIS = "0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3";
const cast = (...args: string[]) => execFileSync(CAST, args, { encoding: "utf8" }).trim();

let dir: string;
let anvil: AnvilNode;
let genesis: string;
let height: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-stand-in-"));
  trackDir(dir);
  anvil = await startAnvil(["--chain-id", "1"]);
  await anvil.rpc("evm_mine", []);
  height = Number(BigInt(await anvil.rpc<string>("eth_blockNumber", [])));
  genesis = (await anvil.rpc<{ hash: string }>("eth_getBlockByNumber", ["0x0", false])).hash;
});

afterAll(async () => {
  await anvil?.stop();
});

const notEthereum = () =>
  `the node answers chain id 1, Ethereum's, but its genesis block is ${genesis}, not Ethereum's ${ETHEREUM_GENESIS}: it is not Ethereum and cannot say what Ethereum holds (a devnet standing in for Ethereum: --stand-in ethereum)`;
const standIn = () => `chain id 1 (a stand-in for Ethereum: its genesis block is ${genesis}; --stand-in)`;

describe("an anvil answering Ethereum's chain id, given as Ethereum's node", () => {
  it("anvil's genesis is not Ethereum's", () => {
    expect(genesis).toMatch(/^0x[0-9a-f]{64}$/);
    expect(genesis).not.toBe(ETHEREUM_GENESIS);
  });

  it("an exchange's address file: undeclared, the row cannot say (exit 3), the chain id and both genesis blocks named; --stand-in ethereum: proven (exit 0), the node named a stand-in", async () => {
    const file = join(dir, "okx.csv");
    // OKX's EVM form: personal_sign over the 32 bytes of keccak256(message)
    const sig = cast("wallet", "sign", "--private-key", K0, cast("keccak", MESSAGE));
    writeFileSync(
      file,
      [
        "coin,snapshot height,amount",
        `ETH(ALL),${height},9000`,
        "",
        "coin,Network,Snapshot Height,address,amount,message,signature1,signature2,redeem script/ public key, eoa1, eoa2",
        `ETH,ETH,${height},${A0},9000,${MESSAGE},${sig},,`,
        "",
      ].join("\n"),
    );
    const run = (...more: string[]) =>
      runCli(["reserves", "verify", file, "--json", "--node", `ETH=${anvil.url}`, ...more]);
    const forged = await run();
    expect(forged.stderr).toBe("");
    const f = JSON.parse(forged.stdout);
    // before: "proven", exit 0
    expect(f.rows.map((r: { status: string }) => r.status)).toEqual(["cannot-say"]);
    expect(f.rows[0].reason).toContain(`: ${notEthereum()}: its balances are not read`);
    expect(f.verdict).toBe("cannot-say");
    expect(forged.exitCode).toBe(3);
    const honest = await run("--stand-in", "ethereum");
    expect(honest.stderr).toBe("");
    const h = JSON.parse(honest.stdout);
    expect(h.rows.map((r: { status: string }) => r.status)).toEqual(["proven"]);
    expect(h.nodes).toEqual([{ net: "ETH", chain: standIn(), url: anvil.url }]);
    expect(honest.exitCode).toBe(0);
    // the human verdict names it too
    const text = await runCli([
      "reserves",
      "verify",
      file,
      "--node",
      `ETH=${anvil.url}`,
      "--stand-in",
      "ETH",
    ]);
    expect(text.stdout).toContain(`nodes: ETH (${standIn()}): ${anvil.url}`);
    expect(text.exitCode).toBe(0);
  });

  it("an exchange's address file: the node that is not Ethereum is asked its block 0 once (a counting proxy), its chain still named", async () => {
    const proxy = await startFaultServer({ upstream: { url: anvil.url } });
    try {
      const run = (...more: string[]) =>
        runCli(["reserves", "verify", join(dir, "okx.csv"), "--json", "--node", `ETH=${proxy.url}`, ...more]);
      const block0 = () => proxy.hitsOf("eth_getBlockByNumber", ["0x0", false]);
      const forged = await run();
      const f = JSON.parse(forged.stdout);
      expect(f.rows[0].reason).toContain(`: ${notEthereum()}: its balances are not read`);
      expect(f.nodes).toEqual([
        { net: "ETH", chain: `chain id 1 (not Ethereum: its genesis block is ${genesis})`, url: proxy.url },
      ]);
      expect(forged.exitCode).toBe(3);
      // before: 2 (node-networks.ts asked readAccountNetwork again, not strict, to name the chain)
      expect(block0()).toBe(1);
      const honest = await run("--stand-in", "ethereum");
      expect(honest.exitCode).toBe(0);
      expect(block0()).toBe(2);
    } finally {
      await proxy.stop();
    }
  });

  it("chaingw's own EVM proof: undeclared, the chain step cannot say (exit 3); --stand-in ethereum: holds (exit 0), the chain step a stand-in", async () => {
    const proof = join(dir, "balances.json");
    const made = await runCli(["reserves", "balances", A0, "--proof", proof], {
      env: { CHAINGW_URL: anvil.url },
    });
    expect(made.exitCode, made.stderr).toBe(0);
    const run = (...more: string[]) =>
      runCli(["reserves", "verify", proof, "--json", "--node", `evm=${anvil.url}`, ...more]);
    const forged = await run();
    expect(forged.stderr).toBe("");
    const f = JSON.parse(forged.stdout);
    // before: holds, exit 0 ("chain id 1 (not Ethereum: …)" in the chain step, the balances re-read there)
    expect(f.verdict).toBe("cannot-say");
    expect(f.cannot_say).toEqual([`chain: ${notEthereum()}`]);
    expect(forged.exitCode).toBe(3);
    const honest = await run("--stand-in", "ethereum");
    expect(honest.stderr).toBe("");
    const h = JSON.parse(honest.stdout);
    expect(h.verdict).toBe("holds");
    expect(
      h.findings.filter((x: { step: string }) => x.step === "chain").map((x: { text: string }) => x.text),
    ).toEqual([standIn()]);
    expect(h.nodes).toEqual([
      { net: "evm", chain: "Ethereum or a stand-in for it (--stand-in)", url: anvil.url },
    ]);
    expect(honest.exitCode).toBe(0);
  });

  it("solvency and reserves report with --stand-in: the table's words name the stand-in (not 'not Ethereum'), and the run-again lines repeat --stand-in", async () => {
    const proof = join(dir, "balances-again.json");
    const made = await runCli(["reserves", "balances", A0, "--proof", proof], {
      env: { CHAINGW_URL: anvil.url },
    });
    expect(made.exitCode, made.stderr).toBe(0);
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\n");
    const liab = await buildCommitment(dir, "owed", ["c1,ETH,5"]);
    const page = join(dir, "solvency.html");
    const s = await runCli([
      "solvency",
      "--liabilities",
      liab,
      "--reserves",
      `ETH=${proof}`,
      "--verify",
      "--node",
      `evm=${anvil.url}`,
      "--stand-in",
      "ethereum",
      "--html",
      page,
    ]);
    expect(s.stderr).toBe("");
    // a stand-in's coins are its own, not Ethereum's ether: not counted, and said to be the declared stand-in
    expect(s.stdout).toContain(
      `ETH: ${proof}#native: NOT COUNTED: the native coin of chain id 1 (a stand-in for Ethereum: its genesis block is ${genesis}; --stand-in), not ether on Ethereum`,
    );
    expect(s.stdout).not.toContain("not Ethereum");
    expect(s.exitCode).toBe(1);
    // before: the page's command left --stand-in out, and run as printed its node could not say
    expect(readFileSync(page, "utf8")).toContain(
      `--reserves ETH=${proof} --node evm=${anvil.url} --stand-in ethereum</pre>`,
    );
    const r = await runCli([
      "reserves",
      "report",
      proof,
      "--verify",
      "--node",
      `evm=${anvil.url}`,
      "--stand-in",
      "ethereum",
    ]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain(
      `re-verify: chaingw reserves report --verify --node evm=${anvil.url} --stand-in ethereum ${proof}`,
    );
    expect(r.exitCode).toBe(0);
  });

  it("reserves balances takes --stand-in as every other command does: declared, the block line names the stand-in and the proof still names no network; undeclared, chain id 1 alone; a network chaingw knows by chain id alone, exit 2 and nothing sent", async () => {
    const proxy = await startFaultServer({ upstream: { url: anvil.url } });
    try {
      const env = { CHAINGW_URL: proxy.url };
      const plain = await runCli(["reserves", "balances", A0, "--json"], { env });
      expect(plain.stderr).toBe("");
      expect(plain.exitCode).toBe(0);
      const declaredProof = join(dir, "balances-stand-in.json");
      const declared = await runCli(
        ["reserves", "balances", A0, "--stand-in", "ethereum", "--proof", declaredProof],
        { env },
      );
      expect(declared.stderr).toBe("");
      expect(declared.stdout.split("\n")[0]).toMatch(
        new RegExp(
          `^block [0-9,]+ \\(0x[0-9a-f]{64}\\) on ${standIn().replace(/[()]/g, "\\$&")} \\[evm\\], every read pinned to this block$`,
        ),
      );
      expect(declared.exitCode).toBe(0);
      // the document is the one made undeclared: chain id 1, no network named (it is not Ethereum)
      expect(JSON.parse(plain.stdout).chain).toEqual({ group: "evm", chain_id: "1", network: null });
      const made = JSON.parse(readFileSync(declaredProof, "utf8"));
      expect(made.chain).toEqual({ group: "evm", chain_id: "1", network: null });
      const undeclared = await runCli(["reserves", "balances", A0], { env });
      expect(undeclared.stdout.split("\n")[0]).toContain(" on chain id 1 [evm], ");
      expect(undeclared.exitCode).toBe(0);
      // the declared proof verifies on the stand-in declared, as one made undeclared does
      const verified = await runCli([
        "reserves",
        "verify",
        declaredProof,
        "--json",
        "--node",
        `evm=${anvil.url}`,
        "--stand-in",
        "ETH",
      ]);
      expect(JSON.parse(verified.stdout).verdict).toBe("holds");
      expect(verified.exitCode).toBe(0);
      const before = proxy.hits;
      const refused = await runCli(["reserves", "balances", A0, "--stand-in", "celo"], { env });
      expect(refused.stderr).toBe(
        'chaingw: --stand-in "celo": chaingw knows that network by its chain id alone, so no devnet needs declaring for it; a devnet stands in for a network whose genesis block chaingw knows (ethereum, optimism, bnb-smart-chain, polygon, base, arbitrum-one, avalanche-c, holesky, sepolia, tron-mainnet); nothing was checked\n',
      );
      expect(refused.exitCode).toBe(2);
      expect(proxy.hits).toBe(before);
    } finally {
      await proxy.stop();
    }
  });

  it("--stand-in names a network whose genesis chaingw knows, else exit 2 by name, nothing sent", async () => {
    const r = await runCli([
      "reserves",
      "verify",
      join(dir, "okx.csv"),
      "--node",
      `ETH=${anvil.url}`,
      "--stand-in",
      "celo",
    ]);
    expect(r.stderr).toBe(
      'chaingw: --stand-in "celo": chaingw knows that network by its chain id alone, so no devnet needs declaring for it; a devnet stands in for a network whose genesis block chaingw knows (ethereum, optimism, bnb-smart-chain, polygon, base, arbitrum-one, avalanche-c, holesky, sepolia, tron-mainnet); nothing was checked\n',
    );
    expect(r.exitCode).toBe(2);
  });
});
