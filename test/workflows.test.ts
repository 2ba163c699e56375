/**
 * The workflows without the command line: a reserves scan and a batch run built from plain function
 * calls against a real litecoind -regtest (no argv, no process streams), as a second front end (a report
 * generator, `serve`) would use them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { itemsFromLines } from "../src/batch/input.js";
import { runItems } from "../src/batch/run.js";
import { type ReservesEvent, scanReserves } from "../src/reserves/utxo/run.js";
import { JsonRpcClient } from "../src/rpc/client.js";
import { nodeEndpoint } from "../src/rpc/endpoint.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";

let ltc: LitecoinNode;
let client: JsonRpcClient;
const funded: string[] = [];

beforeAll(async () => {
  ltc = await startLitecoind({ blocks: 101 });
  funded.push(await ltc.newAddress(), await ltc.newAddress());
  // one payment to both: a later send could spend the first output as its input
  await ltc.rpc("sendmany", ["", { [funded[0]]: 1.5, [funded[1]]: 0.00012345 }]);
  await ltc.mine(1);
  client = new JsonRpcClient({
    endpoints: [nodeEndpoint(ltc.authUrl)],
    connectTimeoutMs: 2000,
    requestTimeoutMs: 30_000,
    deadlineMs: 60_000,
    retries: 0,
    maxBodyBytes: 64 * 1024 * 1024,
    verifyTls: true,
    heavyRate: 0,
  });
});

afterAll(async () => {
  await ltc?.stop();
});

describe("workflows as plain function calls", () => {
  it("a reserves scan returns its report as data, with progress as events", async () => {
    const events: ReservesEvent["type"][] = [];
    const report = await scanReserves(
      client,
      { args: funded, descriptors: [], scanTimeoutMs: 60_000, abortWaitMs: 5000, byAddress: true },
      (e) => events.push(e.type),
    );
    expect(report.scan.totalSats).toBe(150_012_345n);
    expect(report.scan.unspents).toHaveLength(2);
    expect(report.holdings?.map((h) => h.sats).sort()).toEqual([12_345n, 150_000_000n]);
    expect(report.scan.height).toBe(await ltc.rpc<number>("getblockcount"));
    expect(events[0]).toBe("scan");
    expect(events.at(-1)).toBe("scan");
  });

  it("a batch run hands its lines to a writer and returns a summary", async () => {
    async function* lines() {
      yield ['{"method":"getblockhash","params":[1],"id":"a"}', '{"method":"getblockcount"}', "not json"];
    }
    const out: string[] = [];
    const progress: number[] = [];
    const s = await runItems(
      client,
      itemsFromLines(lines(), undefined),
      { concurrency: 2, batchSize: 10, scanTimeoutMs: 60_000 },
      (b) => {
        out.push(b.toString());
      },
      (p) => progress.push(p.done),
    );
    const parsed = out
      .join("")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(parsed[0]).toEqual({ id: "a", result: await ltc.rpc("getblockhash", [1]) });
    expect(parsed[1].result).toBe(await ltc.rpc("getblockcount"));
    expect(parsed[2].error.message).toMatch(/line 3: not JSON/);
    expect(s).toMatchObject({ ok: 2, badInput: 1, exitCode: 2 });
    expect(progress.at(-1)).toBe(3);
  });
});
