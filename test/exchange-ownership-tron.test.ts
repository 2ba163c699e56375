/**
 * `reserves verify` of an exchange's address file with a TRON node (`--node TRON=URL`): TRX re-read with
 * eth_getBalance, a TRC-20 with balanceOf, through java-tron's JSON-RPC, which serves state at the head only.
 * The TRON fixture (test/fixtures/tron.ts) is a real HTTP server on loopback answering as java-tron does;
 * signatures by TronWeb's signMessageV2 (OKX's TRON v2 form). At the snapshot's block (the head is the
 * snapshot) a claimed balance the node contradicts fails beside the honest rows; at a later head the
 * balance shown is the head's, never called the snapshot's, and the amount stays as claimed.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureBalances, startTronFixture, type TronFixture } from "./fixtures/tron.js";
import { runCli } from "./helpers/cli.js";
import {
  hex20,
  OKX_HEADER,
  OKX_MESSAGE,
  six,
  TRON_MAINNET,
  tronAddress,
  tronSign,
} from "./helpers/okx-tron.js";
import { trackDir } from "./helpers/procs.js";

const K0 = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const K1 = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
/** the fixture's TRC-20 (Nile USDT's address; it answers balanceOf and decimals() 6) */
const USDT = "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf";

let dir: string;
let tron: TronFixture;
let n = 0;
const A0 = tronAddress(K0);
const A1 = tronAddress(K1);

function file(height: number, rows: string[]): string {
  const p = join(dir, `${n++}.csv`);
  writeFileSync(
    p,
    `coin,snapshot height,amount\nTRX(ALL),${height},1\n\n${OKX_HEADER}\n${rows.join("\n")}\n`,
  );
  return p;
}
const row = (coin: string, height: number, address: string, amount: string, key: string) =>
  `${coin},TRON,${height},${address},${amount},${OKX_MESSAGE},${tronSign(key)},,`;

interface Report {
  verdict: string;
  rows: {
    line: number;
    status: string;
    reason: string;
    balance?: { holds: boolean | null; value: string | null; block: string | null; detail: string };
  }[];
}
const verify = async (path: string) => {
  const r = await runCli([
    "reserves",
    "verify",
    path,
    "--json",
    "--node",
    `TRON=${tron.url}`,
    "--stand-in",
    "tron",
    "--token",
    `USDT=${USDT}`,
  ]);
  return { ...r, report: JSON.parse(r.stdout) as Report };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-exchange-tron-"));
  trackDir(dir);
  tron = await startTronFixture({ chainId: TRON_MAINNET });
});
afterAll(async () => {
  await tron?.stop();
});

describe("TRON rows with --node TRON=URL", () => {
  it("the head is the snapshot's block: honest TRX and USDT-TRC20 rows hold; a TRX balance above the chain's fails, named", async () => {
    const h = tron.head();
    const trx0 = fixtureBalances(hex20(A0)).trx;
    const usdt0 = fixtureBalances(hex20(A0)).usdt;
    const trx1 = fixtureBalances(hex20(A1)).trx;
    const honest = file(h, [
      row("TRX", h, A0, six(trx0), K0),
      row("USDT-TRC20", h, A0, six(usdt0), K0),
      row("TRX", h, A1, six(trx1), K1),
    ]);
    const before = tron.hitsByMethod.eth_getBalance ?? 0;
    const ok = await verify(honest);
    expect(ok.stderr).toBe("");
    expect(ok.exitCode).toBe(0);
    expect(ok.report.verdict).toBe("holds");
    expect(ok.report.rows.map((r) => [r.status, r.balance?.holds, r.balance?.block])).toEqual([
      ["proven", true, `block ${h}`],
      ["proven", true, `block ${h}`],
      ["proven", true, `block ${h}`],
    ]);
    expect(ok.report.rows[1]?.balance?.value).toBe(six(usdt0));
    expect((tron.hitsByMethod.eth_getBalance ?? 0) - before).toBe(2);

    // one sun more than the chain holds on the second TRX row
    const forged = file(h, [row("TRX", h, A0, six(trx0), K0), row("TRX", h, A1, six(trx1 + 1n), K1)]);
    const bad = await verify(forged);
    expect(bad.exitCode).toBe(1);
    expect(bad.report.verdict).toBe("fails");
    expect(bad.report.rows[0]?.status).toBe("proven");
    expect(bad.report.rows[1]).toMatchObject({ status: "failed", balance: { holds: false } });
    expect(bad.report.rows[1]?.reason).toContain(
      `holds ${six(trx1)} at block ${h} (the head, the snapshot's block), less than the ${six(trx1 + 1n)} claimed`,
    );
  });

  it("the snapshot is older than the head: the head's balance is shown, never the snapshot's, and the amount stays as claimed", async () => {
    const h = tron.head() - 5;
    const trx1 = fixtureBalances(hex20(A1)).trx;
    const r = await verify(file(h, [row("TRX", h, A1, six(trx1 + 1n), K1)]));
    // signed, the amount claimed: not read at the snapshot, so not proven (exit 3)
    expect(r.exitCode).toBe(3);
    const b = r.report.rows[0]?.balance;
    expect(r.report.rows[0]?.status).toBe("signed");
    expect(r.report.rows[0]?.reason).toContain("signed, amount claimed");
    expect(b).toMatchObject({ holds: null, value: six(trx1), block: `head ${tron.head()}` });
    expect(b?.detail).toContain(`less than the ${six(trx1 + 1n)} claimed`);
    expect(b?.detail).toContain(
      `the snapshot is block ${h} and java-tron's JSON-RPC reads state at the head only`,
    );
    expect(b?.detail).not.toContain(`at block ${h}`);
    // the table says so too: the head's amount, not the snapshot's
    const human = await runCli([
      "reserves",
      "verify",
      file(h, [row("TRX", h, A1, six(trx1 + 1n), K1)]),
      "--node",
      `TRON=${tron.url}`,
      "--stand-in",
      "tron",
    ]);
    expect(human.stdout).toContain(`${six(trx1 + 1n)} (head: ${six(trx1)}, not the snapshot's)`);
    const at = tron.head();
    const snap = await runCli([
      "reserves",
      "verify",
      file(at, [row("TRX", at, A1, six(trx1), K1)]),
      "--node",
      `TRON=${tron.url}`,
      "--stand-in",
      "tron",
    ]);
    expect(snap.stdout).toContain(`${six(trx1)} (chain: ${six(trx1)} at block ${at})`);
  });

  it("a head that moves while the balance is read (at the snapshot's block when the read began): not called the snapshot's balance", async () => {
    const moving = await startTronFixture({ headMoves: 3, chainId: TRON_MAINNET });
    try {
      const h = moving.head();
      const trx0 = fixtureBalances(hex20(A0)).trx;
      const r = await runCli([
        "reserves",
        "verify",
        file(h, [row("TRX", h, A0, six(trx0), K0)]),
        "--json",
        "--node",
        `TRON=${moving.url}`,
        "--stand-in",
        "tron",
      ]);
      const report = JSON.parse(r.stdout) as Report;
      expect(r.exitCode).toBe(3);
      expect(report.rows[0]?.status).toBe("signed");
      expect(report.rows[0]?.balance).toMatchObject({ holds: null, value: six(trx0) });
      expect(report.rows[0]?.balance?.detail).toContain(
        `which moved from block ${h} to ${h + 1} during the read`,
      );
    } finally {
      await moving.stop();
    }
  });

  it("a TRC-20 whose contract is neither given nor well known is not read, said on the row", async () => {
    const h = tron.head();
    const r = await runCli([
      "reserves",
      "verify",
      file(h, [row("JST-TRC20", h, A0, "1", K0)]),
      "--json",
      "--node",
      `TRON=${tron.url}`,
      "--stand-in",
      "tron",
    ]);
    const report = JSON.parse(r.stdout) as Report;
    expect(r.exitCode).toBe(3);
    expect(report.rows[0]?.status).toBe("signed");
    expect(report.rows[0]?.balance?.detail).toContain(
      "JST is a TRC-20 token whose contract the file does not name (--token JST=T…)",
    );
  });

  it("--token with a TRON address whose checksum is wrong: exit 2, nothing sent", async () => {
    const h = tron.head();
    const hits = tron.hits;
    const r = await runCli([
      "reserves",
      "verify",
      file(h, [row("TRX", h, A0, "1", K0)]),
      "--node",
      `TRON=${tron.url}`,
      "--stand-in",
      "tron",
      "--token",
      "USDT=TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBg",
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("--token USDT=TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBg");
    expect(tron.hits).toBe(hits);
  });
});
