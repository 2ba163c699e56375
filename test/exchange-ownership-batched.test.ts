/**
 * `reserves verify` of a large exchange address file with a node reads the rows' balances in batch arrays,
 * not one request a row: a real loopback proxy in front of anvil counts the HTTP requests chaingw sends for
 * 1,000 EVM rows (each its own key, signed by ethers in OKX's EVM form), and every row's verdict is still its
 * own — a claim above the chain's balance fails that row alone.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getBytes, keccak256, toUtf8Bytes, Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyHeaders, forward, type RawServer, rawServer } from "./fixtures/forward.js";
import { fixtureBalances, startTronFixture, type TronFixture } from "./fixtures/tron.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
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

const MESSAGE = "I am an OKX address";
const K0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const K1 = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const HEADER =
  "coin,Network,Snapshot Height,address,amount,message,signature1,signature2,redeem script/ public key, eoa1, eoa2";
/** OKX's EVM form: personal_sign over the 32 bytes of keccak256(message) */
const DIGEST = getBytes(keccak256(toUtf8Bytes(MESSAGE)));

let dir: string;
let anvil: AnvilNode;
let proxy: RawServer;
let tron: TronFixture;
let height: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-exchange-batched-"));
  trackDir(dir);
  // chain id 1: the file's ETH rows are Ethereum's, and --node is asked its chain
  anvil = await startAnvil(["--chain-id", "1"]);
  proxy = await rawServer(async (body, req, res) => {
    const r = await forward({ url: anvil.url }, body, copyHeaders(req.headers));
    res.writeHead(r.status, { "content-type": "application/json" });
    res.end(r.body);
  });
  height = Number(BigInt(await anvil.rpc<string>("eth_blockNumber", [])));
  tron = await startTronFixture({ chainId: TRON_MAINNET });
});

afterAll(async () => {
  await proxy?.close();
  await tron?.stop();
  await anvil?.stop();
});

describe("balances of a large file, read in batches", () => {
  it("1,000 EVM rows: at most 20 requests reach the node, and each row keeps its own verdict", async () => {
    const row = (w: Wallet, amount: string) =>
      `ETH,ETH,${height},${w.address},${amount},${MESSAGE},${w.signMessageSync(DIGEST)},,`;
    const rows = [row(new Wallet(K0), "9000"), row(new Wallet(K1), "20000")];
    for (let i = 2; i < 1000; i++) rows.push(row(new Wallet(keccak256(toUtf8Bytes(`batched ${i}`))), "0"));
    const file = join(dir, "okx.csv");
    writeFileSync(file, `${HEADER}\n${rows.join("\n")}\n`);
    const before = proxy.hits;
    const r = await runCli([
      "reserves",
      "verify",
      file,
      "--json",
      "--node",
      `ETH=${proxy.url}`,
      "--stand-in",
      "ethereum",
    ]);
    const sent = proxy.hits - before;
    expect(r.stderr).toBe("");
    const report = JSON.parse(r.stdout) as {
      rows: { status: string; reason: string; balance?: { holds: boolean | null; value: string } }[];
    };
    expect(report.rows).toHaveLength(1000);
    expect(report.rows[0]).toMatchObject({ status: "proven", balance: { holds: true } });
    expect(report.rows[1]?.status).toBe("failed");
    expect(report.rows[1]?.reason).toContain(
      `at block ${height}, less than the 20000.000000000000000000 claimed`,
    );
    expect(
      report.rows.slice(2).every((x) => x.status === "proven" && x.balance?.value === "0.000000000000000000"),
    ).toBe(true);
    expect(r.exitCode).toBe(1);
    expect(sent).toBeLessThanOrEqual(20);
    expect(sent).toBeGreaterThan(0);
  });

  it("1,000 TRON rows (TRX and USDT-TRC20, TronWeb's signatures): at most 20 requests, the head read before and after", async () => {
    const h = tron.head();
    const USDT = "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf";
    const rows: string[] = [];
    for (let i = 0; i < 500; i++) {
      const key = keccak256(toUtf8Bytes(`tron batched ${i}`)).slice(2);
      const a = tronAddress(key);
      const b = fixtureBalances(hex20(a));
      const sig = tronSign(key);
      // the first row claims one sun more than the address holds
      rows.push(`TRX,TRON,${h},${a},${six(b.trx + (i === 0 ? 1n : 0n))},${OKX_MESSAGE},${sig},,`);
      rows.push(`USDT-TRC20,TRON,${h},${a},${six(b.usdt)},${OKX_MESSAGE},${sig},,`);
    }
    const file = join(dir, "tron.csv");
    writeFileSync(file, `${OKX_HEADER}\n${rows.join("\n")}\n`);
    const before = tron.hits;
    const r = await runCli([
      "reserves",
      "verify",
      file,
      "--json",
      "--node",
      `TRON=${tron.url}`,
      "--stand-in",
      "tron",
      "--token",
      `USDT=${USDT}`,
    ]);
    const sent = tron.hits - before;
    expect(r.stderr).toBe("");
    const report = JSON.parse(r.stdout) as { rows: { status: string; reason: string }[] };
    expect(report.rows).toHaveLength(1000);
    expect(report.rows[0]?.status).toBe("failed");
    expect(report.rows[0]?.reason).toContain("claimed");
    expect(report.rows.slice(1).every((x) => x.status === "proven")).toBe(true);
    expect(r.exitCode).toBe(1);
    expect(sent).toBeLessThanOrEqual(20);
  });
});
