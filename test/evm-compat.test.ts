/**
 * The EVM-compat group end to end against the TRON fixture (java-tron's JSON-RPC shapes): pending refused
 * before the wire, T-address input, energy in gasUsed, the block-hash integrity rule, unconfirmed
 * receipts, and the gateway with X-API-Key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gateway, startGateway } from "./fixtures/gateway.js";
import { startTronFixture, type TronFixture } from "./fixtures/tron.js";
import { runCli } from "./helpers/cli.js";
import { tronBase58ToHex, tronHexToBase58 } from "./helpers/tronaddr.js";

let tron: TronFixture;
let liar: TronFixture;
let env: Record<string, string>;
const hx = (n: number) => `0x${n.toString(16)}`;

beforeAll(async () => {
  tron = await startTronFixture();
  env = { CHAINGW_URL: tron.url, CHAINGW_CHAIN: "evm-compat" };
});

afterAll(async () => {
  await tron?.stop();
  await liar?.stop();
});

async function json(args: string[], e = env): Promise<unknown> {
  const r = await runCli(["--json", ...args], { env: e });
  expect(r.stderr).toBe("");
  expect(r.exitCode).toBe(0);
  return JSON.parse(r.stdout);
}

describe("blocks", () => {
  it("eth_getBlockByNumber: decimal converted to hex, fullTransactions false sent, the node's block back", async () => {
    const first = tron.data.blocks[0];
    expect(await json(["eth_getBlockByNumber", String(tron.data.first)])).toEqual(first);
    const req = tron.lastRequests.at(-1) as { params: unknown[] };
    expect(req.params).toEqual([hx(tron.data.first), false]);
    expect(await json(["eth_getBlockByNumber", "latest"])).toEqual(tron.data.blocks.at(-1));
    expect(await json(["eth_getBlockByNumber", "earliest"])).toEqual(tron.data.genesis);
  });

  it("pending and safe are refused with exit 2 and nothing sent", async () => {
    for (const tag of ["pending", "PENDING", "safe"]) {
      const before = tron.hits;
      const r = await runCli(["eth_getBlockByNumber", tag], { env });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/the evm-compat chain does not support the tag (pending|safe)/);
      expect(tron.hits).toBe(before);
    }
    const before = tron.hits;
    const logs = await runCli(["eth_getLogs", "--from-block", "pending"], { env });
    expect(logs.exitCode).toBe(2);
    expect(tron.hits).toBe(before);
  });

  it("the same block under --chain evm accepts pending (group picked by flag over env)", async () => {
    const before = tron.hits;
    const r = await runCli(["--chain", "evm", "eth_getBlockByNumber", "pending"], { env });
    // the fixture (a TRON node) refuses it: the node's answer, exit 1, one request
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("TAG pending not supported");
    expect(tron.hits).toBe(before + 1);
  });

  it("human: gasUsed shown as energy, miner as a T-address, transactions listed", async () => {
    const b = tron.data.blocks.find((x) => x.transactions.length > 1 && BigInt(x.gasUsed) > 0n)!;
    const r = await runCli(["eth_getBlockByNumber", b.number], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`^gasUsed\\s+${b.gasUsed} {2}\\(${BigInt(b.gasUsed)} energy\\)$`, "m"),
    );
    expect(r.stdout).toMatch(new RegExp(`^number\\s+${b.number} {2}\\(${Number(b.number)}\\)$`, "m"));
    expect(r.stdout).toMatch(new RegExp(`^miner\\s+${b.miner} {2}\\(${tronHexToBase58(b.miner)}\\)$`, "m"));
    expect(r.stdout).toContain(`transactions (${b.transactions.length})\n  ${b.transactions[0]}`);
    const full = await runCli(["eth_getBlockByNumber", b.number, "true"], { env });
    expect(full.stdout).toMatch(/│ #\s+│ hash\s+│ from\s+│ to\s+│ value\s+│ gas\s+│/);
    for (const t of b.transactions) expect(full.stdout).toContain(t);
  });

  it("eth_getBlockByHash: found, checked, and null for an unknown hash", async () => {
    const b = tron.data.blocks[3];
    expect(await json(["eth_getBlockByHash", b.hash])).toEqual(b);
    expect((tron.lastRequests.at(-1) as { params: unknown[] }).params).toEqual([b.hash, false]);
    const unknown = `0x${"00".repeat(7)}01${"ab".repeat(24)}`;
    const r = await runCli(["eth_getBlockByHash", unknown], { env });
    expect(r.exitCode).toBe(0);
    // a null prints nothing on stdout, its note on stderr (issue 49)
    expect([r.stdout, r.stderr]).toEqual([
      "",
      "chaingw: null (eth_getBlockByHash: not found — no such block)\n",
    ]);
  });

  it("a block whose hash prefix is not its number: integrity error naming the block, exit 1; --no-verify passes", async () => {
    liar = await startTronFixture({ lyingBlock: tron.data.first + 5 });
    const lenv = { CHAINGW_URL: liar.url, CHAINGW_CHAIN: "evm-compat" };
    const lying = liar.data.lying!;
    const byNumber = await runCli(["eth_getBlockByNumber", String(lying.number)], { env: lenv });
    expect(byNumber.exitCode).toBe(1);
    expect(byNumber.stdout).toBe("");
    expect(byNumber.stderr).toContain(`upstream integrity error in block ${hx(lying.number)}`);
    expect(byNumber.stderr).toContain(
      `hash ${lying.returnedHash} starts with 0x${hx(lying.number + 1)
        .slice(2)
        .padStart(16, "0")}`,
    );
    expect(byNumber.stderr).toContain("--no-verify");

    const j = await runCli(["--json", "eth_getBlockByHash", lying.returnedHash], { env: lenv });
    expect(j.exitCode).toBe(1);
    expect(j.stdout).toBe("");
    expect(JSON.parse(j.stderr).error.code).toBe("integrity");

    // asked by the true hash, answered with another
    const trueHash = await runCli(["eth_getBlockByHash", lying.trueHash], { env: lenv });
    expect(trueHash.exitCode).toBe(1);

    const skipped = await runCli(["--json", "eth_getBlockByNumber", hx(lying.number), "--no-verify"], {
      env: lenv,
    });
    expect(skipped.exitCode).toBe(0);
    expect(JSON.parse(skipped.stdout).hash).toBe(lying.returnedHash);

    // the honest neighbours pass
    const ok = await runCli(["eth_getBlockByNumber", hx(lying.number - 1)], { env: lenv });
    expect(ok.exitCode).toBe(0);
  });
});

describe("transactions and receipts", () => {
  it("eth_getTransactionReceipt: status success, energy in gasUsed, logs as a table", async () => {
    const rc = tron.data.receipts[tron.data.txHash];
    expect(await json(["eth_getTransactionReceipt", tron.data.txHash])).toEqual(rc);
    const r = await runCli(["eth_getTransactionReceipt", tron.data.txHash], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^status\s+0x1 {2}\(success\)$/m);
    expect(r.stdout).toMatch(
      new RegExp(`^gasUsed\\s+${rc.gasUsed} {2}\\(${BigInt(rc.gasUsed)} energy\\)$`, "m"),
    );
    expect(r.stdout).toMatch(/^logsBloom\s+\(empty\)$/m);
    expect(r.stdout).toContain(`logs (1)`);
    expect(r.stdout).toContain(tron.data.topics.transfer);
    expect(r.stdout).toContain(tron.data.contractBase58);
  });

  it("an unconfirmed transaction: known to eth_getTransactionByHash, receipt null (not found, exit 0)", async () => {
    const h = tron.data.unconfirmedTxHash;
    const tx = await runCli(["eth_getTransactionByHash", h], { env });
    expect(tx.exitCode).toBe(0);
    expect(tx.stdout).toMatch(/^blockNumber\s+0x$/m);
    expect(tx.stdout).toContain("(not in a block yet)");
    const rc = await runCli(["eth_getTransactionReceipt", h], { env });
    expect(rc.exitCode).toBe(0);
    expect(rc.stdout).toBe("");
    expect(rc.stderr).toBe(
      "chaingw: null (eth_getTransactionReceipt: not found — unknown transaction hash, or not confirmed yet)\n",
    );
    const j = await runCli(["--json", "eth_getTransactionReceipt", h], { env });
    expect(j.stdout).toBe("null\n");
  });

  it("eth_getTransactionByHash: the node's object; from/to shown with their T-addresses", async () => {
    const tx = tron.data.transactions[tron.data.trxTransferTxHash];
    expect(await json(["eth_getTransactionByHash", tx.hash])).toEqual(tx);
    const r = await runCli(["eth_getTransactionByHash", tx.hash], { env });
    expect(r.stdout).toMatch(new RegExp(`^from\\s+${tx.from} {2}\\(${tronHexToBase58(tx.from)}\\)$`, "m"));
    // sun, and TRX beside it (1 TRX = 1,000,000 sun)
    const trx = Number(BigInt(tx.value)) / 1e6;
    expect(r.stdout).toMatch(
      new RegExp(`^value\\s+${tx.value} {2}\\(${BigInt(tx.value)} sun = ${trx} trx\\)$`, "m"),
    );
  });
});

describe("eth_getLogs", () => {
  const range = () => ["--from-block", String(tron.data.first), "--to-block", "latest"];

  it("a T-address, a 41-hex address and the 20-byte hex give the same logs; the node gets 20-byte hex", async () => {
    const expected = tron.data.logs.filter((l) => l.address === tron.data.contractHex20);
    expect(expected.length).toBeGreaterThan(2);
    const viaT = await json(["eth_getLogs", ...range(), "--address", tron.data.contractBase58]);
    expect((tron.lastRequests.at(-1) as { params: [{ address: string }] }).params[0].address).toBe(
      tron.data.contractHex20,
    );
    expect(viaT).toEqual(expected);
    expect(await json(["eth_getLogs", ...range(), "--address", tron.data.contractHex21])).toEqual(expected);
    expect(await json(["eth_getLogs", ...range(), "--address", tron.data.contractHex20])).toEqual(expected);
    const filter = JSON.stringify({ fromBlock: hx(tron.data.first), address: [tron.data.contractBase58] });
    expect(await json(["eth_getLogs", filter])).toEqual(expected);
    // the independent converter agrees with what chaingw sent
    expect(tronBase58ToHex(tron.data.contractBase58)).toBe(tron.data.contractHex20);
  });

  it("topics by position, null wildcard, several addresses", async () => {
    const transfers = tron.data.logs.filter((l) => l.topics[0] === tron.data.topics.transfer);
    expect(await json(["eth_getLogs", ...range(), "--topic", tron.data.topics.transfer])).toEqual(transfers);
    const syncs = tron.data.logs.filter((l) => l.address === tron.data.otherContractHex20);
    const both = await json([
      "eth_getLogs",
      ...range(),
      "--address",
      tron.data.contractBase58,
      "--address",
      tron.data.otherContractHex20,
      "--topic",
      `${tron.data.topics.transfer},${tron.data.topics.sync}`,
    ]);
    expect(both).toEqual(tron.data.logs.filter((l) => transfers.includes(l) || syncs.includes(l)));
    const to = transfers[0].topics[2];
    const toPeer = await json(["eth_getLogs", ...range(), "--topic", "", "--topic", "null", "--topic", to]);
    expect(toPeer).toEqual(tron.data.logs.filter((l) => l.topics[2] === to));
  });

  it("human: a table with T-addresses", async () => {
    const r = await runCli(["eth_getLogs", ...range(), "--address", tron.data.contractBase58], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/│ block\s+│ log\s+│ address\s+│ topics\s+│ data\s+│ transaction\s+│/);
    expect(r.stdout).toContain(tron.data.contractBase58);
    expect(r.stdout).toMatch(/\d+ logs\n$/);
  });

  it("a T-address with a bad checksum (or not base58) is exit 2, nothing sent", async () => {
    const t = tron.data.contractBase58;
    const flipped = t.slice(0, -1) + (t.endsWith("f") ? "g" : "f");
    for (const [a, msg] of [
      [flipped, /bad checksum/],
      [`${t.slice(0, 20)}0${t.slice(21)}`, /not a TRON base58 address/],
      [`0x${"ab".repeat(21)}`, /expected an address/],
    ] as const) {
      const before = tron.hits;
      const r = await runCli(["eth_getLogs", "--address", a], { env });
      expect(r.stderr).toMatch(msg);
      expect(r.exitCode).toBe(2);
      expect(tron.hits).toBe(before);
    }
  });
});

describe("eth_call on the EVM-compat chain", () => {
  it("is not in this group's registry (exit 2); `chaingw rpc` sends it and a revert reads as such", async () => {
    const c = tron.data.call;
    const r = await runCli(["eth_call", "--to", tron.data.contractBase58, "--data", c.balanceOfSelector], {
      env,
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/eth_call is not a method of the evm-compat group/);

    const call = JSON.stringify({ to: tron.data.contractHex20, data: c.revertSelector + "00".repeat(64) });
    const rv = await runCli(["rpc", "eth_call", call, "latest"], { env });
    expect(rv.exitCode).toBe(1);
    expect(rv.stderr).toMatch(/^chaingw: execution reverted: ERC20: transfer amount exceeds balance$/m);
    expect(rv.stderr).toContain("error -32000: REVERT opcode executed");
  });
});

describe("through the gateway", () => {
  let gw: Gateway;
  const KEY = "tron-key-456";
  beforeAll(async () => {
    gw = await startGateway({ apiKey: KEY, products: { "tron-nile": { url: tron.url } } });
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it("blocks, receipts and logs via POST /v1/<product> with X-API-Key; pending never leaves", async () => {
    const genv = { CHAINGW_GATEWAY: gw.baseUrl, CHAINGW_PRODUCT: "tron-nile", CHAINGW_API_KEY: KEY };
    const b = await runCli(
      ["--json", "--chain", "evm-compat", "eth_getBlockByNumber", String(tron.data.first + 1)],
      {
        env: genv,
      },
    );
    expect(b.exitCode).toBe(0);
    expect(JSON.parse(b.stdout)).toEqual(tron.data.blocks[1]);
    expect(gw.lastHeaders?.["x-api-key"]).toBe(KEY);
    const rc = await runCli(
      ["--json", "--chain", "evm-compat", "eth_getTransactionReceipt", tron.data.txHash],
      {
        env: genv,
      },
    );
    expect(JSON.parse(rc.stdout)).toEqual(tron.data.receipts[tron.data.txHash]);
    const logs = await runCli(
      [
        "--chain",
        "evm-compat",
        "eth_getLogs",
        "--from-block",
        "earliest",
        "--address",
        tron.data.contractBase58,
      ],
      { env: genv },
    );
    // java-tron's range cap, passed through as the node's error
    expect(logs.exitCode).toBe(1);
    expect(logs.stderr).toContain("exceed max block range: 5000");
    const okLogs = await runCli(
      [
        "--json",
        "--chain",
        "evm-compat",
        "eth_getLogs",
        "--from-block",
        String(tron.data.first),
        "--address",
        tron.data.contractBase58,
      ],
      { env: genv },
    );
    expect(JSON.parse(okLogs.stdout)).toEqual(
      tron.data.logs.filter((l) => l.address === tron.data.contractHex20),
    );
    expect(gw.hits.byProduct["tron-nile"]).toBe(4);
    const p = await runCli(["--chain", "evm-compat", "eth_getBlockByNumber", "pending"], { env: genv });
    expect(p.exitCode).toBe(2);
    expect(gw.hits.total).toBe(4);
  });
});
