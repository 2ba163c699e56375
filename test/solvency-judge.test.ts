/**
 * Issue 55, item 1: one judge for chaingw's own proofs and an exchange's rows. On a real anvil answering
 * Ethereum's chain id (1) — not Ethereum (its genesis is its own), so its ether is declared `--backing ETH=evm:1` —
 * an HTX-layout address file whose rows `cast wallet sign` signed over HTX's "huobi":
 *  - a "USDT" the exchange minted itself, read with `--token USDT=<its contract>`: not Tether's USDT, not
 *    counted (as chaingw's own path says) — beside the same token declared with --backing, counted and named
 *    as trusted;
 *  - a file that does not hold (a row carrying another key's signature; a summary line off by 990,500 ETH):
 *    NOT SOLVENT, as `reserves verify` of the same file says "does not hold" — beside the honest file, SOLVENT;
 *  - amounts at full precision: a row proven at 6666.666645666666645667 ETH against an exchange's root of whole
 *    coins is printed and summed exactly (never cut to the root's 0 places).
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
import { sumRootProof } from "./helpers/sum-root.js";
import { deployToken, mint } from "./helpers/tokens.js";

const CAST = new URL("../node_modules/.bin/cast", import.meta.url).pathname;
const MESSAGE = "huobi";
/** anvil's dev keys 0, 2 and 3 and their addresses */
const K = [
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
];
const A = [
  "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
  "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc",
  "0x90f79bf6eb2c4f870365e785982e1f101e93b906",
];
const ETHER = 10n ** 18n;
/** A1's balance: 6666.666645666666645667 ETH; A2's 0.5 */
const ODD = 6666n * ETHER + 666645666666645667n;

let dir: string;
let anvil: AnvilNode;
let usdt: string;
/** anvil's own block 0: not Ethereum's */
let genesis: string;
let height: number;
let sig: string[];
let n = 0;

const write = (name: string, text: string) => {
  const p = join(dir, `${n++}-${name}`);
  writeFileSync(p, text);
  return p;
};
const ether = (wei: bigint) =>
  `${wei / ETHER}.${(wei % ETHER).toString().padStart(18, "0")}`.replace(/\.?0+$/, "");
const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, "Z");

/** An HTX-layout file: each row `[coin, address index, amount, signing key index]`, its summary per coin. */
function file(rows: [string, number, string, number][], summary?: Record<string, string>): string {
  const sums = new Map<string, bigint>();
  for (const [coin, , amount] of rows) {
    const [w, f = ""] = amount.split(".");
    sums.set(coin, (sums.get(coin) ?? 0n) + BigInt(w as string) * ETHER + BigInt(f.padEnd(18, "0")));
  }
  return write(
    "reserves.csv",
    [
      "coin,snapshot height,balance",
      ...[...sums].map(([coin, v]) => `${coin},${height},${summary?.[coin] ?? ether(v)}`),
      "",
      "coin,address,snapshot height,balance,message,signature",
      ...rows.map(([coin, a, amount, k]) => `${coin},${A[a]},${height},${amount},${MESSAGE},${sig[k]}`),
      "",
    ].join("\n"),
  );
}

async function commitment(owed: Record<string, string>): Promise<string> {
  const decimals: Record<string, number> = { ETH: 18, USDT: 6 };
  const input = write(
    "balances.csv",
    ["customer_id,asset,amount", ...Object.entries(owed).map(([a, v], i) => `c${i},${a},${v}`), ""].join(
      "\n",
    ),
  );
  const assets = write(
    "assets.csv",
    ["asset,decimals", ...Object.keys(owed).map((a) => `${a},${decimals[a]}`), ""].join("\n"),
  );
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
    `ETH=${anvil.url}`,
    "--stand-in",
    "ethereum",
    "--challenge",
    MESSAGE,
    "--json",
    // anvil answers Ethereum's chain id, not its genesis: its ether is declared by chain id
    "--backing",
    "ETH=evm:1",
    ...more,
  ]);
  const report = (r.exitCode === 2 ? undefined : JSON.parse(r.stdout)) as SolvencyReport;
  return { ...r, report, coin: (a: string) => report.assets.find((c) => c.asset === a) };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-solvency-judge-"));
  trackDir(dir);
  anvil = await startAnvil(["--chain-id", "1"]);
  usdt = await deployToken(anvil.rpc, "Token", { symbol: "USDT", decimals: 6 });
  await mint(anvil.rpc, usdt, [A[0] as string], [7_000_000n]);
  await anvil.rpc("anvil_setBalance", [A[0], `0x${(3n * ETHER).toString(16)}`]);
  await anvil.rpc("anvil_setBalance", [A[1], `0x${ODD.toString(16)}`]);
  await anvil.rpc("anvil_setBalance", [A[2], `0x${(ETHER / 2n).toString(16)}`]);
  await anvil.rpc("evm_mine", []);
  height = Number(await anvil.rpc<string>("eth_blockNumber"));
  genesis = (await anvil.rpc<{ hash: string }>("eth_getBlockByNumber", ["0x0", false])).hash;
  sig = K.map((k) =>
    execFileSync(CAST, ["wallet", "sign", "--private-key", k, MESSAGE], { encoding: "utf8" }).trim(),
  );
});

afterAll(async () => {
  await anvil?.stop();
});

describe("one identity rule: a well-known asset only at its known contract", () => {
  it("a self-minted USDT on Ethereum's chain id read with --token: NOT COUNTED, NOT SOLVENT; declared with --backing: counted, SOLVENT, named as trusted", async () => {
    const reserves = file([
      ["ETH", 0, "3", 0],
      ["USDT-ETH", 0, "7", 0],
    ]);
    const liab = await commitment({ ETH: "2", USDT: "5" });
    const forged = await solvency(reserves, liab, "--token", `USDT=${usdt}`);
    expect(forged.stderr).toBe("");
    expect(forged.report.verdict).toBe("not-solvent");
    expect(forged.exitCode).toBe(1);
    expect(forged.coin("ETH")).toMatchObject({
      proven: { amount: "3.000000000000000000" },
      status: "covered",
    });
    expect(forged.coin("USDT")).toMatchObject({
      proven: { amount: "0.000000" },
      claimed: { amount: "0.000000" },
      status: "not-covered",
    });
    expect(forged.coin("USDT")?.not_counted).toEqual([
      expect.objectContaining({
        status: "proven",
        why: `USDT-ETH is the token at ${usdt} on chain id 1 (a stand-in for Ethereum: its genesis block is ${genesis}; --stand-in), not Tether's USDT on Ethereum or Tether's USDT on TRON (the well-known USDT; another network or contract only with --backing USDT=NETWORK[:TOKEN]): not counted as USDT`,
      }),
    ]);
    expect(forged.report.trusted).toEqual([]);
    // the auditor declares the contract: counted, and every verdict names it as trusted
    const declared = await solvency(
      reserves,
      liab,
      "--token",
      `USDT=${usdt}`,
      "--backing",
      `USDT=evm:1:${usdt}`,
    );
    expect(declared.report.verdict).toBe("solvent");
    expect(declared.coin("USDT")).toMatchObject({ proven: { amount: "7.000000" }, status: "covered" });
    expect(declared.report.trusted).toEqual([`the token at ${usdt} on chain id 1 as USDT`]);
    expect(declared.report.summary).toContain(
      `trusted as declared (--backing), not checked to be what they are declared: the token at ${usdt} on chain id 1 as USDT`,
    );
  });
});

describe("a failing row makes its file not hold, and solvency NOT SOLVENT", () => {
  it("a row carrying another key's signature (A2's row signed by A0's key): reserves verify says does not hold, solvency NOT SOLVENT; the honest file SOLVENT", async () => {
    const liab = await commitment({ ETH: "2" });
    const honest = file([["ETH", 0, "3", 0]]);
    const ok = await solvency(honest, liab);
    expect(ok.report.verdict).toBe("solvent");
    expect(ok.exitCode).toBe(0);
    const forged = file([
      ["ETH", 0, "3", 0],
      ["ETH", 2, "0.5", 0],
    ]);
    const verify = await runCli([
      "reserves",
      "verify",
      forged,
      "--node",
      `ETH=${anvil.url}`,
      "--stand-in",
      "ethereum",
    ]);
    expect(verify.exitCode).toBe(1);
    expect(verify.stdout).toContain("does not hold");
    const r = await solvency(forged, liab);
    expect(r.report.verdict).toBe("not-solvent");
    expect(r.exitCode).toBe(1);
    expect(r.report.reserves_file?.verdict).toBe("fails");
    expect(r.report.summary).toMatch(/^the reserves file does not hold: /);
    // the coin itself is covered by the good row: the file, not the coin, decides
    expect(r.coin("ETH")?.status).toBe("covered");
  });

  it("a summary line off by 990,500 ETH: the file does not hold, NOT SOLVENT; the true summary SOLVENT", async () => {
    const liab = await commitment({ ETH: "2" });
    const off = file([["ETH", 0, "3", 0]], { ETH: "990503" });
    const r = await solvency(off, liab);
    expect(r.report.verdict).toBe("not-solvent");
    expect(r.exitCode).toBe(1);
    expect(r.report.reserves_file?.disagreements.length).toBeGreaterThan(0);
    expect(r.report.summary).toMatch(/^the reserves file does not hold: .*summary line/);
    const human = await runCli([
      "solvency",
      "--reserves",
      off,
      "--liabilities",
      liab,
      "--node",
      `ETH=${anvil.url}`,
      "--stand-in",
      "ethereum",
      "--challenge",
      MESSAGE,
      "--backing",
      "ETH=evm:1",
    ]);
    expect(human.stdout).toMatch(/^NOT SOLVENT: the reserves file does not hold/);
    expect((await solvency(file([["ETH", 0, "3", 0]], { ETH: "3" }), liab)).report.verdict).toBe("solvent");
  });
});

describe("amounts exactly, never cut to the liabilities' places", () => {
  it("a row of 6666.666645666666645667 ETH against a root of whole coins: printed and summed exactly; 6667 owed covered by it and 0.5 more, 6668 short by the exact remainder", async () => {
    const reserves = file([
      ["ETH", 1, ether(ODD), 1],
      ["ETH", 2, "0.5", 2],
    ]);
    const root = (total: string) =>
      sumRootProof({ ETH: "6000" }, { ETH: total }, (t) => write("merkle_proof_file.json", t));
    const covered = root("667");
    const r = await solvency(reserves, covered.file, "--root", covered.root, "--liabilities-date", now());
    expect(r.stderr).toBe("");
    expect(r.report.verdict).toBe("solvent");
    expect(r.coin("ETH")).toMatchObject({
      decimals: 18,
      liabilities: { amount: "6667.000000000000000000" },
      proven: { amount: "6667.166645666666645667" },
      status: "covered",
    });
    expect(r.coin("ETH")?.rows?.map((x) => x.amount)).toEqual([
      "6666.666645666666645667",
      "0.500000000000000000",
    ]);
    const short = root("668");
    const s = await solvency(reserves, short.file, "--root", short.root, "--liabilities-date", now());
    expect(s.report.verdict).toBe("not-solvent");
    expect(s.coin("ETH")).toMatchObject({ shortfall: "0.833354333333354333", status: "not-covered" });
  });
});
