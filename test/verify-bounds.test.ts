/**
 * `reserves verify` of a UTXO proof while the chain moves, and against proofs that ask for unbounded work
 * (issue 55, item 6), on a real litecoind -regtest:
 *  - the spend walk above the proof's height reads at most `--walk` blocks (a counting proxy in front of the
 *    node counts getblock): an output spent beyond it is "cannot say" (exit 3) naming the cap, the heights
 *    walked and how to raise it; raised, the spend is found and the proof holds; "spent at or before the
 *    proof's height" (fails) only where the walk reached the tip;
 *  - a block mined while the verifier runs (between its node step and gettxout, by a real HTTP proxy in front
 *    of the node that spends the proof's output and mines just before forwarding gettxout) never fails a
 *    valid proof: the spend above the proof's height is found; a forged proof whose output was spent at its
 *    own height still does not hold with the same proxy;
 *  - a ranged descriptor's range is bounded as `reserves scan --range` is (each range, and all of a proof's
 *    ranges together, at most 1,000,000 keys): a small hostile proof is exit 2 naming the field, nothing
 *    sent to the node; the honest ranged proof beside it holds.
 */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestOf } from "../src/proof/jcs.js";
import { entryProxy, type RawServer, rawServer, sendJson } from "./fixtures/forward.js";
import { runCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { trackDir } from "./helpers/procs.js";

/** BIP-32 test vector 1's master key in regtest form (Bitcoin Core's rpc_deriveaddresses.py uses it) */
const TPRV =
  "tprv8ZgxMBicQKsPd7Uf69XL1XwhmjHopUGep8GuEiJDZmbQz6o58LninorQAfcKZWARbtRtfnLcJ5MQ2AtHcQJCCRUcMRvmDUjyEmNUWwx8UbK";

let ltc: LitecoinNode;
let dir: string;
let proofFile: string;
let rangedFile: string;

const read = (f: string) => JSON.parse(readFileSync(f, "utf8"));

/** `base` with `edit` applied, the digest recomputed, written to a new file */
function forged(base: string, edit: (d: any) => void): string {
  const d = read(base);
  edit(d);
  const { digest: _, ...body } = d;
  d.digest = digestOf(body);
  const f = join(dir, `forged-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(f, JSON.stringify(d));
  return f;
}

/** Spends `txid:vout` (all but a fee) to a fresh address and mines the block that holds the spend: its height. */
async function spendAndMine(txid: string, vout: number, amount: number): Promise<number> {
  const to = await ltc.newAddress();
  const raw = await ltc.rpc<string>("createrawtransaction", [
    [{ txid, vout }],
    { [to]: Number((amount - 0.001).toFixed(8)) },
  ]);
  const signed = await ltc.rpc<{ hex: string }>("signrawtransactionwithwallet", [raw]);
  await ltc.rpc("sendrawtransaction", [signed.hex]);
  await ltc.mine(1);
  return ltc.rpc<number>("getblockcount");
}

/**
 * A proxy in front of the node that, the first time the verifier asks gettxout, spends `outpoint` and mines
 * a block (the chain moving during verification), then forwards the call; every other call forwarded.
 */
async function movingProxy(outpoint: { txid: string; vout: number; amount: number }) {
  const moved: { height?: number } = {};
  const server: RawServer = await entryProxy(async (e) => {
    if (e.method === "gettxout" && moved.height === undefined) {
      moved.height = -1;
      moved.height = await spendAndMine(outpoint.txid, outpoint.vout, outpoint.amount);
    }
    return JSON.parse((await ltc.rawCall(JSON.stringify(e))).text);
  });
  return { server, moved };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-bounds-"));
  trackDir(dir);
  ltc = await startLitecoind({ blocks: 110 });
  const holder = await ltc.newAddress();
  const desc = (await ltc.rpc<any>("getdescriptorinfo", [`wpkh(${TPRV}/0/*)`])).descriptor as string;
  const derived = await ltc.rpc<string[]>("deriveaddresses", [desc, [0, 4]]);
  await ltc.rpc("sendmany", ["", { [holder]: 1.5, [derived[3] as string]: 0.4 }]);
  await ltc.mine(1);
  proofFile = join(dir, "proof.json");
  const r = await runCli(["--url", ltc.authUrl, "reserves", "scan", holder, "--proof", proofFile]);
  expect(r.stderr).toBe("");
  rangedFile = join(dir, "ranged.json");
  const d = await runCli([
    "--url",
    ltc.authUrl,
    "reserves",
    "scan",
    "--descriptor",
    `wpkh(${TPRV}/0/*)`,
    "--range",
    "0..9",
    "--proof",
    rangedFile,
  ]);
  expect(d.stderr).toBe("");
});

afterAll(async () => {
  await ltc?.stop();
});

describe("a block mined while reserves verify runs", () => {
  it("the output spent in a block mined between the node step and gettxout is found above the proof's height: holds; a proof dated at the spend's height does not hold", async () => {
    const proof = read(proofFile);
    const out = proof.outputs[0];
    const tipBefore = await ltc.rpc<number>("getblockcount");
    const { server, moved } = await movingProxy({
      txid: out.txid,
      vout: out.vout,
      amount: Number(out.amount),
    });
    try {
      const r = await runCli(["--url", server.url, "--json", "reserves", "verify", proofFile]);
      expect(r.stderr).toBe("");
      expect(r.exitCode).toBe(0);
      const rep = JSON.parse(r.stdout);
      // the spend is in the block mined during the run, above the tip the node step read
      expect(moved.height).toBe(tipBefore + 1);
      expect(rep.node.tip).toBe(tipBefore);
      expect(rep.verdict).toBe("holds");
      expect(rep.outputs[0]).toMatchObject({ state: "spent-after", spentAt: tipBefore + 1 });
    } finally {
      await server.close();
    }
    // the forger's control: the same output claimed unspent at the height of the block that spent it, the
    // digest recomputed; the chain moving again during the run must not rescue it
    const spentAt = tipBefore + 1;
    const hash = await ltc.rpc<string>("getblockhash", [spentAt]);
    const late = forged(proofFile, (d) => {
      d.height = spentAt;
      d.block_hash = hash;
    });
    const other = await ltc.rpc<any>("listunspent", [1]);
    const coin = other.find((u: any) => u.amount > 1);
    const again = await movingProxy({ txid: coin.txid, vout: coin.vout, amount: coin.amount });
    try {
      const r = await runCli(["--url", again.server.url, "--json", "reserves", "verify", late]);
      expect(r.exitCode).toBe(1);
      const rep = JSON.parse(r.stdout);
      expect(again.moved.height).toBe(spentAt + 1);
      expect(rep.verdict).toBe("fails");
      expect(rep.outputs[0].detail).toBe(
        `spent, and not in any block above the proof's height (up to ${spentAt + 1}): it was spent at or before height ${spentAt}`,
      );
    } finally {
      await again.server.close();
    }
  });
});

describe("a proof's descriptor ranges are bounded", () => {
  it("a small proof whose range spans 2^31 keys is exit 2 naming the field, nothing sent; the honest ranged proof beside it holds", async () => {
    const counted = await entryProxy(async (e) => JSON.parse((await ltc.rawCall(JSON.stringify(e))).text));
    try {
      const honest = await runCli(["--url", counted.url, "--json", "reserves", "verify", rangedFile]);
      expect(honest.stderr).toBe("");
      expect(JSON.parse(honest.stdout).verdict).toBe("holds");
      const asked = counted.hits;
      expect(asked).toBeGreaterThan(0);
      const hostile = forged(rangedFile, (d) => {
        d.scan_objects[0].range = [0, 2 ** 31 - 1];
      });
      expect(statSync(hostile).size).toBeLessThan(2000);
      const r = await runCli(["--url", counted.url, "reserves", "verify", hostile]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain("scan_objects[0].range");
      expect(r.stderr).toContain("[0, 2147483647] spans 2,147,483,648 keys; at most 1,000,000");
      expect(r.stderr).toContain("nothing was sent");
      const beyond = forged(rangedFile, (d) => {
        d.scan_objects[0].range = [2 ** 31 - 5, 2 ** 31 + 4];
      });
      const b = await runCli(["--url", counted.url, "reserves", "verify", beyond]);
      expect(b.exitCode).toBe(2);
      expect(b.stderr).toContain(
        "scan_objects[0].range: end 2147483652: a descriptor's indexes end below 2^31",
      );
      const wide = forged(rangedFile, (d) => {
        d.scan_objects[0].range = [0, 1_000_000];
      });
      const w = await runCli(["--url", counted.url, "reserves", "verify", wide]);
      expect(w.exitCode).toBe(2);
      expect(w.stderr).toContain(
        "scan_objects[0].range: [0, 1000000] spans 1,000,001 keys; at most 1,000,000",
      );
      // each range within the node's limit, together beyond it
      const many = forged(rangedFile, (d) => {
        const o = d.scan_objects[0];
        d.scan_objects = [0, 1, 2].map((k) => ({ desc: o.desc, range: [k, k + 499_999] }));
      });
      const m = await runCli(["--url", counted.url, "reserves", "verify", many]);
      expect(m.exitCode).toBe(2);
      expect(m.stderr).toContain("scan_objects: its ranged descriptors span 1,500,000 keys");
      // none of the three reached the node
      expect(counted.hits).toBe(asked);
    } finally {
      await counted.close();
    }
  });

  it("reserves scan refuses ranges that together span more than a proof may, nothing sent", async () => {
    const r = await runCli([
      "--url",
      "http://127.0.0.1:9/",
      "reserves",
      "scan",
      "--descriptor",
      `wpkh(${TPRV}/0/*)`,
      "--descriptor",
      `wpkh(${TPRV}/1/*)`,
      "--range",
      "0..999999",
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("the ranged descriptors span 2,000,000 keys in all; at most 1,000,000");
  });
});

/** A proxy in front of the node that counts the calls of each method (batch entries one by one). */
async function countingProxy() {
  const calls = new Map<string, number>();
  const server = await entryProxy(async (e) => {
    calls.set(e.method, (calls.get(e.method) ?? 0) + 1);
    return JSON.parse((await ltc.rawCall(JSON.stringify(e))).text);
  });
  return { server, calls, reset: () => calls.clear() };
}

describe("the spend walk is bounded by --walk, not by the chain", () => {
  it("an output spent 7 blocks above the proof: --walk 3 cannot say (exit 3) naming the cap, the heights and how to raise it, 3 getblock calls; --walk 7 and the default find the spend: holds; a forged proof whose output was spent at its height fails only where the walk reached the tip", async () => {
    const q = await ltc.newAddress();
    await ltc.rpc("sendtoaddress", [q, 0.7]);
    await ltc.mine(1);
    const f = join(dir, "walk.json");
    const s = await runCli(["--url", ltc.authUrl, "reserves", "scan", q, "--proof", f]);
    expect(s.stderr).toBe("");
    const proof = read(f);
    const H = proof.height as number;
    const out = proof.outputs[0];
    await ltc.mine(6);
    const spentAt = await spendAndMine(out.txid, out.vout, Number(out.amount));
    expect(spentAt).toBe(H + 7);
    await ltc.mine(2);
    const tip = H + 9;
    expect(await ltc.rpc<number>("getblockcount")).toBe(tip);
    const p = await countingProxy();
    try {
      const capped = await runCli(["--url", p.server.url, "--json", "reserves", "verify", f, "--walk", "3"]);
      expect(capped.stderr).toBe("");
      expect(capped.exitCode).toBe(3);
      const rep = JSON.parse(capped.stdout);
      expect(rep.verdict).toBe("cannot-say");
      const detail = `spent since, and not in the 3 blocks walked above the proof's height (heights ${H + 1} to ${H + 3}, the most --walk 3 reads; the tip is ${tip}): cannot say whether it was spent after the proof's height; --walk 9 walks to the tip`;
      expect(rep.outputs[0]).toMatchObject({ state: "unknown", detail });
      expect(rep.walked).toEqual({ blocks: 3, from: H + 1, to: H + 3, limit: 3 });
      expect(rep.cannot_say).toEqual([`output ${out.txid}:${out.vout} (${out.amount}, ${q}): ${detail}`]);
      // bounded by the cap: 3 blocks read, not the 9 up to the tip
      expect(p.calls.get("getblock")).toBe(3);
      // the text form says the same
      p.reset();
      const text = await runCli(["--url", p.server.url, "reserves", "verify", f, "--walk", "3"]);
      expect(text.exitCode).toBe(3);
      expect(text.stdout).toContain(detail);
      expect(p.calls.get("getblock")).toBe(3);
      // --walk 0: no block read at all
      p.reset();
      const none = await runCli(["--url", p.server.url, "--json", "reserves", "verify", f, "--walk", "0"]);
      expect(none.exitCode).toBe(3);
      expect(JSON.parse(none.stdout).outputs[0].detail).toBe(
        `spent since, and no block above the proof's height walked (--walk 0; the tip is ${tip}): cannot say whether it was spent after the proof's height; --walk 9 walks to the tip`,
      );
      expect(p.calls.get("getblock")).toBeUndefined();
      // the cap raised to the distance, and the default: the spend is found, the walk stops there
      // (the default reads the whole first array of 8; --walk 7 stops at the 7th)
      for (const [more, blocks] of [
        [["--walk", "7"], 7],
        [[], 8],
      ] as const) {
        p.reset();
        const found = await runCli(["--url", p.server.url, "--json", "reserves", "verify", f, ...more]);
        expect(found.stderr).toBe("");
        expect(found.exitCode).toBe(0);
        const r = JSON.parse(found.stdout);
        expect(r.verdict).toBe("holds");
        expect(r.outputs[0]).toMatchObject({ state: "spent-after", spentAt });
        expect(r.walked).toMatchObject({ blocks, from: H + 1, to: H + blocks });
        expect(p.calls.get("getblock")).toBe(blocks);
      }
      // the forger's proof: the output claimed unspent at the height of the block that spent it. Within the
      // cap's reach of the tip the walk reaches it: fails; with the cap below the tip: cannot say, never holds
      const hash = await ltc.rpc<string>("getblockhash", [spentAt]);
      const atSpend = forged(f, (d) => {
        d.height = spentAt;
        d.block_hash = hash;
      });
      p.reset();
      const reached = await runCli(["--url", p.server.url, "--json", "reserves", "verify", atSpend]);
      expect(reached.exitCode).toBe(1);
      expect(JSON.parse(reached.stdout).outputs[0].detail).toBe(
        `spent, and not in any block above the proof's height (up to ${tip}): it was spent at or before height ${spentAt}`,
      );
      expect(p.calls.get("getblock")).toBe(2);
      p.reset();
      const short = await runCli([
        "--url",
        p.server.url,
        "--json",
        "reserves",
        "verify",
        atSpend,
        "--walk",
        "1",
      ]);
      expect(short.exitCode).toBe(3);
      expect(JSON.parse(short.stdout).outputs[0].detail).toBe(
        `spent since, and not in the 1 block walked above the proof's height (heights ${spentAt + 1} to ${spentAt + 1}, the most --walk 1 reads; the tip is ${tip}): cannot say whether it was spent after the proof's height; --walk 2 walks to the tip`,
      );
      expect(p.calls.get("getblock")).toBe(1);
    } finally {
      await p.server.close();
    }
  });

  it("the proof's block on a branch the node left: the branch is walked down at most --walk headers; uncapped here (3 headers) it names where the chains part", async () => {
    const q = await ltc.newAddress();
    await ltc.rpc("sendtoaddress", [q, 0.2]);
    await ltc.mine(3);
    const f = join(dir, "branch.json");
    const s = await runCli(["--url", ltc.authUrl, "reserves", "scan", q, "--proof", f]);
    expect(s.stderr).toBe("");
    const P = read(f).height as number;
    // the node leaves the branch P-2..P for a longer one
    const fork = await ltc.rpc<string>("getblockhash", [P - 2]);
    await ltc.rpc("invalidateblock", [fork]);
    const p = await countingProxy();
    try {
      await ltc.mine(5);
      const all = await runCli(["--url", p.server.url, "--json", "reserves", "verify", f]);
      expect(all.exitCode).toBe(1);
      expect(JSON.parse(all.stdout).block.detail).toMatch(
        new RegExp(`a branch that parts from it above height ${P - 3} \\(block [0-9a-f]{64}\\)$`),
      );
      const uncapped = p.calls.get("getblockheader") ?? 0;
      p.reset();
      const capped = await runCli(["--url", p.server.url, "--json", "reserves", "verify", f, "--walk", "1"]);
      expect(capped.exitCode).toBe(1);
      expect(JSON.parse(capped.stdout).block.detail).toMatch(
        new RegExp(
          `a branch that parts from it below height ${P - 1} \\(block [0-9a-f]{64}, reached 1 header down, the most --walk 1 reads\\)$`,
        ),
      );
      // the branch's other two headers not read
      expect(p.calls.get("getblockheader")).toBe(uncapped - 2);
    } finally {
      await p.server.close();
      await ltc.rpc("reconsiderblock", [fork]);
    }
  });

  it("--walk is read strictly: not a whole number, or without --verify: exit 2, nothing sent", async () => {
    const bad = await runCli([
      "--url",
      "http://127.0.0.1:9/",
      "reserves",
      "verify",
      proofFile,
      "--walk",
      "-1",
    ]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('invalid --walk: expected a whole number from 0 to 100000000, got "-1"');
    const report = await runCli(["reserves", "report", proofFile, "--walk", "5"]);
    expect(report.exitCode).toBe(2);
    expect(report.stderr).toContain(
      "--walk bounds what --verify reads above a UTXO proof's height: give --verify too",
    );
  });
});

describe("--walk where there is no UTXO spend walk: refused by name (exit 2), nothing sent", () => {
  const HTX = join(import.meta.dirname, "fixtures/exchange/ownership/huobi_por_2023-08.csv");
  const LIABILITIES = join(import.meta.dirname, "fixtures/exchange/liabilities/binance-config.json");

  it("on an EVM proof, on an exchange's address file (reserves verify), and in solvency's exchange path: exit 2 naming --walk, 0 requests to the node given", async () => {
    // a counting loopback node: any request at all is a failure of the refusal
    const node = await rawServer((_b, _r, res) => sendJson(res, 500, '{"error":"nothing should be sent"}'));
    try {
      const evm = join(dir, "walk-evm.json");
      writeFileSync(evm, JSON.stringify({ format: "chaingw-evm-balances-proof/1" }));
      const onEvm = await runCli(["--url", node.url, "reserves", "verify", evm, "--walk", "5"]);
      expect(onEvm.exitCode, onEvm.stderr).toBe(2);
      expect(onEvm.stderr).toContain(
        "--walk bounds the spend walk of a UTXO proof (chaingw-reserves-proof); this file is not one",
      );
      const onFile = await runCli(["reserves", "verify", HTX, "--walk", "5", "--node", `LTC=${node.url}`]);
      expect(onFile.exitCode, onFile.stderr).toBe(2);
      expect(onFile.stderr).toContain(
        "--walk bounds the spend walk of a UTXO proof (chaingw-reserves-proof); this file is not one",
      );
      const solvency = await runCli([
        "solvency",
        "--liabilities",
        LIABILITIES,
        "--reserves",
        HTX,
        "--walk",
        "5",
        "--node",
        `LTC=${node.url}`,
      ]);
      expect(solvency.exitCode, solvency.stderr).toBe(2);
      expect(solvency.stderr).toContain(
        "--walk: an exchange's address file is judged with --node NET=URL (its rows re-read at the snapshot) and its coins by --backing or chaingw's tables; leave --walk out",
      );
      expect(node.hits).toBe(0);
    } finally {
      await node.close();
    }
  });
});
