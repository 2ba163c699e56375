/**
 * `reserves verify` of a UTXO proof while the chain moves, and against proofs that ask for unbounded work
 * (issue 55, item 6), on a real litecoind -regtest:
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
import { entryProxy, type RawServer } from "./fixtures/forward.js";
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
