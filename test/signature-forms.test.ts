/**
 * Issue 35, item 3, signature forms: a correct BIP-322 signature for a script chaingw cannot judge is
 * "cannot say" (exit 3), never "does not hold"; a legacy signature made with another coin's message magic
 * (Bitcoin's, for a Litecoin address whose test-network prefix Bitcoin shares) is refused with that reason
 * once the node is known to be Litecoin. Real litecoind regtest: its wallet's keys, `signmessage`, and
 * `walletprocesspsbt` signing BIP-322's to_sign for a P2WSH `<key> OP_CHECKSIG` script (not multisig).
 */

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base58check, base64 } from "@scure/base";
import { p2pk, p2wsh, RawTx, RawWitness, Transaction } from "@scure/btc-signer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestOf } from "../src/proof/jcs.js";
import { bip322Transactions, legacyMessageHash } from "../src/proof/message.js";
import { runCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { trackDir } from "./helpers/procs.js";

const CHALLENGE = "chaingw audit 2026-11: signature forms";
const LTC_REGTEST = { bech32: "rltc", pubKeyHash: 0x6f, scriptHash: 0x3a, wif: 0xef };

let node: LitecoinNode;
let dir: string;
/** a legacy P2PKH address of the node's wallet */
let p2pkh: string;
/** P2WSH of `<key> OP_CHECKSIG`, the key the wallet's */
let wsh: string;
let wshScript: Uint8Array;

const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const sigs = (name: string, lines: [string, string][]) =>
  file(name, `address,signature\n${lines.map((l) => l.join(",")).join("\n")}\n`);
const scan = (addresses: string[], signatures: string, proof: string) =>
  runCli([
    "--url",
    node.authUrl,
    "reserves",
    "scan",
    ...addresses,
    "--proof",
    proof,
    "--challenge",
    CHALLENGE,
    "--signatures",
    signatures,
  ]);
const verify = (proof: string, ...more: string[]) =>
  runCli(["--url", node.authUrl, "--json", "reserves", "verify", proof, ...more]);

/** A legacy signed message with Bitcoin's magic, by the key litecoind holds for `address`. */
async function bitcoinMagicSignature(address: string, message: string): Promise<string> {
  const wif = await node.rpc<string>("dumpprivkey", [address]);
  const key = base58check(sha256).decode(wif).subarray(1, 33);
  const sig = secp256k1.sign(legacyMessageHash("bitcoin", message), key, {
    prehash: false,
    format: "recovered",
  });
  // BIP-137 header for a compressed P2PKH key: 31 + recovery id, then r ‖ s
  return base64.encode(Uint8Array.of(31 + (sig[0] as number), ...sig.subarray(1)));
}

/** BIP-322's to_sign for the P2WSH script, signed by litecoind's wallet (the PSBT carries the script). */
async function nodeSignsWsh(message: string): Promise<string> {
  const spk = p2wsh(p2pk(wshScript.subarray(1, 34)), LTC_REGTEST).script;
  const { toSpendId } = bip322Transactions(spk, message);
  const tx = new Transaction({ version: 0, lockTime: 0, allowUnknownOutputs: true });
  tx.addInput({
    txid: toSpendId,
    index: 0,
    sequence: 0,
    witnessUtxo: { script: spk, amount: 0n },
    witnessScript: wshScript,
  });
  tx.addOutput({ script: Uint8Array.of(0x6a), amount: 0n });
  const signed = await node.rpc<{ psbt: string; complete: boolean }>("walletprocesspsbt", [
    base64.encode(tx.toPSBT()),
    true,
    "ALL",
    true,
  ]);
  expect(signed.complete).toBe(true);
  const final = await node.rpc<{ hex: string }>("finalizepsbt", [signed.psbt, true]);
  const witness = RawTx.decode(Uint8Array.from(Buffer.from(final.hex, "hex"))).witnesses?.[0] ?? [];
  expect(witness.length).toBe(2); // the signature and the script: a real spend of `<key> OP_CHECKSIG`
  return `smp${base64.encode(RawWitness.encode(witness))}`;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-forms-"));
  trackDir(dir);
  node = await startLitecoind({ blocks: 101 });
  p2pkh = await node.rpc<string>("getnewaddress", ["", "legacy"]);
  const k = await node.rpc<string>("getnewaddress", ["", "bech32"]);
  const pub = Buffer.from((await node.rpc<{ pubkey: string }>("getaddressinfo", [k])).pubkey, "hex");
  const pay = p2wsh(p2pk(pub), LTC_REGTEST);
  wsh = pay.address as string;
  wshScript = pay.witnessScript as Uint8Array;
  await node.rpc("sendtoaddress", [p2pkh, 1.25]);
  await node.rpc("sendtoaddress", [wsh, 2]);
  await node.mine(1);
});

afterAll(async () => {
  await node?.stop();
});

describe("signature forms judged against the node's coin (real litecoind)", () => {
  it("control: litecoind's signmessage proves the P2PKH address; verify holds", async () => {
    const proof = join(dir, "control.json");
    const sig = await node.rpc<string>("signmessage", [p2pkh, CHALLENGE]);
    const r = await scan([p2pkh], sigs("control.csv", [[p2pkh, sig]]), proof);
    expect(r.exitCode, r.stderr).toBe(0);
    const v = await verify(proof);
    expect(v.exitCode, v.stdout).toBe(0);
    expect(JSON.parse(v.stdout).addresses[0]).toMatchObject({ ownership: "proven" });
  });

  it("a Bitcoin-magic signature by the same key, for the Litecoin address: refused naming the magic (exit 1)", async () => {
    const btc = await bitcoinMagicSignature(p2pkh, CHALLENGE);
    // offline, with no node to say which coin, the shared prefix lets either magic verify (and says which)
    const offline = await runCli(["verify-message", p2pkh, btc, CHALLENGE]);
    expect(offline.exitCode).toBe(0);
    expect(offline.stderr).toContain("Bitcoin message magic");
    const proof = join(dir, "btc-magic.json");
    expect((await scan([p2pkh], sigs("btc.csv", [[p2pkh, btc]]), proof)).exitCode).toBe(0);
    // the scan judged it against its node's coin too: recorded not valid, with the reason
    const recorded = JSON.parse(readFileSync(proof, "utf8")).ownership.signatures[0];
    expect(recorded.valid).toBe(false);
    expect(recorded.detail).toContain("made with the Bitcoin message magic");
    const v = await verify(proof);
    expect(v.exitCode, v.stdout).toBe(1);
    const j = JSON.parse(v.stdout);
    expect(j.addresses[0].ownership).toBe("unproven");
    expect(j.failures.join("\n")).toContain(
      "made with the Bitcoin message magic by this address's key; it proves nothing for a Litecoin address",
    );
  });

  it("a correct BIP-322 signature for a P2WSH <key> OP_CHECKSIG script: cannot say (exit 3), not 'does not hold'", async () => {
    const smp = await nodeSignsWsh(CHALLENGE);
    const proof = join(dir, "wsh.json");
    const sig = await node.rpc<string>("signmessage", [p2pkh, CHALLENGE]);
    const r = await scan(
      [p2pkh, wsh],
      sigs("wsh.csv", [
        [p2pkh, sig],
        [wsh, smp],
      ]),
      proof,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const v = await verify(proof);
    expect(v.exitCode, v.stdout).toBe(3);
    const j = JSON.parse(v.stdout);
    expect(j.verdict).toBe("cannot-say");
    expect(j.failures).toEqual([]);
    expect(j.addresses.map((a: any) => a.ownership)).toEqual(["proven", "cannot-say"]);
    expect(j.cannot_say.join("\n")).toContain(
      `signature for ${wsh}: a form chaingw cannot judge: BIP-322 simple signature ("smp"): P2WSH scripts other than standard k-of-n multisig are not supported`,
    );
    // the human report says it on the address's row
    const h = await runCli(["--url", node.authUrl, "reserves", "verify", proof]);
    expect(h.exitCode).toBe(3);
    expect(h.stdout).toMatch(new RegExp(`${wsh.slice(0, 40)}.*CANNOT SAY`));
    // a forger flips it to valid, moves its amount to the proven total, recomputes the digest: still cannot
    // say, never proven
    const d = JSON.parse(readFileSync(proof, "utf8"));
    expect(d.ownership.signatures[1].valid).toBe(false);
    d.ownership.signatures[1].valid = true;
    const held = BigInt(d.by_address.find((a: any) => a.address === wsh).amount_sats);
    d.ownership.proven_sats = (BigInt(d.ownership.proven_sats) + held).toString();
    d.ownership.claimed_only_sats = (BigInt(d.ownership.claimed_only_sats) - held).toString();
    const { digest: _, ...rest } = d;
    d.digest = digestOf(rest);
    const flipped = file("wsh-flipped.json", JSON.stringify(d, null, 2));
    const f = await verify(flipped);
    expect(f.exitCode, f.stdout).toBe(3);
    const fj = JSON.parse(f.stdout);
    expect(fj.addresses.map((a: any) => a.ownership)).toEqual(["proven", "cannot-say"]);
    expect(BigInt(fj.ownership.proven_sats)).toBe(125_000_000n);
  });
});
