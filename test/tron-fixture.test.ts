import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTronFixture, type TronFixture } from "./fixtures/tron.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import {
  deployAndPing,
  INIT_CODE,
  PING_TOPIC0,
  PING_TOPIC1S,
  REVERT_REASON,
  SEL_GET,
  SEL_PING,
  SEL_REVERT,
  word,
} from "./helpers/evmContract.js";
import { postRaw } from "./helpers/http.js";
import { tronBase58ToHex, tronHexToBase58 } from "./helpers/tronaddr.js";

interface HttpReply {
  status: number;
  body: any;
}

/** The reply, its body parsed where it is JSON (the one HTTP client of the helpers: no clock of its own). */
async function post(url: string, payload: unknown): Promise<HttpReply> {
  const { status, text } = await postRaw(url, JSON.stringify(payload));
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // leave as text
  }
  return { status, body };
}

let nextId = 1;
async function rpcRaw(url: string, method: string, params: unknown[] = []): Promise<HttpReply> {
  return post(url, { jsonrpc: "2.0", id: nextId++, method, params });
}

/** The `result`, or throws an Error carrying code/message/data of the JSON-RPC error. */
async function rpc(url: string, method: string, params: unknown[] = []): Promise<any> {
  const { body } = await rpcRaw(url, method, params);
  if (body.error) throw Object.assign(new Error(body.error.message), body.error);
  return body.result;
}

async function rpcError(url: string, method: string, params: unknown[] = []) {
  const reply = await rpcRaw(url, method, params);
  expect(reply.status).toBe(200);
  expect(reply.body.result).toBeUndefined();
  return reply.body.error as { code: number; message: string; data?: unknown };
}

const hashPrefix = (hash: string) => Number.parseInt(hash.slice(2, 18), 16);

describe("tron fixture", () => {
  let tron: TronFixture;
  beforeAll(async () => {
    tron = await startTronFixture();
  });
  afterAll(async () => {
    await tron?.stop();
  });

  it("listens on loopback /jsonrpc and answers chain id and head", async () => {
    expect(tron.url).toBe(`http://127.0.0.1:${tron.port}/jsonrpc`);
    expect(await rpc(tron.url, "eth_chainId")).toBe("0xcd8690dc");
    expect(await rpc(tron.url, "eth_blockNumber")).toBe(`0x${tron.data.latest.toString(16)}`);
    expect(tron.data.first).toBe(0x3fe1c00);
    expect(tron.data.blocks).toHaveLength(tron.data.latest - tron.data.first + 1);
  });

  it("eth_getBlockByNumber returns TRON block shapes whose hash prefix is the number", async () => {
    for (const b of tron.data.blocks) {
      const got = await rpc(tron.url, "eth_getBlockByNumber", [b.number, false]);
      expect(got).toEqual(b);
      expect(hashPrefix(got.hash)).toBe(Number(got.number));
    }
    const b = await rpc(tron.url, "eth_getBlockByNumber", [`0x${tron.data.first.toString(16)}`, false]);
    expect(Object.keys(b)).toEqual([
      "number",
      "hash",
      "parentHash",
      "miner",
      "timestamp",
      "size",
      "transactionsRoot",
      "stateRoot",
      "transactions",
      "uncles",
      "gasLimit",
      "gasUsed",
      "difficulty",
      "totalDifficulty",
      "extraData",
      "logsBloom",
      "nonce",
      "sha3Uncles",
      "receiptsRoot",
      "mixHash",
      "baseFeePerGas",
    ]);
    expect(b.hash.startsWith("0x0000000003fe1c00")).toBe(true);
    expect(b.logsBloom).toBe(`0x${"00".repeat(256)}`);
    expect(b.stateRoot).toBe("0x");
    expect(b.miner).toMatch(/^0x[0-9a-f]{40}$/);
    // consecutive blocks link
    for (let i = 1; i < tron.data.blocks.length; i++) {
      expect(tron.data.blocks[i].parentHash).toBe(tron.data.blocks[i - 1].hash);
    }
  });

  it("eth_getBlockByNumber: full transactions, tags, null and errors", async () => {
    const withTxs = tron.data.blocks.find((b) => b.transactions.length > 1)!;
    const full = await rpc(tron.url, "eth_getBlockByNumber", [withTxs.number, true]);
    expect(full.transactions.map((t: any) => t.hash)).toEqual(withTxs.transactions);
    expect(full.transactions[0].blockHash).toBe(withTxs.hash);
    expect(full.transactions[0].from).toMatch(/^0x[0-9a-f]{40}$/);

    expect((await rpc(tron.url, "eth_getBlockByNumber", ["latest", false])).number).toBe(
      `0x${tron.data.latest.toString(16)}`,
    );
    expect((await rpc(tron.url, "eth_getBlockByNumber", ["finalized", false])).number).toBe(
      `0x${tron.data.finalized.toString(16)}`,
    );
    const genesis = await rpc(tron.url, "eth_getBlockByNumber", ["earliest", false]);
    expect(genesis.number).toBe("0x0");
    expect(genesis.hash.endsWith("cd8690dc")).toBe(true);

    expect(await rpc(tron.url, "eth_getBlockByNumber", ["0x7fffffff", false])).toBeNull();
    expect(await rpcError(tron.url, "eth_getBlockByNumber", ["pending", false])).toEqual({
      code: -32602,
      message: "TAG pending not supported",
      data: "{}",
    });
    expect((await rpcError(tron.url, "eth_getBlockByNumber", ["0xzz", false])).message).toBe(
      "invalid block number",
    );
    expect((await rpcError(tron.url, "eth_getBlockByNumber", ["latest"])).code).toBe(-32602);
  });

  it("eth_getBlockByHash finds blocks, null for unknown, -32602 for malformed", async () => {
    const b = tron.data.blocks[5];
    expect(await rpc(tron.url, "eth_getBlockByHash", [b.hash, false])).toEqual(b);
    expect(await rpc(tron.url, "eth_getBlockByHash", [`0x${"ab".repeat(32)}`, false])).toBeNull();
    expect(await rpcError(tron.url, "eth_getBlockByHash", ["0x1234", false])).toMatchObject({
      code: -32602,
      message: "invalid hash value",
    });
  });

  it("eth_getTransactionByHash: confirmed, unconfirmed and unknown", async () => {
    const tx = await rpc(tron.url, "eth_getTransactionByHash", [tron.data.txHash]);
    expect(tx).toEqual(tron.data.transactions[tron.data.txHash]);
    expect(tx.to).toBe(tron.data.contractHex20);
    expect(tx.input.startsWith("0xa9059cbb")).toBe(true);
    expect(hashPrefix(tx.blockHash)).toBe(Number(tx.blockNumber));

    const transfer = await rpc(tron.url, "eth_getTransactionByHash", [tron.data.trxTransferTxHash]);
    expect(BigInt(transfer.value)).toBeGreaterThan(0n);
    expect(transfer.input).toBe("0x");

    const pending = await rpc(tron.url, "eth_getTransactionByHash", [tron.data.unconfirmedTxHash]);
    expect(pending).toMatchObject({ blockHash: "0x", blockNumber: "0x", transactionIndex: "0x", gas: "0x0" });

    expect(await rpc(tron.url, "eth_getTransactionByHash", [`0x${"cd".repeat(32)}`])).toBeNull();
  });

  it("eth_getTransactionReceipt carries energy and logs; null when unconfirmed", async () => {
    const r = await rpc(tron.url, "eth_getTransactionReceipt", [tron.data.txHash]);
    expect(r.status).toBe("0x1");
    expect(r.gasUsed).toBe(tron.data.transactions[tron.data.txHash].gas);
    expect(BigInt(r.cumulativeGasUsed)).toBeGreaterThanOrEqual(BigInt(r.gasUsed));
    expect(r.logsBloom).toBe(`0x${"00".repeat(256)}`);
    expect(r.logs).toHaveLength(1);
    expect(r.logs[0].topics[0]).toBe(tron.data.topics.transfer);
    expect(r.logs[0].address).toBe(tron.data.contractHex20);
    expect(await rpc(tron.url, "eth_getTransactionReceipt", [tron.data.unconfirmedTxHash])).toBeNull();
  });

  describe("eth_getLogs", () => {
    const range = () => ({
      fromBlock: `0x${tron.data.first.toString(16)}`,
      toBlock: `0x${tron.data.latest.toString(16)}`,
    });

    it("filters by 20-byte address, single or list", async () => {
      const mine = tron.data.logs.filter((l) => l.address === tron.data.contractHex20);
      expect(mine.length).toBeGreaterThan(3);
      expect(await rpc(tron.url, "eth_getLogs", [{ ...range(), address: tron.data.contractHex20 }])).toEqual(
        mine,
      );
      const both = await rpc(tron.url, "eth_getLogs", [
        { ...range(), address: [tron.data.contractHex20, tron.data.otherContractHex20] },
      ]);
      expect(both).toEqual(tron.data.logs);
      for (const l of both) expect(hashPrefix(l.blockHash)).toBe(Number(l.blockNumber));
    });

    it("rejects base58 and (like java-tron's LogFilter) the 41-prefixed form", async () => {
      const b58 = await rpcError(tron.url, "eth_getLogs", [
        { ...range(), address: tron.data.contractBase58 },
      ]);
      expect(b58.code).toBe(-32602);
      expect(b58.message).toMatch(/Hex string/);
      const t41 = await rpcError(tron.url, "eth_getLogs", [{ ...range(), address: tron.data.contractHex21 }]);
      expect(t41).toMatchObject({ code: -32602, message: `invalid address: ${tron.data.contractHex21}` });
      const inList = await rpcError(tron.url, "eth_getLogs", [
        { ...range(), address: [tron.data.contractHex20, `0x${tron.data.contractHex21}`] },
      ]);
      expect(inList.message).toBe(`invalid address at index 1: 0x${tron.data.contractHex21}`);
    });

    it("accepts the 41-prefixed form when told to", async () => {
      const lax = await startTronFixture({ acceptTronHexInLogs: true });
      try {
        const got = await rpc(lax.url, "eth_getLogs", [{ ...range(), address: lax.data.contractHex21 }]);
        expect(got.length).toBe(lax.data.logs.filter((l) => l.address === lax.data.contractHex20).length);
      } finally {
        await lax.stop();
      }
    });

    it("matches topics by position with null wildcards and OR lists", async () => {
      const { transfer, approval, sync } = tron.data.topics;
      const transfers = tron.data.logs.filter((l) => l.topics[0] === transfer);
      expect(await rpc(tron.url, "eth_getLogs", [{ ...range(), topics: [transfer] }])).toEqual(transfers);

      const or = await rpc(tron.url, "eth_getLogs", [{ ...range(), topics: [[transfer, approval]] }]);
      expect(or).toEqual(tron.data.logs.filter((l) => l.topics[0] === transfer || l.topics[0] === approval));

      const sender = transfers[0].topics[1];
      const bySender = await rpc(tron.url, "eth_getLogs", [{ ...range(), topics: [null, sender] }]);
      expect(bySender).toEqual(tron.data.logs.filter((l) => l.topics.length > 1 && l.topics[1] === sender));
      expect(bySender.length).toBeGreaterThan(0);

      // Sync logs have one topic: a filter with a second slot (even a wildcard) cannot match them.
      expect(await rpc(tron.url, "eth_getLogs", [{ ...range(), topics: [sync, null] }])).toEqual([]);
      expect((await rpc(tron.url, "eth_getLogs", [{ ...range(), topics: [sync] }])).length).toBeGreaterThan(
        0,
      );
    });

    it("takes tags and blockHash; default range is the head block", async () => {
      const head = await rpc(tron.url, "eth_getLogs", [{}]);
      expect(head).toEqual(tron.data.logs.filter((l) => Number(l.blockNumber) === tron.data.latest));
      const withLogs = tron.data.logs[0];
      const byHash = await rpc(tron.url, "eth_getLogs", [{ blockHash: withLogs.blockHash }]);
      expect(byHash).toEqual(tron.data.logs.filter((l) => l.blockHash === withLogs.blockHash));
      const all = await rpc(tron.url, "eth_getLogs", [{ fromBlock: range().fromBlock, toBlock: "latest" }]);
      expect(all).toEqual(tron.data.logs);
    });

    it("answers java-tron's parameter errors", async () => {
      const t = tron.data.topics.transfer;
      const cases: [Record<string, unknown>, string][] = [
        [{ fromBlock: "0x1", toBlock: "latest" }, "exceed max block range: 5000"],
        [{ ...range(), topics: [t, null, null, null, null] }, "topics size should be <= 4"],
        [{ fromBlock: "pending" }, "TAG pending not supported"],
        [{ fromBlock: range().toBlock, toBlock: range().fromBlock }, "please verify: fromBlock <= toBlock"],
        [{ ...range(), topics: ["0x1234"] }, "invalid topic(s): 0x1234"],
        [
          { fromBlock: range().fromBlock, blockHash: tron.data.blocks[0].hash },
          "cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other",
        ],
      ];
      for (const [filter, message] of cases) {
        expect(await rpcError(tron.url, "eth_getLogs", [filter])).toEqual({
          code: -32602,
          message,
          data: "{}",
        });
      }
      // 5000 blocks exactly is allowed
      const from = `0x${(tron.data.latest - 5000).toString(16)}`;
      expect(
        Array.isArray(await rpc(tron.url, "eth_getLogs", [{ fromBlock: from, toBlock: "latest" }])),
      ).toBe(true);
    });
  });

  describe("eth_call and eth_estimateGas", () => {
    const call = (data: string, to = tron.data.contractHex20) => ({ to, data });

    it("returns uint256 and string results; accepts the 41-prefixed address", async () => {
      const c = tron.data.call;
      const balanceOf = c.balanceOfSelector + word(1).slice(2);
      expect(await rpc(tron.url, "eth_call", [call(balanceOf), "latest"])).toBe(c.balanceOfResult);
      expect(
        await rpc(tron.url, "eth_call", [call(c.symbolSelector, tron.data.contractHex21), "latest"]),
      ).toBe(c.symbolResult);
      expect(await rpc(tron.url, "eth_estimateGas", [call(balanceOf)])).toBe(c.estimateEnergy);
    });

    it("reverts with -32000 'REVERT opcode executed: <reason>' and the revert bytes", async () => {
      const c = tron.data.call;
      const err = await rpcError(tron.url, "eth_call", [call(c.revertSelector + word(5).slice(2)), "latest"]);
      expect(err).toEqual({
        code: -32000,
        message: `REVERT opcode executed: ${c.revertReason}`,
        data: c.revertData,
      });
      expect(String(err.data).startsWith("0x08c379a0")).toBe(true);
      const est = await rpcError(tron.url, "eth_estimateGas", [call(c.revertSelector)]);
      expect(est.code).toBe(-32000);
    });

    it("accepts only the latest tag", async () => {
      const c = tron.data.call;
      expect(await rpcError(tron.url, "eth_call", [call(c.symbolSelector), "pending"])).toMatchObject({
        code: -32602,
        message: "TAG [earliest | pending | finalized | safe] not supported",
      });
      expect((await rpcError(tron.url, "eth_call", [call(c.symbolSelector), "0x10"])).message).toBe(
        "QUANTITY not supported, just support TAG as latest",
      );
    });

    it("rejects a base58 address", async () => {
      const err = await rpcError(tron.url, "eth_call", [
        call("0x95d89b41", tron.data.contractBase58),
        "latest",
      ]);
      expect(err.code).toBe(-32602);
      expect(err.message).toBe("exception decoding Hex string: invalid characters encountered in Hex string");
    });
  });

  it("unknown method, batches and hit counting", async () => {
    expect(await rpcError(tron.url, "eth_frobnicate")).toEqual({ code: -32601, message: "method not found" });
    expect((await rpcError(tron.url, "eth_sendRawTransaction", ["0x00"])).message).toBe(
      "the method eth_sendRawTransaction does not exist/is not available",
    );

    const hitsBefore = tron.hits;
    const chainIdBefore = tron.hitsByMethod.eth_chainId ?? 0;
    const reply = await post(tron.url, [
      { jsonrpc: "2.0", id: 7, method: "eth_chainId", params: [] },
      { jsonrpc: "2.0", id: 8, method: "eth_getBlockByNumber", params: ["pending", false] },
    ]);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([
      { jsonrpc: "2.0", id: 7, result: "0xcd8690dc" },
      { jsonrpc: "2.0", id: 8, error: { code: -32602, message: "TAG pending not supported", data: "{}" } },
    ]);
    expect(tron.hits).toBe(hitsBefore + 1);
    expect(tron.hitsByMethod.eth_chainId).toBe(chainIdBefore + 1);
    expect(Array.isArray(tron.lastRequests.at(-1))).toBe(true);
    expect(tron.lastRequests.length).toBeLessThanOrEqual(100);

    const parse = await post(tron.url, "not json").catch(() => null);
    expect(parse).not.toBeNull();
  });
});

describe("tron fixture with a lying block", () => {
  it("returns a hash whose prefix is not the block number, by number and by hash", async () => {
    const lyingBlock = 0x3fe1c03;
    const tron = await startTronFixture({ lyingBlock });
    try {
      const lie = tron.data.lying!;
      expect(lie.number).toBe(lyingBlock);
      const byNumber = await rpc(tron.url, "eth_getBlockByNumber", [`0x${lyingBlock.toString(16)}`, false]);
      expect(byNumber.hash).toBe(lie.returnedHash);
      expect(hashPrefix(byNumber.hash)).not.toBe(lyingBlock);
      const byTrueHash = await rpc(tron.url, "eth_getBlockByHash", [lie.trueHash, false]);
      expect(byTrueHash.hash).toBe(lie.returnedHash);
      expect(hashPrefix(byTrueHash.hash)).not.toBe(Number(byTrueHash.number));
      const byReturned = await rpc(tron.url, "eth_getBlockByHash", [lie.returnedHash, true]);
      expect(Number(byReturned.number)).toBe(lyingBlock);
      // neighbours are honest
      const next = await rpc(tron.url, "eth_getBlockByNumber", [`0x${(lyingBlock + 1).toString(16)}`, false]);
      expect(hashPrefix(next.hash)).toBe(lyingBlock + 1);
    } finally {
      await tron.stop();
    }
  });
});

describe("tronaddr", () => {
  // Pairs published in TRON material: wallet-cli's `encoding convert` doc page, java-tron's docs
  // (Nile USDT in the eth_call example), mainnet USDT, and the all-zero address.
  const pairs: [string, string][] = [
    ["TBhCfAytTEh52WFL6HYr64i2nmc3u3TCUp", "0x12e94f5a3c88b17d2f6e0b9a45cd310f8e7a6d29"],
    ["TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf", "0xeca9bc828a3005b9a3b909f2cc5c2a54794de05f"],
    ["TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "0xa614f803b6fd780986a42c78ec9c7f77e6ded13c"],
    ["TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL", "0x8840e6c55b9ada326d211d818c34a994aeced808"],
    ["T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb", "0x0000000000000000000000000000000000000000"],
  ];

  it("converts known pairs both ways", () => {
    for (const [b58, hex] of pairs) {
      expect(tronBase58ToHex(b58)).toBe(hex);
      expect(tronHexToBase58(hex)).toBe(b58);
      expect(tronHexToBase58(`41${hex.slice(2)}`)).toBe(b58);
    }
  });

  it("round-trips pseudo-random addresses", () => {
    for (let i = 0; i < 50; i++) {
      const hex = `0x${Array.from({ length: 20 }, (_, j) => ((i * 37 + j * 101) & 0xff).toString(16).padStart(2, "0")).join("")}`;
      const b58 = tronHexToBase58(hex);
      expect(b58.startsWith("T")).toBe(true);
      expect(tronBase58ToHex(b58)).toBe(hex);
    }
  });

  it("rejects bad input", () => {
    expect(() => tronBase58ToHex("TBhCfAytTEh52WFL6HYr64i2nmc3u3TCUq")).toThrow(/checksum/);
    expect(() => tronBase58ToHex("0BhCfAytTEh52WFL6HYr64i2nmc3u3TCUp")).toThrow(/base58/);
    // a valid base58check string with another version byte (Bitcoin P2PKH, version 0x00)
    expect(() => tronBase58ToHex("1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2")).toThrow();
    expect(() => tronHexToBase58("0x1234")).toThrow(/20 bytes/);
    expect(() => tronHexToBase58(`42${"00".repeat(20)}`)).toThrow(/41/);
  });

  it("agrees with the fixture's contract address", async () => {
    const tron = await startTronFixture();
    try {
      expect(tronHexToBase58(tron.data.contractHex20)).toBe(tron.data.contractBase58);
      expect(tronBase58ToHex(tron.data.contractBase58)).toBe(tron.data.contractHex20);
    } finally {
      await tron.stop();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The hand-assembled contract, validated on a real anvil
// ---------------------------------------------------------------------------------------------

describe("evmContract on anvil", () => {
  let anvil: AnvilNode | undefined;
  let url = "";
  const call = (method: string, params: unknown[] = []) => rpc(url, method, params);

  // started by the helpers: ready when it answers, for as long as it runs
  beforeAll(async () => {
    anvil = await startAnvil();
    url = anvil.url;
  });

  afterAll(async () => {
    await anvil?.stop();
  });

  it("exports the expected constants", () => {
    expect(INIT_CODE).toMatch(/^0x[0-9a-f]+$/);
    expect([SEL_PING, SEL_REVERT, SEL_GET]).toEqual(["0x12345678", "0xdeadbeef", "0x6d4ce63c"]);
    expect(PING_TOPIC0).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("deploys, pings three times, and eth_getLogs finds the logs", async () => {
    const res = await deployAndPing(call);
    expect(res.contract).toMatch(/^0x[0-9a-f]{40}$/);
    expect(res.pingTxs).toHaveLength(3);
    expect(await call("eth_getCode", [res.contract, "latest"])).not.toBe("0x");

    const logs = await call("eth_getLogs", [{ fromBlock: "0x0", toBlock: "latest", address: res.contract }]);
    expect(logs).toHaveLength(3);
    logs.forEach((log: any, i: number) => {
      expect(log.topics).toEqual([PING_TOPIC0, PING_TOPIC1S[i]]);
      expect(log.data).toBe(word(42));
      expect(log.transactionHash).toBe(res.pingTxs[i]);
    });
    const second = await call("eth_getLogs", [
      { fromBlock: "0x0", toBlock: "latest", address: res.contract, topics: [PING_TOPIC0, PING_TOPIC1S[1]] },
    ]);
    expect(second).toHaveLength(1);

    expect(await call("eth_call", [{ to: res.contract, data: SEL_GET }, "latest"])).toBe(word(42));
    expect(await call("eth_call", [{ to: res.contract, data: "0x" }, "latest"])).toBe(word(42));

    const reply = await rpcRaw(url, "eth_call", [{ to: res.contract, data: SEL_REVERT }, "latest"]);
    expect(reply.body.error.code).toBe(3);
    expect(reply.body.error.message).toContain(REVERT_REASON);
    expect(String(reply.body.error.data).startsWith("0x08c379a0")).toBe(true);
  });
});
