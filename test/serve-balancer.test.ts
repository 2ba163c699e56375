/**
 * The balancer of `chaingw serve`, by the marks: a node killed mid-batch loses nothing and answers nothing
 * twice; a call that is not idempotent is never sent twice; a lagging upstream leaves the rotation and
 * returns; `scantxoutset status` reaches the node running the key's own scan; per-upstream caps hold.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FaultServer, startFaultServer } from "./fixtures/faults.js";
import { runCli, spawnCli } from "./helpers/cli.js";
import { postRaw } from "./helpers/http.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { HANG_GUARD_MS, running, until } from "./helpers/procs.js";
import { PROBE_TIMEOUT_S, type Served, startServe } from "./helpers/serve.js";

let a: LitecoinNode;
let b: LitecoinNode;
let pa: FaultServer;
let pb: FaultServer;
let gw: Served;
let key: string;
let key2: string;

/** b follows a: the same blocks up to `to` */
async function follow(to: number, from = 1) {
  for (let h = from; h <= to; h++)
    await b.rpc("submitblock", [await a.rpc("getblock", [await a.rpc("getblockhash", [h]), 0])]);
}

beforeAll(async () => {
  [a, b] = await Promise.all([startLitecoind({ blocks: 40 }), startLitecoind()]);
  await follow(40);
  [pa, pb] = await Promise.all([
    startFaultServer({ upstream: { url: a.url, user: a.user, password: a.password } }),
    startFaultServer({ upstream: { url: b.url, user: b.user, password: b.password } }),
  ]);
  gw = await startServe(
    {
      products: {
        ltc: { chain: "utxo", upstreams: [pa.url, pb.url], maxLag: 2 },
        capped: { chain: "utxo", upstreams: [{ url: pb.url, maxConcurrency: 2 }] },
      },
      health: { interval: 0.3, timeout: PROBE_TIMEOUT_S },
      limits: { perKey: { rate: 100, burst: 100 }, perProduct: { rate: 100, burst: 100 } },
    },
    { keys: [["ltc", "capped"], ["ltc"]] },
  );
  [key, key2] = gw.keys;
});

afterAll(async () => {
  await gw?.stop();
  await Promise.all([pa?.stop(), pb?.stop()]);
  await Promise.all([a?.stop(), b?.stop()]);
});

const post = (body: unknown, k = key, product = "ltc") =>
  postRaw(`${gw.url}/v1/${product}`, JSON.stringify(body), { headers: { "x-api-key": k } });
const readyz = async () =>
  (await (await fetch(`${gw.url}/readyz`)).json()) as {
    products: Record<
      string,
      { healthy: number; upstreams: { upstream: string; healthy: boolean; problem?: string }[] }
    >;
  };

describe("balancer", () => {
  it("a call not marked idempotent is sent once: reset on the first upstream, the second never asked", async () => {
    pa.setMethodFault("getblockstats", { kind: "reset" });
    try {
      const [ha, hb] = [pa.hitsByMethod.getblockstats ?? 0, pb.hitsByMethod.getblockstats ?? 0];
      const r = await post({ jsonrpc: "2.0", id: 1, method: "getblockstats", params: [1] });
      expect([r.status, JSON.parse(r.text).error.code]).toEqual([200, -32010]);
      expect((pa.hitsByMethod.getblockstats ?? 0) - ha).toBe(1);
      expect((pb.hitsByMethod.getblockstats ?? 0) - hb).toBe(0);
      // an idempotent read moves on after the same failure
      pa.setMethodFault("getblockheader", { kind: "reset" });
      const hash = await a.rpc<string>("getblockhash", [3]);
      await expect
        .poll(async () => (await readyz()).products.ltc.healthy, { timeout: HANG_GUARD_MS })
        .toBe(2);
      const failovers = async () =>
        Number(
          /^chaingw_serve_failovers_total\{product="ltc"\} (\d+)/m.exec(
            await (await fetch(`${gw.url}/metrics`)).text(),
          )?.[1] ?? 0,
        );
      const moved = await failovers();
      const ok = await post({ jsonrpc: "2.0", id: 2, method: "getblockheader", params: [hash] });
      expect(ok.status).toBe(200);
      expect(JSON.parse(ok.text).result.hash).toBe(hash);
      // the move is counted from the client's attempts (one failed on a, one answered on b)
      expect((await failovers()) - moved).toBe(1);
    } finally {
      pa.setMethodFault("getblockstats", null);
      pa.setMethodFault("getblockheader", null);
    }
  });

  it("scantxoutset status goes to the node running this key's scan, not the first in the rotation", async () => {
    const addr = await a.newAddress();
    const scan = (k: string, action: string, objects?: string[]) =>
      post(
        { jsonrpc: "2.0", id: 1, method: "scantxoutset", params: objects ? [action, objects] : [action] },
        k,
      );
    await expect.poll(async () => (await readyz()).products.ltc.healthy, { timeout: HANG_GUARD_MS }).toBe(2);
    // key 1's scan holds the first upstream until the test lets it go
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    pa.setMethodFault("scantxoutset", { kind: "held", until: held }, (p) => p[0] === "start");
    try {
      const before = pa.hitsByMethod.scantxoutset ?? 0;
      const first = scan(key, "start", [`addr(${addr})`]);
      await until("key 1's scan at the first upstream", () => (pa.hitsByMethod.scantxoutset ?? 0) > before);
      const [sa, sb] = [pa.hitsByMethod.scantxoutset ?? 0, pb.hitsByMethod.scantxoutset ?? 0];
      // key 2's scan goes to the node without one
      const second = await scan(key2, "start", [`addr(${addr})`]);
      expect(second.status).toBe(200);
      expect(JSON.parse(second.text).result.success).toBe(true);
      expect((pb.hitsByMethod.scantxoutset ?? 0) - sb).toBe(1);
      // key 2's status: its own node (b), though a is first in the rotation
      const st2 = await scan(key2, "status");
      expect(st2.status).toBe(200);
      expect((pb.hitsByMethod.scantxoutset ?? 0) - sb).toBe(2);
      expect((pa.hitsByMethod.scantxoutset ?? 0) - sa).toBe(0);
      // key 1's status: a
      await scan(key, "status");
      expect((pa.hitsByMethod.scantxoutset ?? 0) - sa).toBe(1);
      release();
      expect((await first).status).toBe(200);
    } finally {
      release();
      pa.setMethodFault("scantxoutset", null);
    }
  });

  it("reserves scan through serve: the CLI's own workflow, one start, pinned", async () => {
    const addr = await a.newAddress();
    await a.mine(1, addr);
    await follow(41, 41);
    const r = await runCli(["--gateway", gw.url, "--product", "ltc", "reserves", "scan", addr, "--json"], {
      env: { CHAINGW_API_KEY: key },
    });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).total_sats).toBe("5000000000");
  });

  it("an upstream lagging more than maxLag blocks leaves the rotation, and returns once caught up", async () => {
    await a.mine(4);
    await expect
      .poll(async () => (await readyz()).products.ltc.upstreams[1], { timeout: HANG_GUARD_MS })
      .toMatchObject({ healthy: false, problem: expect.stringMatching(/4 blocks behind/) });
    const before = pb.hitsByMethod.getblockchaininfo ?? 0;
    for (let i = 0; i < 5; i++)
      expect((await post({ jsonrpc: "2.0", id: i, method: "getblockchaininfo", params: [] })).status).toBe(
        200,
      );
    expect((pb.hitsByMethod.getblockchaininfo ?? 0) - before).toBe(0);
    const height = await a.rpc<number>("getblockcount");
    await follow(height, 42);
    await expect.poll(async () => (await readyz()).products.ltc.healthy, { timeout: HANG_GUARD_MS }).toBe(2);
  });

  it("per-upstream concurrency cap: 6 calls, 2 at a time, 300 ms each → three waves", async () => {
    pb.setMethodFault("getnetworkinfo", { kind: "delay", ms: 300 });
    try {
      const t0 = Date.now();
      const rs = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          post({ jsonrpc: "2.0", id: i, method: "getnetworkinfo", params: [] }, key, "capped"),
        ),
      );
      expect(rs.every((r) => r.status === 200)).toBe(true);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(850);
    } finally {
      pb.setMethodFault("getnetworkinfo", null);
    }
  });

  it("a node killed in the middle of a 10,000-line batch: every line answered exactly once, none lost", async () => {
    const height = await a.rpc<number>("getblockcount");
    const input = Array.from({ length: 10_000 }, (_, i) =>
      JSON.stringify(
        i % 2
          ? { method: "getblockhash", params: [i % (height + 1)] }
          : { method: "getblockchaininfo", params: [] },
      ),
    ).join("\n");
    const p = spawnCli(
      ["--gateway", gw.url, "--product", "ltc", "batch", "--batch-size", "50", "--concurrency", "4"],
      {
        env: { CHAINGW_API_KEY: key },
        input,
      },
    );
    let seen = 0;
    p.stdout?.on("data", (c: Buffer) => (seen += c.toString().split("\n").length - 1));
    // a stops mid-run: after 1,500 answers, while the batch still runs
    await until("1,500 answers of the batch", () => seen >= 1500, running(p));
    await a.stop();
    const r = await p;
    expect(r.exitCode).toBe(0);
    const lines = String(r.stdout)
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(10_000);
    expect(new Set(lines.map((l) => l.id)).size).toBe(10_000);
    expect(lines.every((l) => l.result !== undefined && l.error === undefined)).toBe(true);
    // the dead node is out of the rotation; reads keep answering
    await expect.poll(async () => (await readyz()).products.ltc.healthy, { timeout: HANG_GUARD_MS }).toBe(1);
    expect((await post({ jsonrpc: "2.0", id: 1, method: "getblockchaininfo", params: [] })).status).toBe(200);
  });
});
