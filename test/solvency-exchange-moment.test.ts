/**
 * Issue 55, items 1 and 3 through an exchange's address file: the one moment across chains that chaingw's own
 * proofs are held to (test/solvency-moment.test.ts) holds for an exchange's rows too, by the one rule
 * (src/judge/moment.ts). Two real anvils (chain ids 31337 and 31338, both declared ETH with --backing), an
 * HTX-layout file whose rows `cast wallet sign` signed over "huobi":
 *  - the forgery: A0's 5 ETH proven on the first chain at block hA (time base), then moved away (block hA+1 at
 *    base+200) and proven again on the second chain at base+300: against 10 ETH owed, the same coins must not
 *    count twice — the first chain's row is read before the audit's moment and its chain made a block since: CANNOT
 *    SAY (exit 3), never SOLVENT;
 *  - the honest control in the same run: A1's 5 ETH on the first chain at its last block (hA+1) beside A0's on
 *    the second: SOLVENT (exit 0);
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SolvencyReport } from "../src/judge/report.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { trackDir } from "./helpers/procs.js";

const CAST = new URL("../node_modules/.bin/cast", import.meta.url).pathname;
const MESSAGE = "huobi";
/** anvil's dev keys 0 and 2, and their addresses */
const K = [
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
];
const A = ["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc"];
const FIVE = `0x${(5n * 10n ** 18n).toString(16)}`;

let dir: string;
let first: AnvilNode;
let second: AnvilNode;
let sig: string[];
/** the first chain's block before the move (A0 holds 5) and after it (A0 holds 0, A1 5); the second's */
let hA: number;
let hB: number;
let n = 0;

const write = (name: string, text: string) => {
  const p = join(dir, `${n++}-${name}`);
  writeFileSync(p, text);
  return p;
};

/** An HTX-layout file: each row `[coin, address index, height]` holding 5 ETH, signed by that address's key. */
function file(rows: [string, number, number][]): string {
  const sums = new Map<string, { height: number; n: number }>();
  for (const [coin, , h] of rows) sums.set(coin, { height: h, n: (sums.get(coin)?.n ?? 0) + 5 });
  return write(
    "reserves.csv",
    [
      "coin,snapshot height,balance",
      ...[...sums].map(([coin, s]) => `${coin},${s.height},${s.n}`),
      "",
      "coin,address,snapshot height,balance,message,signature",
      ...rows.map(([coin, a, h]) => `${coin},${A[a]},${h},5,${MESSAGE},${sig[a]}`),
      "",
    ].join("\n"),
  );
}

async function commitment(eth: string): Promise<string> {
  const input = write("balances.csv", `customer_id,asset,amount\nc0,ETH,${eth}\n`);
  const assets = write("assets.csv", "asset,decimals\nETH,18\n");
  const out = join(dir, `${n++}-snap`);
  const r = await runCli(["liabilities", "build", "--input", input, "--assets", assets, "--out", out]);
  expect(r.exitCode, r.stderr).toBe(0);
  return join(out, "commitment.json");
}

async function solvency(reserves: string, liabilities: string, ...more: string[]) {
  const r = await runCli([
    "solvency",
    "--reserves",
    reserves,
    "--liabilities",
    liabilities,
    "--node",
    `ETH=${first.url}`,
    "--node",
    `ARBITRUM=${second.url}`,
    "--backing",
    "ETH=evm:31337",
    "--backing",
    "ETH=evm:31338",
    "--challenge",
    MESSAGE,
    ...more,
  ]);
  const report = (more.includes("--json") ? JSON.parse(r.stdout) : undefined) as SolvencyReport;
  return { ...r, report };
}

async function mineAt(node: AnvilNode, time: number): Promise<number> {
  await node.rpc("anvil_setNextBlockTimestamp", [time]);
  await node.rpc("evm_mine", []);
  return Number(await node.rpc<string>("eth_blockNumber"));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-solvency-exchange-moment-"));
  trackDir(dir);
  [first, second] = await Promise.all([
    startAnvil(["--chain-id", "31337"]),
    startAnvil(["--chain-id", "31338"]),
  ]);
  // the story's clock, ahead of both anvils' genesis and well within --max-gap of the liabilities' count
  const base = Math.floor(Date.now() / 1000) + 600;
  await first.rpc("anvil_setBalance", [A[0], FIVE]);
  await first.rpc("anvil_setBalance", [A[1], FIVE]);
  hA = await mineAt(first, base);
  // A0's coins leave the first chain (to a bridge) in its block of base+200 (anvil_setBalance changes the
  // latest block's state: that block mined first), and arrive on the second in its block of base+300
  await mineAt(first, base + 200);
  await first.rpc("anvil_setBalance", [A[0], "0x0"]);
  await second.rpc("anvil_setBalance", [A[0], FIVE]);
  hB = await mineAt(second, base + 300);
  sig = K.map((k) =>
    execFileSync(CAST, ["wallet", "sign", "--private-key", k, MESSAGE], { encoding: "utf8" }).trim(),
  );
});

afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop()]);
});

describe("an exchange's rows: one moment across chains", () => {
  it("the same 5 ETH proven on one chain, moved, and proven again on another later: CANNOT SAY (exit 3), never SOLVENT; the honest file read at the first chain's last block: SOLVENT (exit 0)", async () => {
    const liab = await commitment("10");
    const forged = file([
      ["ETH", 0, hA],
      ["ETH-ARBITRUM", 0, hB],
    ]);
    const honest = file([
      ["ETH", 1, hA + 1],
      ["ETH-ARBITRUM", 0, hB],
    ]);
    const [f, fh, h, hh] = await Promise.all([
      solvency(forged, liab, "--json"),
      solvency(forged, liab),
      solvency(honest, liab, "--json"),
      solvency(honest, liab),
    ]);
    expect(f.stderr).toBe("");
    expect(f.exitCode).toBe(3);
    expect(f.report.verdict).toBe("cannot-say");
    const eth = f.report.assets[0];
    expect(eth).toMatchObject({
      asset: "ETH",
      proven: { amount: "5.000000000000000000" },
      claimed: { amount: "10.000000000000000000" },
      status: "cannot-say",
    });
    expect([...(eth?.rows ?? [])].find((r) => r.coin === "ETH")).toMatchObject({ proven: false });
    expect([...(eth?.rows ?? [])].find((r) => r.coin === "ETH")?.not_for_this_audit).toMatch(
      /is before the audit's moment, .* \(evm:31338's snapshot\): coins moved from it to another chain since \(as the same asset or swapped into another owed\) would count twice/,
    );
    expect(fh.exitCode).toBe(3);
    expect(fh.stdout).toMatch(
      /^CANNOT SAY: ETH: whether its reserves proven on chain are for this audit cannot be said; proven 5\.000000000000000000 of 10\.000000000000000000 ETH; not proven for this audit: line \d+: its block/,
    );

    expect(h.stderr).toBe("");
    expect(h.exitCode).toBe(0);
    expect(h.report.assets[0]).toMatchObject({
      proven: { amount: "10.000000000000000000" },
      status: "covered",
    });
    expect(hh.exitCode).toBe(0);
    expect(hh.stdout).toMatch(/^SOLVENT: every coin owed \(1\) covered by proven reserves/);
  });
});
/** chaingw's commitment owing `owed` (asset → whole coins, 18 decimals), one customer per asset */
async function owing(owed: Record<string, string>): Promise<string> {
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
  const out = join(dir, `${n++}-snap`);
  const r = await runCli(["liabilities", "build", "--input", input, "--assets", assets, "--out", out]);
  expect(r.exitCode, r.stderr).toBe(0);
  return join(out, "commitment.json");
}

describe("an exchange's rows: one moment across chains for every asset owed, not one per asset", () => {
  it("5 ETH proven on one chain, moved, and proven again later on another as its native coin owed as BNB: CANNOT SAY (exit 3), never SOLVENT for 5 of each; the honest file read at the first chain's last block: SOLVENT", async () => {
    const liab = await owing({ ETH: "5", BNB: "5" });
    const run = (reserves: string) =>
      runCli([
        "solvency",
        "--reserves",
        reserves,
        "--liabilities",
        liab,
        "--node",
        `ETH=${first.url}`,
        "--node",
        `BSC=${second.url}`,
        "--backing",
        "ETH=evm:31337",
        "--backing",
        "BNB=evm:31338",
        "--challenge",
        MESSAGE,
      ]);
    const forged = file([
      ["ETH", 0, hA],
      ["BNB-BSC", 0, hB],
    ]);
    const honest = file([
      ["ETH", 1, hA + 1],
      ["BNB-BSC", 0, hB],
    ]);
    const [f, h] = await Promise.all([run(forged), run(honest)]);
    expect(h.stderr).toBe("");
    expect(h.stdout.split("\n")[0]).toMatch(/^SOLVENT: every coin owed \(2\) covered by proven reserves/);
    expect(h.exitCode).toBe(0);
    expect(f.stderr).toBe("");
    expect(f.stdout.split("\n")[0]).toMatch(
      /^CANNOT SAY: ETH: whether its reserves proven on chain are for this audit cannot be said; proven 0\.000000000000000000 of 5\.000000000000000000 ETH/,
    );
    expect(f.stdout).toMatch(/its block \(.*\) is before the audit's moment, .* \(evm:31338's snapshot\)/);
    expect(f.exitCode).toBe(3);
  });
});
