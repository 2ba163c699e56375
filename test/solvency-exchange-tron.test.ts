/**
 * `solvency` over an exchange's address file whose TRON rows name their chain by any of TRON's spellings
 * ("TRON", "TRX", "TRC20"), read with one `--node TRON=URL`: each row's snapshot time comes from the node that
 * read its balance. Before, the snapshot times were looked up by a comparison of their own (the network cell
 * against the node's name), so a "TRC20" row read by `--node TRON=` had no block time and its coins could not
 * count. The TRON fixture (test/fixtures/tron.ts) answers as java-tron does (Nile's chain id, a test network:
 * `--backing` declares it); signatures by TronWeb's signMessageV2.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TronWeb } from "tronweb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SolvencyReport } from "../src/judge/report.js";
import { fixtureBalances, startTronFixture, type TronFixture } from "./fixtures/tron.js";
import { runCli } from "./helpers/cli.js";
import { hex20, OKX_HEADER, OKX_MESSAGE, six, tronAddress, tronSign } from "./helpers/okx-tron.js";
import { trackDir } from "./helpers/procs.js";

const K0 = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const A0 = tronAddress(K0);

let dir: string;
let tron: TronFixture;
let n = 0;
const write = (name: string, text: string) => {
  const p = join(dir, `${n++}-${name}`);
  writeFileSync(p, text);
  return p;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-solvency-tron-"));
  trackDir(dir);
  tron = await startTronFixture();
});
afterAll(async () => {
  await tron?.stop();
});

/** chaingw's commitment of one customer owing `amount` TRX (`liabilities build`). */
async function owed(amount: string): Promise<string> {
  const out = join(dir, `${n++}-snap`);
  const input = write("balances.csv", `customer_id,asset,amount\nc0,TRX,${amount}\n`);
  const assets = write("assets.csv", "asset,decimals\nTRX,6\n");
  const r = await runCli(["liabilities", "build", "--input", input, "--assets", assets, "--out", out]);
  expect(r.exitCode, r.stderr).toBe(0);
  return join(out, "commitment.json");
}

describe("solvency with --node TRON=URL", () => {
  for (const network of ["TRON", "TRX", "TRC20"])
    it(`a TRX row whose network cell says ${network}: read and timed by the TRON node, SOLVENT`, async () => {
      const h = tron.head();
      const trx = fixtureBalances(hex20(A0)).trx;
      const reserves = write(
        "reserves.csv",
        `coin,snapshot height,amount\nTRX(ALL),${h},${six(trx)}\n\n${OKX_HEADER}\n` +
          `TRX,${network},${h},${A0},${six(trx)},${OKX_MESSAGE},${tronSign(K0)},,\n`,
      );
      const r = await runCli([
        "solvency",
        "--reserves",
        reserves,
        "--liabilities",
        await owed("1"),
        "--node",
        `TRON=${tron.url}`,
        "--backing",
        "TRX=tron-nile",
        "--challenge",
        OKX_MESSAGE,
        "--max-gap",
        "3650d",
        "--json",
      ]);
      expect(r.stderr).toBe("");
      const report = JSON.parse(r.stdout) as SolvencyReport;
      const coin = report.assets.find((c) => c.asset === "TRX");
      // in TRX's 6 places, every one written
      const proven = `${trx / 10n ** 6n}.${(trx % 10n ** 6n).toString().padStart(6, "0")}`;
      expect(coin).toMatchObject({ proven: { amount: proven }, status: "covered" });
      expect(coin?.snapshots).toEqual([
        expect.objectContaining({
          height: h,
          block_time: expect.stringMatching(/^2026-/),
          within_max_gap: true,
        }),
      ]);
      expect(report.verdict).toBe("solvent");
      expect(r.exitCode).toBe(0);
    });
});

describe("a declared TRC-20 on TRON: whether it reads TRX again its node cannot tell", () => {
  it("a token whose balanceOf is the holder's TRX balance, declared as WTRX beside TRX: CANNOT SAY (exit 3), never SOLVENT for both; TRX owed alone: SOLVENT", async () => {
    const wrapper = await startTronFixture({ tokenReadsTrx: true });
    try {
      const h = wrapper.head();
      const trx = six(fixtureBalances(hex20(A0)).trx);
      // the fixture's one TRC-20 (Nile USDT's address), in TRON's form
      const token = TronWeb.address.fromHex("41eca9bc828a3005b9a3b909f2cc5c2a54794de05f") as string;
      const reserves = write(
        "reserves.csv",
        `coin,snapshot height,amount\nTRX(ALL),${h},${trx}\n\n${OKX_HEADER}\n` +
          `TRX,TRON,${h},${A0},${trx},${OKX_MESSAGE},${tronSign(K0)},,\n` +
          `WTRX,TRC20,${h},${A0},${trx},${OKX_MESSAGE},${tronSign(K0)},,\n`,
      );
      const run = async (owed: string[]) => {
        const input = write(
          "balances.csv",
          ["customer_id,asset,amount", ...owed.map((a, i) => `c${i},${a},${trx}`), ""].join("\n"),
        );
        const assets = write("assets.csv", ["asset,decimals", ...owed.map((a) => `${a},6`), ""].join("\n"));
        const out = join(dir, `${n++}-snap`);
        const b = await runCli(["liabilities", "build", "--input", input, "--assets", assets, "--out", out]);
        expect(b.exitCode, b.stderr).toBe(0);
        return runCli([
          "solvency",
          "--reserves",
          reserves,
          "--liabilities",
          join(out, "commitment.json"),
          "--node",
          `TRON=${wrapper.url}`,
          "--token",
          `WTRX=${token}`,
          "--backing",
          "TRX=tron-nile",
          ...(owed.includes("WTRX") ? ["--backing", `WTRX=tron-nile:${token}`] : []),
          "--challenge",
          OKX_MESSAGE,
          "--max-gap",
          "3650d",
        ]);
      };
      const [honest, both] = await Promise.all([run(["TRX"]), run(["TRX", "WTRX"])]);
      expect(honest.stderr).toBe("");
      expect(honest.stdout.split("\n")[0]).toMatch(/^SOLVENT: /);
      expect(honest.exitCode).toBe(0);
      expect(both.stderr).toBe("");
      expect(both.stdout.split("\n")[0]).toMatch(/^CANNOT SAY: WTRX/);
      expect(both.stdout).toContain(
        "whether its balanceOf reads the native coin of TRON Nile (counted twice then) its node cannot tell: java-tron's JSON-RPC takes no state override",
      );
      expect(both.exitCode).toBe(3);
    } finally {
      await wrapper.stop();
    }
  });
});
