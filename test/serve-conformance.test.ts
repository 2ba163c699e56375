/**
 * execution-apis' conformance requests (test/fixtures/execution-apis/requests.txt, one per `.io` file of
 * the methods serve has) replayed straight at anvil and through `chaingw serve` in front of the same anvil:
 * the two answers compared byte for byte (HTTP status and body). The cases serve answers differently on
 * purpose are listed here and in docs/serve.md by file name, with the reason; every other case must match.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { postRaw } from "./helpers/http.js";
import { type Served, startServe } from "./helpers/serve.js";

/** The deliberate differences, by file name (docs/serve.md lists the same with the reason). */
const DIFFERENT = [
  // a missing block parameter is filled in with latest, as geth and the suite do (anvil refuses it)
  "eth_getBalance/get-balance-default-block.io",
  "eth_getCode/get-code-default-block.io",
  "eth_getTransactionCount/get-nonce-default-block.io",
  "eth_getStorageAt/get-storage-default-block.io",
  "eth_getProof/get-account-proof-default-block.io",
  // refused by the registry's own checks before the node (anvil refuses them too), with the gateway's message
  "eth_getStorageAt/get-storage-invalid-key-too-large.io",
  "eth_getStorageAt/get-storage-invalid-key.io",
  "eth_getLogs/filter-error-invalid-blockHash-and-range.io",
];

const lines = readFileSync(new URL("fixtures/execution-apis/requests.txt", import.meta.url), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => {
    const i = l.indexOf(" ");
    return [l.slice(0, i), l.slice(i + 1)] as [string, string];
  });

let anvil: AnvilNode;
let gw: Served;

beforeAll(async () => {
  anvil = await startAnvil();
  // blocks for the suite's numbers (0x3 to 0x6 and so on) to exist
  await anvil.rpc("anvil_mine", ["0x10"]);
  // limits out of the way: the suite's heavy reads (eth_getLogs) come faster than the default buckets allow
  const wide = { rate: 1000, burst: 1000 };
  gw = await startServe(
    {
      products: { eth: { chain: "evm", upstreams: [anvil.url] } },
      limits: { perKey: wide, perProduct: wide },
    },
    { keys: [["eth"]] },
  );
});

afterAll(async () => {
  await gw?.stop();
  await anvil?.stop();
});

describe("execution-apis requests: serve answers as anvil does, byte for byte", () => {
  it("every case of every method serve has, the listed differences alone differ", async () => {
    const differ: string[] = [];
    const unexpected: unknown[] = [];
    const seen = new Set<string>();
    for (const [file, body] of lines) {
      seen.add(file.split("/")[0] as string);
      const direct = await postRaw(anvil.url, body);
      const served = await postRaw(`${gw.url}/v1/eth`, body, {
        headers: { "x-api-key": gw.keys[0] as string },
      });
      const same = direct.status === served.status && direct.text === served.text;
      if (!same) differ.push(file);
      if (!same && !DIFFERENT.includes(file))
        unexpected.push({ file, direct: [direct.status, direct.text], served: [served.status, served.text] });
    }
    expect(unexpected).toEqual([]);
    expect(differ.sort()).toEqual([...DIFFERENT].sort());
    // the ByHash count is served (issue 48)
    expect(seen.has("eth_getBlockTransactionCountByHash")).toBe(true);
  });

  it("what nodes accept beyond the suite's cases: block overrides, a null state override, [] topics, large fee-history counts (issue 48)", async () => {
    const to = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
    const bodies: { jsonrpc: string; id: number; method: string; params: unknown[] }[] = [
      // viem's call({ blockOverrides }): a null state override, then the block overrides
      [{ to, data: "0x" }, "latest", null, { number: "0x100", time: "0x70000000" }],
      [{ to, data: "0x" }, "latest", null],
    ].map((params, id) => ({ jsonrpc: "2.0", id, method: "eth_call", params }));
    bodies.push(
      { jsonrpc: "2.0", id: 10, method: "eth_feeHistory", params: ["0x401", "latest", [50]] },
      { jsonrpc: "2.0", id: 11, method: "eth_feeHistory", params: ["0xffffffffffffffff", "latest", []] },
      { jsonrpc: "2.0", id: 12, method: "eth_getLogs", params: [{ fromBlock: "0x0", topics: [[], null] }] },
      { jsonrpc: "2.0", id: 13, method: "eth_estimateGas", params: [{ to, authorizationList: [] }] },
    );
    for (const b of bodies) {
      const body = JSON.stringify(b);
      const direct = await postRaw(anvil.url, body);
      const served = await postRaw(`${gw.url}/v1/eth`, body, {
        headers: { "x-api-key": gw.keys[0] as string },
      });
      expect([body, served.status, served.text]).toEqual([body, direct.status, direct.text]);
      expect(served.text).not.toContain("invalid params");
    }
    // beyond 64 bits: refused before anvil (which panics on it and stops answering)
    const big = await postRaw(
      `${gw.url}/v1/eth`,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "eth_feeHistory",
        params: ["0x10000000000000000", "latest", []],
      }),
      { headers: { "x-api-key": gw.keys[0] as string } },
    );
    expect(JSON.parse(big.text).error.message).toMatch(/below 2\^64/);
  });

  it("maxLogsRange's default is the documented 10,000: 10,000 blocks forwarded, 10,001 refused naming it", async () => {
    const logs = (toBlock: string) =>
      postRaw(
        `${gw.url}/v1/eth`,
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "eth_getLogs",
          params: [{ fromBlock: "0x0", toBlock }],
        }),
        { headers: { "x-api-key": gw.keys[0] as string } },
      );
    const direct = await postRaw(
      anvil.url,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "eth_getLogs",
        params: [{ fromBlock: "0x0", toBlock: "0x270f" }],
      }),
    );
    expect((await logs("0x270f")).text).toBe(direct.text);
    const wide = JSON.parse((await logs("0x2710")).text);
    expect(wide.error.message).toMatch(/block range of 10001 blocks exceeds the limit of 10000/);
    const doc = readFileSync(new URL("../docs/serve.md", import.meta.url), "utf8");
    expect(doc).toMatch(/\| `products\.<id>\.maxLogsRange` \| 10000 \|/);
  });

  it("docs/serve.md lists the same differences", () => {
    const doc = readFileSync(new URL("../docs/serve.md", import.meta.url), "utf8");
    const m = /<!-- conformance-differences:start -->([\s\S]*?)<!-- conformance-differences:end -->/.exec(
      doc,
    );
    const listed = [...(m?.[1] ?? "").matchAll(/`([a-zA-Z_]+\/[a-zA-Z0-9-]+\.io)`/g)].map((x) => x[1]);
    expect(listed.sort()).toEqual([...DIFFERENT].sort());
  });
});
