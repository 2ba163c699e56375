/**
 * `reserves verify` of an exchange's address file with a Bitcoin-family node: each row's balance scanned
 * (scantxoutset) where the node's UTXO set is at the snapshot height. Real litecoind -regtest; a file in
 * HTX's layout (`--network regtest`: the file's addresses are regtest's) whose signatures are litecoind's own
 * `signmessage` (Litecoin's magic). A balance above what the chain holds fails; a node whose tip moved past
 * the snapshot cannot say.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entryProxy } from "./fixtures/forward.js";
import { runCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { trackDir } from "./helpers/procs.js";

let ltc: LitecoinNode;
let dir: string;
let addr: string;
let sig: string;
let height: number;

const file = (name: string, amount: string, at = height) => {
  const p = join(dir, name);
  writeFileSync(
    p,
    `coin,snapshot height,balance\nLTC(ALL),-,${amount}\n\ncoin,address,snapshot height,balance,message,signature\nLTC,${addr},${at},${amount},huobi,${sig}\n`,
  );
  return p;
};
const verify = async (path: string) => {
  const r = await runCli([
    "--network",
    "regtest",
    "reserves",
    "verify",
    path,
    "--json",
    "--node",
    `LTC=${ltc.authUrl}`,
  ]);
  return { ...r, report: JSON.parse(r.stdout) };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-exchange-utxo-"));
  trackDir(dir);
  ltc = await startLitecoind({ blocks: 101 });
  addr = await ltc.rpc<string>("getnewaddress", ["", "legacy"]);
  sig = await ltc.rpc<string>("signmessage", [addr, "huobi"]);
  await ltc.rpc("sendtoaddress", [addr, 1.5]);
  await ltc.mine(1);
  height = await ltc.rpc<number>("getblockcount");
});

afterAll(async () => {
  await ltc?.stop();
});

describe("an HTX-layout file scanned on litecoind", () => {
  it("holds: litecoind's signmessage verifies and the address holds the claimed 1.5 LTC at the snapshot height", async () => {
    const { exitCode, report, stderr } = await verify(file("honest.csv", "1.5"));
    expect(stderr).toBe("");
    expect(report.rows[0]).toMatchObject({ proven: true, status: "proven", form: "LTC signmessage, P2PKH" });
    expect(report.rows[0].balance).toMatchObject({ holds: true, value: "1.50000000" });
    expect(exitCode).toBe(0);
  });

  it("fails: a balance above the chain's, naming the row", async () => {
    const { exitCode, report } = await verify(file("raised.csv", "2"));
    expect(report.rows[0]).toMatchObject({ proven: false, status: "failed" });
    expect(report.rows[0].reason).toContain(
      `holds 1.50000000 at height ${height} (scantxoutset), less than the 2.00000000 claimed`,
    );
    expect(exitCode).toBe(1);
  });

  it("a snapshot below the node's tip: the balance is not read, said so, and the amount stays as claimed", async () => {
    const { exitCode, report } = await verify(file("older.csv", "1.5", height - 1));
    expect(report.rows[0].balance.holds).toBe(null);
    expect(report.rows[0].balance.detail).toContain(
      `the node's UTXO set is at height ${height}, the snapshot's is ${height - 1}`,
    );
    // signed, the amount claimed: a balance not read at the snapshot proves nothing (exit 3)
    expect(report.rows[0].status).toBe("signed");
    expect(exitCode).toBe(3);
  });
});

describe("the node's one scantxoutset is bounded by --scan-timeout", () => {
  it("a node whose scantxoutset start never answers within the bound: the row cannot say (exit 3) after --scan-timeout 2, naming the node, and the scan is aborted (the node's one scan slot freed, as reserves scan does); through the node itself it holds", async () => {
    const calls = new Map<string, number>();
    // a loopback node that forwards everything to litecoind but scans slowly: `start` is left unanswered
    // while its scan runs (status says so) until an `abort` stops it, as Core does with a long pass
    let scanning = false;
    const mute = await entryProxy(async (e) => {
      const key = e.method === "scantxoutset" ? `scantxoutset ${e.params?.[0]}` : e.method;
      calls.set(key, (calls.get(key) ?? 0) + 1);
      if (key === "scantxoutset start") {
        scanning = true;
        return new Promise(() => {});
      }
      if (key === "scantxoutset status") return scanning ? { progress: 0 } : null;
      if (key === "scantxoutset abort") {
        const was = scanning;
        scanning = false;
        return was;
      }
      return JSON.parse((await ltc.rawCall(JSON.stringify(e))).text);
    });
    try {
      const path = file("mute.csv", "1.5");
      const r = await runCli([
        "--network",
        "regtest",
        "--scan-timeout",
        "2",
        "reserves",
        "verify",
        path,
        "--json",
        "--node",
        `LTC=${mute.url}`,
      ]);
      expect(r.exitCode, r.stdout + r.stderr).toBe(3);
      const row = JSON.parse(r.stdout).rows[0];
      expect(row.status).toBe("cannot-say");
      expect(row.balance.holds).toBe(null);
      expect(row.balance.detail).toBe(
        `the node given for LTC (${mute.url}) did not answer scantxoutset (${mute.url}: the scan did not finish within --scan-timeout (2 s); nothing was proven): its balance is not read`,
      );
      expect(calls.get("scantxoutset start")).toBe(1);
      // the abort went out, once, and the node no longer scans
      expect(calls.get("scantxoutset abort")).toBe(1);
      expect(scanning).toBe(false);
      const honest = await verify(path);
      expect(honest.exitCode).toBe(0);
    } finally {
      await mute.close();
    }
  });
});

describe("a token row on a Bitcoin-family address (the forger's relabel)", () => {
  it("USDT-LTC on the LTC row's address and signature: the signature proves the address, but the LTC it holds is not read as USDT; the LTC row still holds", async () => {
    const p = join(dir, "token.csv");
    writeFileSync(
      p,
      `coin,snapshot height,balance\nLTC(ALL),-,1.5\n\ncoin,address,snapshot height,balance,message,signature\nLTC,${addr},${height},1.5,huobi,${sig}\nUSDT-LTC,${addr},${height},1.5,huobi,${sig}\n`,
    );
    const { report } = await verify(p);
    expect(report.rows[0]).toMatchObject({ coin: "LTC", status: "proven" });
    expect(report.rows[0].balance).toMatchObject({ holds: true, value: "1.50000000" });
    // the signature proves the address; the USDT it claims is not read: signed, amount claimed
    expect(report.rows[1]).toMatchObject({ coin: "USDT-LTC", status: "signed", signed: true });
    expect(report.rows[1].balance.holds).toBe(null);
    expect(report.rows[1].balance.detail).toContain("USDT is not LTC");
  });
});
