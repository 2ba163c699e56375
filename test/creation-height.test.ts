/**
 * Issue 35, item 3, creation heights: an output that did not exist at the proof's height cannot hold. Real
 * litecoind: a proof at height h, then a real output to the same address created at h + 2. A forger adds it
 * to the proof (digest and totals recomputed) with its true height (the reader refuses: above the proof's
 * height, exit 2), or with a height at or below h and that block's hash (the transaction is not in that
 * block: does not hold, exit 1); the honest proof holds.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestOf } from "../src/proof/jcs.js";
import { runCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { trackDir } from "./helpers/procs.js";

let node: LitecoinNode;
let dir: string;
let proof: string;
/** the later output, as scantxoutset describes it */
let later: { txid: string; vout: number; amount: number; scriptPubKey: string; height: number };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-created-"));
  trackDir(dir);
  node = await startLitecoind({ blocks: 101 });
  const addr = await node.newAddress();
  await node.rpc("sendtoaddress", [addr, 1]);
  await node.mine(1);
  proof = join(dir, "proof.json");
  const r = await runCli(["--url", node.authUrl, "reserves", "scan", addr, "--proof", proof]);
  expect(r.exitCode, r.stderr).toBe(0);
  await node.mine(1);
  await node.rpc("sendtoaddress", [addr, 20]);
  await node.mine(1);
  const scan = await node.rpc<{ unspents: (typeof later)[] }>("scantxoutset", ["start", [`addr(${addr})`]]);
  later = scan.unspents.find((u) => u.amount === 20)!;
});

afterAll(async () => {
  await node?.stop();
});

/** The proof with the later output added under the same address, everything recomputed. */
async function withLater(height: number): Promise<string> {
  const d = JSON.parse(readFileSync(proof, "utf8"));
  const sats = 2_000_000_000n;
  d.outputs.push({
    txid: later.txid,
    vout: later.vout,
    amount: "20.00000000",
    amount_sats: sats.toString(),
    script_pubkey: later.scriptPubKey,
    matched: d.outputs[0].matched,
    height,
    block_hash: await node.rpc<string>("getblockhash", [height]),
  });
  const add = (x: { amount_sats: string; outputs: number; amount: string }) => {
    x.amount_sats = (BigInt(x.amount_sats) + sats).toString();
    x.amount = `${BigInt(x.amount_sats) / 100_000_000n}.${(BigInt(x.amount_sats) % 100_000_000n).toString().padStart(8, "0")}`;
    x.outputs++;
  };
  add(d.total);
  add(d.by_address[0]);
  const { digest: _, ...rest } = d;
  d.digest = digestOf(rest);
  const f = join(dir, `later-${height}.json`);
  writeFileSync(f, JSON.stringify(d, null, 2));
  return f;
}

describe("an output created after the proof's height (real litecoind)", () => {
  it("control: the honest proof holds", async () => {
    const v = await runCli(["--url", node.authUrl, "reserves", "verify", proof]);
    expect(v.exitCode, v.stdout).toBe(0);
  });

  it("added with its true creation height: refused, above the proof's height (exit 2, nothing sent)", async () => {
    const p = JSON.parse(readFileSync(proof, "utf8"));
    expect(later.height).toBe(p.height + 2);
    const v = await runCli(["--url", node.authUrl, "reserves", "verify", await withLater(later.height)]);
    expect(v.exitCode).toBe(2);
    expect(v.stderr).toContain(`outputs[1].height: ${later.height} is above the proof's height ${p.height}`);
  });

  it("added with the proof's height and that block's hash: the transaction is not there, does not hold (exit 1)", async () => {
    const p = JSON.parse(readFileSync(proof, "utf8"));
    const v = await runCli([
      "--url",
      node.authUrl,
      "--json",
      "reserves",
      "verify",
      await withLater(p.height),
    ]);
    expect(v.exitCode, v.stdout + v.stderr).toBe(1);
    const j = JSON.parse(v.stdout);
    expect(j.failures.join("\n")).toContain(`${later.txid}:${later.vout}`);
    expect(j.failures.join("\n")).toContain(`the transaction is not in block ${p.block_hash}`);
  });
});

/**
 * Issue 45, item 8: a pre-BIP34 coinbase mined twice has one txid in two blocks; the UTXO set holds the later
 * twin only, the first having been spent before it. A proof may name the first (spent) copy at its height —
 * the transaction is in that block, amount and script agree — while gettxout answers for the twin. Regtest
 * cannot mine a duplicate txid, so a loopback proxy in front of the real litecoind answers gettxout for the
 * proof's output as such a node would (confirmations counting from 2 blocks later), everything else
 * forwarded: the check itself is what is tested, beside the honest control on the node itself.
 */
describe("an output's creation height against gettxout's confirmations (duplicated coinbase txid)", () => {
  /** A proxy that answers gettxout for `txid` as if its unspent output were created `later` blocks up. */
  async function twinProxy(txid: string, later: number, header?: "error") {
    const { entryProxy } = await import("./fixtures/forward.js");
    return entryProxy(async (e) => {
      const answer = JSON.parse((await node.rawCall(JSON.stringify(e))).text);
      if (e.method === "gettxout" && e.params?.[0] === txid && answer.result)
        answer.result.confirmations -= later;
      if (e.method === "getblockheader" && header === "error")
        return { jsonrpc: "2.0", id: e.id, result: null, error: { code: -1, message: "Block not found" } };
      return answer;
    });
  }

  it("confirmations that put it 2 blocks above the proof's height: does not hold, both heights named; control holds", async () => {
    const p = JSON.parse(readFileSync(proof, "utf8"));
    const out = p.outputs[0];
    const honest = await runCli(["--url", node.authUrl, "--json", "reserves", "verify", proof]);
    expect(honest.exitCode, honest.stdout + honest.stderr).toBe(0);
    const proxy = await twinProxy(out.txid, 2);
    try {
      const v = await runCli(["--url", proxy.url, "--json", "reserves", "verify", proof]);
      expect(v.exitCode, v.stdout + v.stderr).toBe(1);
      const j = JSON.parse(v.stdout);
      expect(j.failures.join("\n")).toContain(
        `the node's unspent ${out.txid}:${out.vout} was created at height ${out.height + 2}`,
      );
      expect(j.failures.join("\n")).toContain(`not at the proof's height ${out.height}`);
      // the human verdict says so too
      const h = await runCli(["--url", proxy.url, "reserves", "verify", proof]);
      expect(h.exitCode).toBe(1);
      expect(h.stdout).toMatch(/does not hold/i);
      expect(h.stdout).toContain(`created at height ${out.height + 2}`);
    } finally {
      await proxy.close();
    }
  });

  it("a node that cannot say at which height its best block is: cannot say (exit 3), not holds", async () => {
    const p = JSON.parse(readFileSync(proof, "utf8"));
    const proxy = await twinProxy(p.outputs[0].txid, 0, "error");
    try {
      const v = await runCli(["--url", proxy.url, "--json", "reserves", "verify", proof]);
      expect(v.exitCode, v.stdout + v.stderr).toBe(3);
      expect(JSON.parse(v.stdout).cannot_say.join("\n")).toContain("do not say where it was created");
    } finally {
      await proxy.close();
    }
  });
});
