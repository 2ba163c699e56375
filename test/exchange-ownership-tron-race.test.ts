/**
 * A TRON row's head read after its balance must be sent after the balance was answered: one sent before (another
 * row's, still in flight) may be answered by the node before the balance was read, so a block mined in between
 * would have the balance of block S+1 called the snapshot's (block S). A real loopback proxy in front of the TRON
 * fixture (test/fixtures/tron.ts) orders the node's answers: the TRX row's "after" head read is evaluated at S and
 * its answer held; then a block is mined (the head moves to S+1, and it brings a USDT deposit to the USDT row's
 * address) and the USDT balance is read; then the held head answer is released. The USDT row must not be proven
 * at block S; beside it, the same proxy with no block mined: every row proven at S (the honest control).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
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
const USDT = "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf";
const A0 = tronAddress(K0);
const A1 = tronAddress(K1);
/** what block S+1 brings to A0 (USDT base units) */
const DEPOSIT = 5_000_000n;

interface Rpc {
  id?: unknown;
  method?: string;
  params?: unknown[];
  result?: unknown;
}
interface Proxy {
  url: string;
  /** the TRX row's "after" head read was evaluated at S and its answer held across the mined block */
  held: boolean;
  /**
   * what released the held answer: the USDT balance answered (the order the test is about), or another head
   * read arriving first
   */
  releasedBy?: "usdt" | "head";
  stop(): Promise<void>;
}

/**
 * A node one block behind the fixture's last (its head S; `latest` head reads asked of the fixture at S) until it
 * mines S+1. Forwards every request; the first `latest` head read after the TRX balance was answered is
 * evaluated at once and its answer held until the USDT balance has been answered, or another head read arrives
 * (`releasedBy`: events, no timer). The USDT balance batch waits for that head read; with `mine`, S+1 is mined
 * first (the head moves to it, and A0's balanceOf answer carries the deposit).
 */
async function startProxy(tron: TronFixture, mine: boolean): Promise<Proxy> {
  let head = tron.head() - 1;
  let trxAnswered = false;
  let release: (() => void) | undefined;
  let evaluated!: () => void;
  const headEvaluated = new Promise<void>((r) => {
    evaluated = r;
  });
  const forward = async (body: string) =>
    (await fetch(tron.url, { method: "POST", headers: { "content-type": "application/json" }, body })).text();
  const proxy: Proxy = { url: "", held: false, stop: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Rpc | Rpc[];
        const calls = [parsed].flat();
        const isHead = calls.some((c) => c.method === "eth_getBlockByNumber" && c.params?.[0] === "latest");
        const isUsdt = calls.some(
          (c) =>
            c.method === "eth_call" && /^0x70a08231/.test(String((c.params?.[0] as { data?: string })?.data)),
        );
        if (isHead && release) {
          proxy.releasedBy ??= "head";
          release();
        }
        if (isUsdt) {
          await headEvaluated;
          if (mine) head++;
        }
        for (const c of calls)
          if (c.method === "eth_getBlockByNumber" && c.params?.[0] === "latest")
            c.params[0] = `0x${head.toString(16)}`;
        let text = await forward(JSON.stringify(parsed));
        if (isUsdt && mine) {
          const out = [JSON.parse(text)].flat() as Rpc[];
          for (const o of out) {
            const call = calls.find((c) => c.id === o.id);
            const data = String((call?.params?.[0] as { data?: string })?.data);
            if (data.endsWith(hex20(A0).slice(2).toLowerCase()) && typeof o.result === "string")
              o.result = `0x${(BigInt(o.result) + DEPOSIT).toString(16).padStart(64, "0")}`;
          }
          text = JSON.stringify(Array.isArray(parsed) ? out : out[0]);
        }
        if (isHead && trxAnswered && !proxy.held) {
          proxy.held = true;
          evaluated();
          await new Promise<void>((r) => {
            release = r;
          });
          release = undefined;
        }
        res.writeHead(200, { "content-type": "application/json" });
        res.end(text);
        if (calls.some((c) => c.method === "eth_getBalance")) trxAnswered = true;
        if (isUsdt && release) {
          proxy.releasedBy ??= "usdt";
          release();
        }
      })().catch(() => {
        res.writeHead(500);
        res.end();
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jsonrpc`;
  proxy.stop = () =>
    new Promise<void>((r) => {
      release?.();
      server.closeAllConnections();
      server.close(() => r());
    });
  return proxy;
}

let dir: string;
let n = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-exchange-tron-race-"));
  trackDir(dir);
});

const row = (coin: string, h: number, address: string, amount: string, key: string) =>
  `${coin},TRON,${h},${address},${amount},${OKX_MESSAGE},${tronSign(key)},,`;

interface Report {
  verdict: string;
  rows: {
    status: string;
    balance?: { holds: boolean | null; value: string | null; block: string | null; detail: string };
  }[];
}

async function race(mine: boolean) {
  const tron = await startTronFixture({ chainId: TRON_MAINNET });
  const proxy = await startProxy(tron, mine);
  try {
    const s = tron.head() - 1;
    const trx1 = fixtureBalances(hex20(A1)).trx;
    const usdt0 = fixtureBalances(hex20(A0)).usdt;
    const p = join(dir, `${n++}.csv`);
    // the USDT row claims what A0 holds once block S+1 is mined: more than it holds at the snapshot S
    writeFileSync(
      p,
      `coin,snapshot height,amount\nTRX(ALL),${s},1\n\n${OKX_HEADER}\n${[
        row("TRX", s, A1, six(trx1), K1),
        row("USDT-TRC20", s, A0, six(mine ? usdt0 + DEPOSIT : usdt0), K0),
      ].join("\n")}\n`,
    );
    const r = await runCli([
      "reserves",
      "verify",
      p,
      "--json",
      "--node",
      `TRON=${proxy.url}`,
      "--stand-in",
      "tron",
      "--token",
      `USDT=${USDT}`,
    ]);
    return {
      ...r,
      report: JSON.parse(r.stdout) as Report,
      s,
      usdt0,
      held: proxy.held,
      releasedBy: proxy.releasedBy,
    };
  } finally {
    await proxy.stop();
    await tron.stop();
  }
}

describe("a TRON row's head read after its balance", () => {
  it("honest control, no block mined: both rows proven at the snapshot's block", async () => {
    const r = await race(false);
    expect(r.held).toBe(true);
    // the held head answer went out after the USDT balance was answered: the order the race needs
    expect(r.releasedBy).toBe("usdt");
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    expect(r.report.verdict).toBe("holds");
    expect(r.report.rows.map((x) => [x.status, x.balance?.holds, x.balance?.block])).toEqual([
      ["proven", true, `block ${r.s}`],
      ["proven", true, `block ${r.s}`],
    ]);
  });

  it("a block mined between another row's head read and this row's balance: the balance of S+1 is not called proven at S", async () => {
    const r = await race(true);
    expect(r.held).toBe(true);
    // the held head answer went out after the USDT balance was answered: the order the race needs
    expect(r.releasedBy).toBe("usdt");
    expect(r.stderr).toBe("");
    // the TRX row was read before the block: proven at S; the USDT row's balance is S+1's, not the snapshot's
    expect(r.report.rows[0]).toMatchObject({
      status: "proven",
      balance: { holds: true, block: `block ${r.s}` },
    });
    expect(r.report.rows[1]?.status).toBe("signed");
    expect(r.report.rows[1]?.balance).toMatchObject({ holds: null, value: six(r.usdt0 + DEPOSIT) });
    expect(r.report.rows[1]?.balance?.detail).toContain(
      `which moved from block ${r.s} to ${r.s + 1} during the read`,
    );
    expect(r.report.rows[1]?.balance?.block ?? "").not.toBe(`block ${r.s}`);
    expect(r.exitCode).toBe(3);
    expect(r.report.verdict).not.toBe("holds");
  });
});
