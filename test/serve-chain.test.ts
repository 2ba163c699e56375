/**
 * The cache knows its chain (issue 48): entries are keyed by the product's chain (its upstreams' genesis
 * hash, read at the first check and again after a failed exchange or check, or a tip that went back), so a
 * devnet reset on the same port drops them; an upstream on another chain than its product's is taken out of
 * the rotation and named.
 */
import { afterAll, describe, expect, it } from "vitest";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { postRaw } from "./helpers/http.js";
import { sleep } from "./helpers/procs.js";
import { type Served, startServe } from "./helpers/serve.js";

const nodes: AnvilNode[] = [];
const gws: Served[] = [];
afterAll(async () => {
  for (const g of gws) await g.stop();
  for (const n of nodes) await n.stop();
});

const FROM = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const body = (method: string, params: unknown[]) => JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });

describe("a cache bound to the chain", () => {
  it("a receipt cached, anvil restarted fresh on the same port: the receipt is not served again", async () => {
    let anvil = await startAnvil();
    nodes.push(anvil);
    const tx = await anvil.rpc<string>("eth_sendTransaction", [{ from: FROM, to: FROM, value: "0x1" }]);
    await anvil.rpc("anvil_mine", ["0xa"]);
    const gw = await startServe(
      { products: { eth: { chain: "evm", upstreams: [anvil.url] } }, health: { interval: 0.2, timeout: 1 } },
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
    for (let i = 0; i < 50 && !cached(); i++) await sleep(50);
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
    for (let i = 0; i < 100 && !gw.notes().includes("now report another chain"); i++) await sleep(100);
    expect(gw.notes()).toMatch(
      /product eth: its upstreams now report another chain \(genesis 0x[0-9a-f]{64}, was 0x[0-9a-f]{64}\): its cache dropped/,
    );
    const after = JSON.parse((await ask()).text);
    expect(after).toEqual(direct);
  }, 120_000);

  it("an upstream on another chain than its product's leaves the rotation, named", async () => {
    const [a, b] = await Promise.all([startAnvil(), startAnvil(["--timestamp", "1000"])]);
    nodes.push(a, b);
    const gw = await startServe(
      { products: { eth: { chain: "evm", upstreams: [a.url, b.url] } }, health: { interval: 0.2 } },
      { keys: [["eth"]] },
    );
    gws.push(gw);
    const ready = await (await fetch(`${gw.url}/readyz`)).json();
    expect(ready.products.eth.healthy).toBe(1);
    const second = ready.products.eth.upstreams[1];
    expect(second.healthy).toBe(false);
    expect(second.problem).toMatch(
      /^on another chain: genesis 0x[0-9a-f]{64}, product eth's is 0x[0-9a-f]{64}$/,
    );
    expect(gw.notes()).toContain("out of the rotation: on another chain");
  }, 120_000);
});
