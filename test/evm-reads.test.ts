/**
 * Issue 19's EVM reads against a real anvil, each chaingw --json answer compared with `cast rpc`'s for the
 * same call; the EVM-compat group's share of them against the TRON fixture (java-tron's shapes and rules);
 * `info` on both.
 */
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FaultServer, startFaultServer } from "./fixtures/faults.js";
import { startTronFixture, type TronFixture } from "./fixtures/tron.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { type DeployResult, deployAndPing } from "./helpers/evmContract.js";
import { HANG_GUARD_MS } from "./helpers/procs.js";
import { spawnPty } from "./helpers/pty.js";

const CAST = fileURLToPath(new URL("../node_modules/.bin/cast", import.meta.url));

let anvil: AnvilNode;
let proxy: FaultServer;
let tron: TronFixture;
let dep: DeployResult;
let env: Record<string, string>;

async function cast(method: string, ...params: string[]): Promise<unknown> {
  const r = await execa(CAST, ["rpc", "--rpc-url", anvil.url, method, ...params], { timeout: HANG_GUARD_MS });
  return JSON.parse(r.stdout);
}

async function cg(...args: string[]): Promise<unknown> {
  const r = await runCli(["--json", ...args], { env });
  expect(r.stderr, args.join(" ")).toBe("");
  expect(r.exitCode, args.join(" ")).toBe(0);
  return JSON.parse(r.stdout);
}

beforeAll(async () => {
  [anvil, tron] = await Promise.all([startAnvil(), startTronFixture()]);
  dep = await deployAndPing(anvil.rpc);
  proxy = await startFaultServer({ upstream: { url: anvil.url }, fault: { kind: "pass" } });
  env = { CHAINGW_URL: proxy.url };
});

afterAll(async () => {
  await proxy?.stop();
  await Promise.all([anvil?.stop(), tron?.stop()]);
});

describe("EVM reads against anvil, compared with cast rpc", () => {
  it("node and chain: eth_blockNumber, eth_chainId, net_version, web3_clientVersion, eth_syncing", async () => {
    for (const m of ["eth_blockNumber", "eth_chainId", "net_version", "web3_clientVersion", "eth_syncing"])
      expect(await cg(m), m).toEqual(await cast(m));
    const h = await runCli(["eth_chainId"], { env });
    // piped: the node's value alone (the decimal beside it on a terminal only; issue 49)
    expect(h.stdout).toBe("0x7a69\n");
  });

  it("fees: eth_gasPrice, eth_maxPriorityFeePerGas, eth_feeHistory (defaults sent explicitly)", async () => {
    expect(await cg("eth_gasPrice")).toEqual(await cast("eth_gasPrice"));
    expect(await cg("eth_maxPriorityFeePerGas")).toEqual(await cast("eth_maxPriorityFeePerGas"));
    expect(await cg("eth_feeHistory", "4", "latest", "[25,75]")).toEqual(
      await cast("eth_feeHistory", "0x4", "latest", "[25,75]"),
    );
    expect(await cg("eth_feeHistory", "2")).toEqual(await cast("eth_feeHistory", "0x2", "latest", "[]"));
    // piped: the node's value alone; on a terminal the decimal beside it, in the chain's unit (issue 49)
    const h = await runCli(["eth_gasPrice"], { env });
    expect(h.stdout).toMatch(/^0x[0-9a-f]+\n$/);
    const t = spawnPty(["eth_gasPrice"], { env });
    expect((await t.done).code).toBe(0);
    expect(t.screen().join("\n")).toMatch(/^0x[0-9a-f]+ {2}\(\d+ wei\)$/m);
  });

  it("accounts: eth_getBalance, eth_getTransactionCount, eth_getCode, eth_getStorageAt, eth_getProof", async () => {
    const a = dep.from;
    expect(await cg("eth_getBalance", a)).toEqual(await cast("eth_getBalance", a, "latest"));
    expect(await cg("eth_getBalance", a, "1")).toEqual(await cast("eth_getBalance", a, "0x1"));
    expect(await cg("eth_getTransactionCount", a)).toEqual(
      await cast("eth_getTransactionCount", a, "latest"),
    );
    expect(await cg("eth_getCode", dep.contract)).toEqual(await cast("eth_getCode", dep.contract, "latest"));
    expect(await cg("eth_getStorageAt", dep.contract, "0")).toEqual(
      await cast("eth_getStorageAt", dep.contract, "0x0", "latest"),
    );
    const slot = `0x${"0".repeat(64)}`;
    expect(await cg("eth_getProof", a, `["${slot}"]`)).toEqual(
      await cast("eth_getProof", a, `["${slot}"]`, "latest"),
    );
    expect(await cg("eth_getProof", a)).toEqual(await cast("eth_getProof", a, "[]", "latest"));
  });

  it("blocks: eth_getBlockTransactionCountByNumber by number and tag", async () => {
    expect(await cg("eth_getBlockTransactionCountByNumber", "2")).toEqual(
      await cast("eth_getBlockTransactionCountByNumber", "0x2"),
    );
    expect(await cg("eth_getBlockTransactionCountByNumber", "latest")).toEqual(
      await cast("eth_getBlockTransactionCountByNumber", "latest"),
    );
  });

  it("bad params refused before sending, naming the parameter", async () => {
    const before = proxy.hits;
    for (const [args, name] of [
      [["eth_getBalance", "0x12"], "address"],
      [["eth_getBalance", dep.from, "soon"], "blockNumber"],
      [["eth_getStorageAt", dep.contract, "0xzz"], "position"],
      [["eth_feeHistory", "4", "latest", "[101]"], "rewardPercentiles"],
      // a short key (0x1) is execution-apis' bytesMax32 and taken; a key that is not hex is not
      [["eth_getProof", dep.from, '["0x1g"]'], "storageKeys"],
    ] as const) {
      const r = await runCli([...args], { env });
      expect(r.exitCode, args.join(" ")).toBe(2);
      expect(r.stderr).toContain(name);
    }
    expect(proxy.hits).toBe(before);
  });

  it("info on an EVM node: chain id, head, syncing, gas price, client", async () => {
    const j = (await cg("--chain", "evm", "info")) as Record<string, unknown>;
    expect(j).toEqual({
      chainId: await cast("eth_chainId"),
      blockNumber: await cast("eth_blockNumber"),
      syncing: false,
      gasPrice: await cast("eth_gasPrice"),
      client: await cast("web3_clientVersion"),
    });
    const h = await runCli(["--chain", "evm", "info"], { env });
    expect(h.stdout).toMatch(/^Chain id\s+0x7a69 {2}\(31337\)$/m);
  });
});

describe("the EVM-compat group's share (TRON fixture)", () => {
  it("eth_blockNumber, eth_chainId, eth_gasPrice, web3_clientVersion answer as java-tron does", async () => {
    const e = { CHAINGW_URL: tron.url, CHAINGW_CHAIN: "evm-compat" };
    for (const m of ["eth_blockNumber", "eth_chainId", "eth_gasPrice", "web3_clientVersion", "net_version"]) {
      const r = await runCli(["--json", m], { env: e });
      expect(r.exitCode, `${m} ${r.stderr}`).toBe(0);
    }
    const g = await runCli(["eth_gasPrice"], { env: e });
    expect(g.stdout).toMatch(/^0x[0-9a-f]+\n$/);
    const t = spawnPty(["eth_gasPrice"], { env: e });
    expect((await t.done).code).toBe(0);
    expect(t.screen().join("\n")).toMatch(/\(\d+ sun\)/);
  });

  it("state is read only at latest on this chain: a block number is refused before sending", async () => {
    const e = { CHAINGW_URL: tron.url, CHAINGW_CHAIN: "evm-compat" };
    const r = await runCli(["eth_getBalance", "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL", "0x10"], { env: e });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("reads state only at latest");
    const tags = await runCli(["eth_getCode", `0x${"11".repeat(20)}`, "pending"], { env: e });
    expect(tags.exitCode).toBe(2);
  });
});
