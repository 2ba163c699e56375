/**
 * The cache knows its chain (issue 48): entries are keyed by the product's chain (its upstreams' genesis
 * hash, read at every health check beside the tip, and at once after a failed exchange), so a devnet reset
 * on the same port, or a node swapped behind the same address, drops them; an upstream on another chain
 * than its product's is taken out of the rotation and named.
 */
import { afterAll, describe, expect, it } from "vitest";
import { type FaultServer, startFaultServer } from "./fixtures/faults.js";
import { copyHeaders, forward, rawServer, sendJson } from "./fixtures/forward.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { postRaw } from "./helpers/http.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { until } from "./helpers/procs.js";
import { type RedisServer, startRedis } from "./helpers/redis.js";
import { PROBE_TIMEOUT_S, type Served, startServe } from "./helpers/serve.js";

const nodes: AnvilNode[] = [];
const gws: Served[] = [];
const proxies: FaultServer[] = [];
const redises: RedisServer[] = [];
const ltcs: LitecoinNode[] = [];
afterAll(async () => {
  for (const n of ltcs) await n.stop();
  for (const g of gws) await g.stop();
  for (const p of proxies) await p.stop();
  for (const n of nodes) await n.stop();
  for (const r of redises) await r.stop();
});

const FROM = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const body = (method: string, params: unknown[]) => JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
/** A call through a gateway with its first key: the answer's result. */
const resultOf = async (g: Served, product: string, method: string, params: unknown[]) =>
  JSON.parse(
    (
      await postRaw(`${g.url}/v1/${product}`, body(method, params), {
        headers: { "x-api-key": g.keys[0] as string },
      })
    ).text,
  ).result;

/** A fresh anvil with tx1 in block 1 and tx2 in block 7, its tip at 17. */
async function anvilWithTwoTxs() {
  const anvil = await startAnvil();
  nodes.push(anvil);
  const tx1 = await anvil.rpc<string>("eth_sendTransaction", [{ from: FROM, to: FROM, value: "0x1" }]);
  await anvil.rpc("anvil_mine", ["0x5"]);
  const tx2 = await anvil.rpc<string>("eth_sendTransaction", [{ from: FROM, to: FROM, value: "0x2" }]);
  await anvil.rpc("anvil_mine", ["0xa"]);
  return { anvil, tx1, tx2 };
}

/**
 * A counting proxy over `anvil`, a Redis when `state` says so, and a gateway on them (safeDepth 2, checks
 * every `interval` s); its config and args start another replica like it.
 */
async function gatewayOver(
  anvil: AnvilNode,
  state: "memory" | "redis",
  o: { interval: number; stateTimeout?: number },
) {
  const proxy = await startFaultServer({ upstream: { url: anvil.url } });
  proxies.push(proxy);
  const redis = state === "redis" ? await startRedis() : undefined;
  if (redis) redises.push(redis);
  const config = {
    products: { eth: { chain: "evm", upstreams: [proxy.url] } },
    cache: { safeDepth: 2 },
    health: { interval: o.interval, timeout: PROBE_TIMEOUT_S },
    ...(o.stateTimeout ? { stateTimeout: o.stateTimeout } : {}),
  };
  const args = redis ? ["--state", redis.url] : [];
  const gw = await startServe(config, { keys: [["eth"]], args });
  gws.push(gw);
  return { proxy, redis, config, args, gw };
}

describe("a cache bound to the chain", () => {
  it("a receipt cached, anvil restarted fresh on the same port: the receipt is not served again", async () => {
    let anvil = await startAnvil();
    nodes.push(anvil);
    const tx = await anvil.rpc<string>("eth_sendTransaction", [{ from: FROM, to: FROM, value: "0x1" }]);
    await anvil.rpc("anvil_mine", ["0xa"]);
    const gw = await startServe(
      {
        products: { eth: { chain: "evm", upstreams: [anvil.url] } },
        health: { interval: 0.2, timeout: PROBE_TIMEOUT_S },
      },
      { keys: [["eth"]] },
    );
    gws.push(gw);
    const ask = () =>
      postRaw(`${gw.url}/v1/eth`, body("eth_getTransactionReceipt", [tx]), {
        headers: { "x-api-key": gw.keys[0] as string },
      });
    const first = JSON.parse((await ask()).text);
    expect(first.result.transactionHash).toBe(tx);
    await ask();
    const cached = () => gw.log().some((l) => JSON.parse(l).outcome === "cached");
    const receipts = () =>
      gw.log().filter((l) => JSON.parse(l).method === "eth_getTransactionReceipt").length;
    await until("the second answer's access-log line", () => receipts() >= 2);
    expect(cached()).toBe(true);

    const port = anvil.port;
    await anvil.stop();
    // a fresh anvil's genesis block is stamped with the second it started: two started within one second
    // are the same chain by their genesis (seen in CI). The reset gets a genesis of its own, as a devnet
    // reset does in any later second
    anvil = await startAnvil(["--timestamp", "1000"], { port });
    nodes.push(anvil);
    const direct = JSON.parse((await postRaw(anvil.url, body("eth_getTransactionReceipt", [tx]))).text);
    expect(direct.result).toBe(null);
    // the next health checks read the chain again (the old one's connections failed): the cache goes
    await until("the note that the chain changed", () => gw.notes().includes("now report another chain"));
    expect(gw.notes()).toMatch(
      /product eth: its upstreams now report another chain \(genesis 0x[0-9a-f]{64}, was 0x[0-9a-f]{64}\): its cache dropped/,
    );
    // the restarted node back in the rotation (its failed checks took it out; a loaded host may see the
    // new chain's note before the check that brings it back)
    await until("the node back in the rotation", async () => {
      const ready = await (await fetch(`${gw.url}/readyz`)).json();
      return ready.products.eth.healthy === 1;
    });
    const after = JSON.parse((await ask()).text);
    expect(after).toEqual(direct);
  });

  it("a node swapped between two checks (no connection fails, the tip goes up): after the next check, the old chain's cached answer is gone", async () => {
    const old = await startAnvil();
    // another chain (its genesis stamped at 1000) whose tip is above the old one's: only its chain tells
    const fresh = await startAnvil(["--timestamp", "1000"]);
    nodes.push(old, fresh);
    const tx = await old.rpc<string>("eth_sendTransaction", [{ from: FROM, to: FROM, value: "0x1" }]);
    await old.rpc("anvil_mine", ["0xa"]);
    await fresh.rpc("anvil_mine", ["0x14"]);
    const proxy = await startFaultServer({ upstream: { url: old.url } });
    proxies.push(proxy);
    const gw = await startServe(
      {
        products: { eth: { chain: "evm", upstreams: [proxy.url] } },
        health: { interval: 0.2, timeout: PROBE_TIMEOUT_S },
      },
      { keys: [["eth"]] },
    );
    gws.push(gw);
    const ask = async () =>
      JSON.parse(
        (
          await postRaw(`${gw.url}/v1/eth`, body("eth_getTransactionReceipt", [tx]), {
            headers: { "x-api-key": gw.keys[0] as string },
          })
        ).text,
      );
    expect((await ask()).result.transactionHash).toBe(tx);
    const receipts = () => proxy.hitsByMethod.eth_getTransactionReceipt ?? 0;
    const once = receipts();
    expect((await ask()).result.transactionHash).toBe(tx);
    expect(receipts()).toBe(once); // served from the cache

    proxy.setUpstream({ url: fresh.url });
    // two checks begun after the swap: the first read the new chain, and was over before the second began
    // (one check at a time)
    const tips = () => proxy.hitsByMethod.eth_blockNumber ?? 0;
    const swapped = tips();
    await until("two checks after the swap", () => tips() >= swapped + 2);
    expect(tips()).toBeGreaterThanOrEqual(swapped + 2);
    const direct = JSON.parse((await postRaw(fresh.url, body("eth_getTransactionReceipt", [tx]))).text);
    expect(direct.result).toBe(null);
    const after = await ask();
    expect(after).toEqual(direct);
    expect(receipts()).toBe(once + 1); // asked of the node again, not the cache
    await until("the note", () => gw.notes().includes("now report another chain"));
    expect(gw.notes()).toMatch(/product eth: its upstreams now report another chain .*: its cache dropped/);
    // every check asked the genesis beside the tip
    expect(proxy.hitsOf("eth_getBlockByNumber", ["0x0", false])).toBe(tips());
  });

  it("an upstream on another chain than its product's leaves the rotation, named", async () => {
    const [a, b] = await Promise.all([startAnvil(), startAnvil(["--timestamp", "1000"])]);
    nodes.push(a, b);
    const gw = await startServe(
      {
        products: { eth: { chain: "evm", upstreams: [a.url, b.url] } },
        health: { interval: 0.2, timeout: PROBE_TIMEOUT_S },
      },
      { keys: [["eth"]] },
    );
    gws.push(gw);
    const readyz = async () => await (await fetch(`${gw.url}/readyz`)).json();
    // b's chain is read by the checks (again at the next one if b did not answer it yet)
    await until("b's chain read", async () => (await readyz()).products.eth.healthy === 1);
    const ready = await readyz();
    expect(ready.products.eth.healthy).toBe(1);
    const second = ready.products.eth.upstreams[1];
    expect(second.healthy).toBe(false);
    expect(second.problem).toMatch(
      /^on another chain: genesis 0x[0-9a-f]{64}, product eth's is 0x[0-9a-f]{64}$/,
    );
    // its note, as the process's stderr brings it
    await until("the note", () => gw.notes().includes("out of the rotation: on another chain"));
    expect(gw.notes()).toContain("out of the rotation: on another chain");
  });
});

describe("a reorg deeper than the safe depth drops the cached answers above its fork, and only those", () => {
  it.each(["memory", "redis"] as const)(
    "state in %s: anvil_reorg (the tip stays where it was): answers tied to blocks below the fork are still served from the cache, those above are asked again",
    async (state) => {
      const { anvil, tx1, tx2 } = await anvilWithTwoTxs();
      const hashAt = async (n: number) =>
        (await anvil.rpc<{ hash: string }>("eth_getBlockByNumber", [`0x${n.toString(16)}`, false])).hash;
      const [b3, b8] = [await hashAt(3), await hashAt(8)];
      expect((await anvil.rpc<{ blockNumber: string }>("eth_getTransactionReceipt", [tx2])).blockNumber).toBe(
        "0x7",
      );
      expect(await anvil.rpc("eth_blockNumber")).toBe("0x11");
      const { proxy, redis, config, args, gw } = await gatewayOver(anvil, state, { interval: 0.2 });
      const ask = (g: Served, method: string, params: unknown[]) => resultOf(g, "eth", method, params);
      // below the fork (block 5): tx1's receipt (block 1), block 3 by hash; above it: tx2's receipt (block
      // 7), block 8 by hash
      const below: [string, unknown[]][] = [
        ["eth_getTransactionReceipt", [tx1]],
        ["eth_getBlockByHash", [b3, false]],
      ];
      const above: [string, unknown[]][] = [
        ["eth_getTransactionReceipt", [tx2]],
        ["eth_getBlockByHash", [b8, false]],
      ];
      for (const [m, p] of [...below, ...above]) {
        const first = await ask(gw, m, p);
        expect(first).not.toBe(null);
        const asked = proxy.hitsOf(m, p);
        expect(await ask(gw, m, p)).toEqual(first);
        expect(proxy.hitsOf(m, p), `${m} cached`).toBe(asked);
      }
      const counts = () => [...below, ...above].map(([m, p]) => proxy.hitsOf(m, p));
      const before = counts();

      // blocks 6..17 replaced by others: the tip is 17 again, no tip went back
      await anvil.rpc("anvil_reorg", [12, []]);
      expect(await anvil.rpc("eth_blockNumber")).toBe("0x11");
      expect(await hashAt(8)).not.toBe(b8);
      // two checks begun after the reorg: the first saw it, and was over before the second began
      const tips = () => proxy.hitsByMethod.eth_blockNumber ?? 0;
      const t0 = tips();
      await until("two checks after the reorg", () => tips() >= t0 + 2);
      await until("the note of the reorg", () => gw.notes().includes("a reorg;"));
      expect(gw.notes()).toMatch(
        /upstream \S+ of eth: block 16 is now 0x[0-9a-f]{64} \(was 0x[0-9a-f]{64}\): a reorg; 2 cached answers above block 6, below the lowest the cache and the node disagree on, dropped/,
      );
      expect(gw.notes()).not.toContain("now report another chain");
      // followed once: the checks after it read the new chain's anchor and find nothing more to drop
      const t1 = tips();
      await until("two more checks", () => tips() >= t1 + 2);
      expect(gw.notes().match(/: a reorg;/g)).toHaveLength(1);

      for (const [m, p] of [...below, ...above])
        expect(await ask(gw, m, p), m).toEqual(await anvil.rpc(m, p));
      // below the fork: from the cache (the node not asked); above it: asked again (null now: tx2 and block
      // 8 are gone from the chain)
      expect(counts()).toEqual([before[0], before[1], (before[2] as number) + 1, (before[3] as number) + 1]);
      expect(await ask(gw, "eth_getTransactionReceipt", [tx2])).toBe(null);

      if (redis) {
        // a second replica on the same Redis, its own memory empty: what it finds in Redis is what is left
        const other = await startServe(config, { keys: [["eth"]], args, dir: gw.dir });
        gws.push(other);
        const mid = counts();
        for (const [m, p] of below) expect(await ask(other, m, p), m).toEqual(await anvil.rpc(m, p));
        for (const [m, p] of above) expect(await ask(other, m, p), m).toBe(null);
        expect(counts()).toEqual([mid[0], mid[1], (mid[2] as number) + 1, (mid[3] as number) + 1]);
        // its access log (written as each answer goes): the two below the fork were cache hits
        await until("the replica's four access-log lines", () => other.log().length >= 4);
        expect(other.log().map((l) => JSON.parse(l).outcome)).toEqual(["cached", "cached", "ok", "ok"]);
      }
    },
  );

  it("an answer of the new chain cached between the reorg and the check that sees it (a deep receipt): the old chain's answers below it still go, never served stale", async () => {
    const anvil = await startAnvil();
    nodes.push(anvil);
    await anvil.rpc("eth_sendTransaction", [{ from: FROM, to: FROM, value: "0x1" }]);
    await anvil.rpc("anvil_mine", ["0x5"]);
    const tx2 = await anvil.rpc<string>("eth_sendTransaction", [{ from: FROM, to: FROM, value: "0x2" }]);
    await anvil.rpc("anvil_mine", ["0xa"]);
    expect(await anvil.rpc("eth_blockNumber")).toBe("0x11");
    const proxy = await startFaultServer({ upstream: { url: anvil.url } });
    proxies.push(proxy);
    // checks 4 s apart: the reorg and one client's read fit between two of them
    const gw = await startServe(
      {
        products: { eth: { chain: "evm", upstreams: [proxy.url] } },
        cache: { safeDepth: 2 },
        health: { interval: 4, timeout: PROBE_TIMEOUT_S },
      },
      { keys: [["eth"]] },
    );
    gws.push(gw);
    const ask = (method: string, params: unknown[]) => resultOf(gw, "eth", method, params);
    const old = await ask("eth_getTransactionReceipt", [tx2]);
    expect(old.blockNumber).toBe("0x7");
    const before = proxy.hitsOf("eth_getTransactionReceipt", [tx2]);
    expect(await ask("eth_getTransactionReceipt", [tx2])).toEqual(old);
    expect(proxy.hitsOf("eth_getTransactionReceipt", [tx2]), "cached").toBe(before);
    const tips = () => proxy.hitsByMethod.eth_blockNumber ?? 0;
    const checked = () => proxy.of("answered").filter((e) => e.method === "eth_blockNumber").length;
    // right after a check was answered: blocks 6..17 replaced, the new chain carrying tx3 in block 9
    const c0 = checked();
    await until("a check answered", () => checked() > c0);
    const t1 = tips();
    await anvil.rpc("anvil_reorg", [12, [[{ from: FROM, to: FROM, value: "0x3" }, 3]]]);
    const b9 = await anvil.rpc<{ transactions: string[] }>("eth_getBlockByNumber", ["0x9", false]);
    const tx3 = b9.transactions[0] as string;
    expect(tx3).toMatch(/^0x[0-9a-f]{64}$/);
    // the new chain's receipt, 8 blocks deep: cached before any check saw the reorg
    expect((await ask("eth_getTransactionReceipt", [tx3])).blockNumber).toBe("0x9");
    const asked = proxy.hitsOf("eth_getTransactionReceipt", [tx3]);
    await ask("eth_getTransactionReceipt", [tx3]);
    expect(proxy.hitsOf("eth_getTransactionReceipt", [tx3])).toBe(asked);
    expect(tips(), "no check began before the new chain's answer was cached").toBe(t1);
    await until("the note of the reorg", () => gw.notes().includes("a reorg;"));
    // tx2 is gone from the node's chain: its old receipt (block 7, below the new one's block 9) is not served
    expect(await anvil.rpc("eth_getTransactionReceipt", [tx2])).toBe(null);
    expect(await ask("eth_getTransactionReceipt", [tx2])).toBe(null);
    // the new chain's receipt still answers as the node does
    expect((await ask("eth_getTransactionReceipt", [tx3])).blockNumber).toBe("0x9");
  });

  it.each(["memory", "redis"] as const)(
    "state in %s: more than 1,024 answers of the new chain cached above an old one between the reorg and the check that sees it (in Redis: the process stopped before that check, the next one compares at its start): the old one still goes — every record of the highest heights is read, not the first 1,024",
    async (state) => {
      const { anvil, tx2 } = await anvilWithTwoTxs();
      // checks 10 s apart: the reorg and the new chain's reads fit between two of them; Redis's deadline
      // long enough that none of the 1,100 writes in a burst is dropped on a loaded host
      const { proxy, redis, config, args, gw } = await gatewayOver(anvil, state, {
        interval: 10,
        stateTimeout: 30,
      });
      expect((await resultOf(gw, "eth", "eth_getTransactionReceipt", [tx2])).blockNumber).toBe("0x7");
      const tips = () => proxy.hitsByMethod.eth_blockNumber ?? 0;
      const checked = () => proxy.of("answered").filter((e) => e.method === "eth_blockNumber").length;
      const c0 = checked();
      await until("a check answered", () => checked() > c0);
      const t1 = tips();
      // blocks 6..17 replaced, the new chain carrying 1,100 transactions in block 9
      const many = Array.from({ length: 1100 }, () => [{ from: FROM, to: FROM, value: "0x3" }, 3]);
      await anvil.rpc("anvil_reorg", [12, many]);
      const b9 = await anvil.rpc<{ transactions: string[] }>("eth_getBlockByNumber", ["0x9", false]);
      expect(b9.transactions).toHaveLength(1100);
      // their receipts, 8 blocks deep, cached (two batches) before any check saw the reorg
      for (const part of [b9.transactions.slice(0, 550), b9.transactions.slice(550)]) {
        const r = await postRaw(
          `${gw.url}/v1/eth`,
          JSON.stringify(
            part.map((tx, id) => ({ jsonrpc: "2.0", id, method: "eth_getTransactionReceipt", params: [tx] })),
          ),
          { headers: { "x-api-key": gw.keys[0] as string } },
        );
        expect(
          JSON.parse(r.text).every(
            (a: { result?: { blockNumber: string } }) => a.result?.blockNumber === "0x9",
          ),
        ).toBe(true);
      }
      expect(tips(), "no check began before the new chain's answers were cached").toBe(t1);
      expect(await anvil.rpc("eth_getTransactionReceipt", [tx2])).toBe(null);
      let served = gw;
      if (redis) {
        // the records only in Redis: this process stopped before its check, the next compares them
        expect(await gw.stop()).toBe(0);
        expect(gw.notes()).not.toContain("a reorg;");
        expect(gw.notes()).not.toContain("redis unavailable");
        served = await startServe(config, { keys: [["eth"]], args, dir: gw.dir });
        gws.push(served);
      } else await until("the note of the reorg", () => gw.notes().includes("a reorg;"));
      expect(await resultOf(served, "eth", "eth_getTransactionReceipt", [tx2])).toBe(null);
      if (redis)
        expect(served.notes()).toMatch(
          /product eth: the cache's records of its chain from before this process followed it disagree with upstream \S+ at block 7: 1101 cached answers above block 6 dropped/,
        );
    },
  );

  it("an upstream whose receipt names its block's height but no hash (blockHash stripped by a loopback proxy over anvil): never cached, so a reorg cannot leave it stale (with its hash it is: the anvil_reorg cases above)", async () => {
    const anvil = await startAnvil();
    nodes.push(anvil);
    await anvil.rpc("anvil_mine", ["0x5"]);
    const tx = await anvil.rpc<string>("eth_sendTransaction", [{ from: FROM, to: FROM, value: "0x2" }]);
    await anvil.rpc("anvil_mine", ["0xa"]);
    let stripped = 0;
    // a single call's receipt loses its blockHash; arrays (the health checks) pass as they are
    const proxy = await rawServer(async (body, req, res) => {
      const up = await forward({ url: anvil.url }, body, copyHeaders(req.headers));
      let out = up.body.toString("utf8");
      const got = JSON.parse(out);
      if (
        !Array.isArray(got) &&
        got.result &&
        typeof got.result === "object" &&
        "transactionHash" in got.result
      ) {
        delete got.result.blockHash;
        stripped++;
        out = JSON.stringify(got);
      }
      sendJson(res, up.status, out);
    });
    try {
      const gw = await startServe(
        {
          products: {
            eth: { chain: "evm", upstreams: [proxy.url] },
          },
          cache: { safeDepth: 2 },
          health: { interval: 0.2, timeout: PROBE_TIMEOUT_S },
        },
        { keys: [["eth"]] },
      );
      gws.push(gw);
      const ask = () => resultOf(gw, "eth", "eth_getTransactionReceipt", [tx]);
      const first = await ask();
      expect(first.blockNumber).toBe("0x6");
      expect(first.blockHash).toBeUndefined();
      await ask();
      expect(stripped, "asked the upstream each time: not cached").toBe(2);
      // blocks 5..16 replaced: tx (block 6) gone
      await anvil.rpc("anvil_reorg", [12, []]);
      expect(await anvil.rpc("eth_getTransactionReceipt", [tx])).toBe(null);
      await until("the note of the reorg", () => gw.notes().includes("a reorg;"));
      expect(await ask()).toBe(null);
    } finally {
      await proxy.close();
    }
  });

  it("litecoind: a block invalidated and a longer branch mined (the tip went back, then up): by-height answers and verbose headers above the fork go, the raw header by hash stays", async () => {
    const node = await startLitecoind({ blocks: 20 });
    ltcs.push(node);
    const hashAt = (h: number) => node.rpc<string>("getblockhash", [h]);
    const proxy = await startFaultServer({
      upstream: { url: node.url, user: node.user, password: node.password },
    });
    proxies.push(proxy);
    const gw = await startServe(
      {
        products: { ltc: { chain: "utxo", upstreams: [proxy.url] } },
        cache: { safeDepth: 2 },
        health: { interval: 0.2, timeout: PROBE_TIMEOUT_S },
      },
      { keys: [["ltc"]] },
    );
    gws.push(gw);
    const ask = (method: string, params: unknown[]) => resultOf(gw, "ltc", method, params);
    // a verbose header holds while its successor (nextblockhash) does: header 3 depends on block 4
    const below: [string, unknown[]][] = [
      ["getblockheader", [await hashAt(3)]],
      ["getblockhash", [2]],
    ];
    const above: [string, unknown[]][] = [
      ["getblockheader", [await hashAt(10)]],
      ["getblockhash", [12]],
    ];
    // the raw bytes of a header by hash hold on any chain that has the block
    const raw: [string, unknown[]] = ["getblockheader", [await hashAt(15), false]];
    const all = [...below, ...above, raw];
    for (const [m, p] of all) {
      expect(await ask(m, p)).toEqual(await node.rpc(m, p));
      const asked = proxy.hitsOf(m, p);
      await ask(m, p);
      expect(proxy.hitsOf(m, p), `${m} ${JSON.stringify(p)} cached`).toBe(asked);
    }
    const counts = () => all.map(([m, p]) => proxy.hitsOf(m, p));
    const before = counts();

    // block 8 invalidated (the tip goes back to 7), then 15 blocks of another branch: the fork is block 7
    await node.rpc("invalidateblock", [await hashAt(8)]);
    await node.mine(15);
    expect(await node.rpc("getblockcount")).toBe(22);
    const tips = () => proxy.hitsByMethod.getblockcount ?? 0;
    const t0 = tips();
    await until("three checks after the reorg", () => tips() >= t0 + 3);
    await until("the note of the reorg", () => gw.notes().includes("a reorg;"));
    expect(gw.notes()).toMatch(
      /: a reorg; 2 cached answers above block 10, below the lowest the cache and the node disagree on, dropped/,
    );
    expect(gw.notes().match(/: a reorg;/g)).toHaveLength(1);

    // the access log of the asks before (two of each), written as each answer went
    await until("the access log of the asks before", () => gw.log().length >= 2 * all.length);
    const logged = gw.log().length;
    expect(logged).toBe(2 * all.length);
    for (const [m, p] of all)
      expect(await ask(m, p), `${m} ${JSON.stringify(p)}`).toEqual(await node.rpc(m, p));
    // the headers: the node asked again only for the one above the fork (the checks ask getblockhash at
    // heights of their own, so those are told by the access log's outcome)
    expect([0, 2, 4].map((k) => (counts()[k] as number) - (before[k] as number))).toEqual([0, 1, 0]);
    await until("the access log of the asks after", () => gw.log().length >= logged + all.length);
    expect(
      gw
        .log()
        .slice(logged)
        .map((l) => JSON.parse(l).outcome),
    ).toEqual(["cached", "cached", "ok", "ok", "cached"]);
  });
});

describe("a reorg's cache drop that Redis did not take is kept, retried and honoured until Redis confirms it", () => {
  /** A product's waiting drops as /metrics says them (undefined: no such series). */
  const pendingDrops = async (g: Served) => {
    const m = /chaingw_serve_cache_pending_drops\{product="eth"\} (\d+)/.exec(
      await (await fetch(`${g.url}/metrics`)).text(),
    );
    return m ? Number(m[1]) : undefined;
  };
  const ask = (g: Served, [m, p]: [string, unknown[]]) => resultOf(g, "eth", m, p);

  /**
   * anvil with tx1 in block 1 and tx2 in block 7 (tip 17), a counting proxy, a Redis and a gateway on it that
   * cached tx1's receipt (below the coming reorg's fork), tx2's and block 8 by hash (above it).
   */
  async function cachedBeforeReorg() {
    const { anvil, tx1, tx2 } = await anvilWithTwoTxs();
    const b8 = (await anvil.rpc<{ hash: string }>("eth_getBlockByNumber", ["0x8", false])).hash;
    expect(await anvil.rpc("eth_blockNumber")).toBe("0x11");
    const over = await gatewayOver(anvil, "redis", { interval: 0.2 });
    const { proxy, config, args, gw } = over;
    const redis = over.redis as RedisServer;
    const below: [string, unknown[]] = ["eth_getTransactionReceipt", [tx1]];
    const above: [string, unknown[]][] = [
      ["eth_getTransactionReceipt", [tx2]],
      ["eth_getBlockByHash", [b8, false]],
    ];
    for (const c of [below, ...above]) {
      const first = await ask(gw, c);
      expect(first).not.toBe(null);
      const asked = proxy.hitsOf(...c);
      expect(await ask(gw, c)).toEqual(first);
      expect(proxy.hitsOf(...c), `${c[0]} cached`).toBe(asked);
    }
    expect(await pendingDrops(gw)).toBeUndefined();
    /** blocks 6..17 replaced: tx2 and block 8 gone from the chain; the gateway's note of it */
    const reorg = async () => {
      await anvil.rpc("anvil_reorg", [12, []]);
      for (const [m, p] of above) expect(await anvil.rpc(m, p), m).toBe(null);
      await until("the note of the reorg", () => gw.notes().includes("a reorg;"));
    };
    /** The drop's notes (it waited, then landed: every shared entry tied to a block, tx1's too), /metrics. */
    const landed = async () => {
      await until("the note that the drop landed", () =>
        gw.notes().includes("redis confirmed the cache drop"),
      );
      for (const c of above) expect(await ask(gw, c), c[0]).toBe(null);
      // every answer: Redis stopped, its records unread; above block 6: read, the drop refused (ACL)
      expect(gw.notes()).toMatch(
        /product eth: 1 cache drop waits for redis \((?:every answer tied to a block|the answers above block 6); redis: [^)]+\); until redis confirms, no shared answer of eth tied to a block is served/,
      );
      // the fork was found without Redis's records of other replicas' entries: every one tied to a block went
      expect(gw.notes()).toMatch(
        /product eth: redis confirmed the cache drop it had missed: 3 shared answers tied to a block dropped; 0 cache drops wait for redis/,
      );
      expect(await pendingDrops(gw)).toBe(0);
    };
    /**
     * A second replica started on the same Redis, its memory empty: the answers above the fork are the
     * node's (null), tx1's receipt is; how many times the node was asked each (below, then above).
     */
    const secondReplica = async () => {
      const other = await startServe(config, { keys: [["eth"]], args, dir: gw.dir });
      gws.push(other);
      const counts = () => [below, ...above].map((c) => proxy.hitsOf(...c));
      const mid = counts();
      for (const c of above) expect(await ask(other, c), c[0]).toBe(null);
      expect((await ask(other, below)).transactionHash).toBe(tx1);
      return { other, asked: counts().map((n, i) => n - (mid[i] as number)) };
    };
    return { redis, gw, above, reorg, landed, secondReplica };
  }

  it("Redis stopped (SIGSTOP) during anvil_reorg: the old chain's answers are served neither while it is stopped nor once it answers again, the drop lands (note, metric), and a replica started afterwards finds none of them in Redis", async () => {
    const { redis, gw, above, reorg, landed, secondReplica } = await cachedBeforeReorg();
    process.kill(redis.pid, "SIGSTOP");
    try {
      await reorg();
      // Redis stopped: this process's own copies are gone, Redis is not asked
      for (const c of above) expect(await ask(gw, c), c[0]).toBe(null);
    } finally {
      process.kill(redis.pid, "SIGCONT");
    }
    // Redis answers again and still holds the old chain's answers until the drop lands: never served
    await until("the note that redis answers again", async () => {
      for (const c of above) expect(await ask(gw, c), c[0]).toBe(null);
      return gw.notes().includes("redis answers again");
    });
    await landed();

    // a second replica on the same Redis: nothing of the old chain there (tx1 asked too: the drop took it)
    expect((await secondReplica()).asked).toEqual([1, 1, 1]);
  });

  it("the process stopped while its drop waits (Redis SIGSTOPped): the next one started on that Redis compares the records there with the chain before it serves, drops the old chain's, keeps the rest", async () => {
    const { redis, gw, reorg, secondReplica } = await cachedBeforeReorg();
    process.kill(redis.pid, "SIGSTOP");
    try {
      await reorg();
      await until("the note that the drop waits", () => gw.notes().includes("1 cache drop waits for redis"));
      expect(await gw.stop()).toBe(0);
    } finally {
      process.kill(redis.pid, "SIGCONT");
    }
    const { other, asked } = await secondReplica();
    // below the fork: still served from Redis, the node not asked
    expect(asked).toEqual([0, 1, 1]);
    expect(gw.notes()).toMatch(
      /stopping with cache drops redis never confirmed \(eth: 1\): the answers they were to drop stay in redis until a process starting on it compares its records with the chain/,
    );
    expect(other.notes()).toMatch(
      /product eth: the cache's records of its chain from before this process followed it disagree with upstream \S+ at block 7: 2 cached answers above block 6 dropped/,
    );
  });

  it("Redis not answering when a reorg's walk reads its records, answering again when the drop is sent: the entries in Redis the walk could not see (another replica's block 6, below this process's lowest) go too", async () => {
    const { anvil, tx2 } = await anvilWithTwoTxs();
    const { proxy, redis: r, config, args, gw } = await gatewayOver(anvil, "redis", { interval: 0.2 });
    const redis = r as RedisServer;
    const b6 = (await anvil.rpc<{ hash: string }>("eth_getBlockByNumber", ["0x6", false])).hash;
    const cached = async (g: Served, c: [string, unknown[]]) => {
      const first = await ask(g, c);
      expect(first).not.toBe(null);
      const asked = proxy.hitsOf(...c);
      expect(await ask(g, c)).toEqual(first);
      expect(proxy.hitsOf(...c), `${c[0]} cached`).toBe(asked);
    };
    // another replica caches block 6 by hash (in Redis), then stops; this one caches tx2's receipt (block 7)
    const other = await startServe(config, { keys: [["eth"]], args, dir: gw.dir });
    gws.push(other);
    await cached(other, ["eth_getBlockByHash", [b6, false]]);
    expect(await other.stop()).toBe(0);
    await cached(gw, ["eth_getTransactionReceipt", [tx2]]);
    // the walk's array (this process's records: block 7) held at the proxy until Redis answers again
    let release = () => {};
    const held = new Promise<void>((done) => {
      release = done;
    });
    const walked = () =>
      proxy.of("arrived").filter((e) => e.method === "eth_getBlockByNumber" && e.params[0] === "0x7").length;
    expect(walked()).toBe(0);
    proxy.setMethodFault("eth_getBlockByNumber", { kind: "held", until: held }, (p) => p[0] === "0x7");
    process.kill(redis.pid, "SIGSTOP");
    try {
      await anvil.rpc("anvil_reorg", [12, []]);
      expect(await anvil.rpc("eth_getBlockByHash", [b6, false])).toBe(null);
      await until("the walk's array", () => walked() > 0);
    } finally {
      process.kill(redis.pid, "SIGCONT");
    }
    // reads of Redis again (an answer no one cached: not found there), then the walk goes on
    await until("the note that redis answers again", async () => {
      await ask(gw, ["eth_getBlockByHash", [`0x${"ab".repeat(32)}`, false]]);
      return gw.notes().includes("redis answers again");
    });
    // a client reads block 6 meanwhile: from Redis, into this process's memory (the reorg not yet seen:
    // served as cached, as before any check sees a reorg)
    expect(await ask(gw, ["eth_getBlockByHash", [b6, false]])).not.toBe(null);
    release();
    await until("the note of the reorg", () => gw.notes().includes("a reorg;"));
    expect(await ask(gw, ["eth_getBlockByHash", [b6, false]])).toBe(null);
    expect(await ask(gw, ["eth_getTransactionReceipt", [tx2]])).toBe(null);
  });

  it("Redis refusing the drop (its ACL denies scripts) while it answers reads: the old chain's answers it still holds are read from it and not served; the drop lands once it takes scripts again", async () => {
    const { redis, gw, above, reorg, landed } = await cachedBeforeReorg();
    /** GETs Redis has run: the gateway's reads of cached answers (nothing else here sends one) */
    const gets = async () =>
      Number(/cmdstat_get:calls=(\d+)/.exec(await redis.command("INFO", "commandstats"))?.[1] ?? 0);
    expect(await redis.command("ACL", "SETUSER", "default", "-eval", "-evalsha")).toBe("+OK");
    try {
      await reorg();
      // reads go to Redis again a second after a failed command, and find the old chain's answers there
      const g0 = await gets();
      await until("two reads of Redis", async () => {
        for (const c of above) expect(await ask(gw, c), c[0]).toBe(null);
        return (await gets()) >= g0 + 2;
      });
      expect(await pendingDrops(gw)).toBe(1);
    } finally {
      await redis.command("ACL", "SETUSER", "default", "+eval", "+evalsha");
    }
    await landed();
  });
});
