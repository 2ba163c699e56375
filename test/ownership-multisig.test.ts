/**
 * UTXO multisig ownership (issue 25, part 3): BIP-322 signatures for standard k-of-n multisig in P2WSH,
 * P2SH-P2WSH and P2SH. The published vectors (bitcoin/bips bip-0322/generated-test-vectors.json) first; then
 * signatures made by litecoind itself: a 2-of-3 multisig address whose keys the wallet holds, BIP-322's
 * to_sign as a PSBT signed with walletprocesspsbt and finalized by the node. Each form: valid, over another
 * message, by other keys, truncated, and an EVM signature given for it; then a reserve proof that proves the
 * multisig address owned, and verify judging it again.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { base64 } from "@scure/base";
import { OutScript, RawTx, RawWitness, Transaction } from "@scure/btc-signer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bip322Transactions, verifyMessage } from "../src/proof/message.js";
import { runCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { trackDir } from "./helpers/procs.js";

/** bitcoin/bips bip-0322/generated-test-vectors.json: multisig entries ("simple" and "full"). */
const VECTORS = [
  {
    form: "smp",
    address: "bc1qa8xp82hejuydq8d9yc44s662ras5ncr98gxz3n53s6vklwgrczrqc4fqtn",
    message: "GDU6AXT64O5ZS4AHHXK5JETYRM",
    wrong: "RPZ3MU56TLYDP4J7XLACULFXEJ",
    sig: "BABIMEUCIQCLKarc4DfTq5bmqPVjRZ/qBvRPy886P2dM1tDK/92WIgIgN7y495rkp5FPcpjohhl8Knmo9rf63tPLGIVo8PKE81ABSDBFAiEAz2U1cppenj2Kbg8DkS3wXMmAN4jvZvsP/PdcCI1akogCIFlrCbW2+GbMRkvObV2utVdHYBxIJhM6DJlv1NIwViXBAUdSIQJx+IVtFfezY//G7PB/9/Z2fWatDxm5+M0195sX3Y1qoyECvDKp35BSlVD2TFqMPy7MlXJrqGl3nkQAgo51DfiRIqlSrg==",
    kind: "P2WSH 2-of-2",
  },
  {
    form: "smp",
    address: "bc1qel33n4j8luylanep3rhfdkkwsvz2pjvjvle4ttt4v8v74ur74fuqjrp0uw",
    message: "BSAWAJZ2EQJD2TYPE7XJM4C7UT",
    wrong: "QT6D4KWLZBL3T5S6NOLAV765K2",
    sig: "BQBHMEQCIFT0+Kbu1NAAJvWikhuw20MSB3LHCbMHgcNlMI2y38CnAiBKzu+vWiUofSZ6z7efpiAg9NhnAFgzrLJ7NVw4yY9I0gFHMEQCIFB1YEnj+Rvy18vUU7CADhSgoC9DyTqKH35q+uND4ZXEAiA9ISDpX9EA5gUvkTPBVQpEO+6pET87I4XhckdBmbZWwAFHMEQCIC8vcyfV3kOLDUI+ZaqFnS7psT11aFt+CW+jU2We7VYXAiA3zPurejZx5jSrUE/q9FI+B/idy8zRHAFmxo511LMjqwFpUyECZL28ba/0fLUUb9CUm2BWh/pDPpQa/ivbd4vKZWqBiSohAx3wAIvD9FNoBhSIQcli5257Nf7ePVqSFOQDze7XlHJVIQIYUTRV97qnh0yX/U36NKWtXEqbdW0jmlMmBDyeRbC87lOu",
    kind: "P2WSH 3-of-3",
  },
  {
    form: "ful",
    address: "bc1qfqj9nyjyt48mnu3d5pl98t280l2w0ccpfd2r2mee3fwfxar5sehszuz26t",
    message: "5P7EW4XUVZ6PJX5HY4MW5FK5PB",
    wrong: "QDZMAZBL27JFGRNCIXL25DXBSH",
    sig: "AgAAAAABAcE9Xti5qyNVQrVVDtYUznEvVIDEbkXUF3n3CQI5bzKRAAAAAADgBwAAAQAAAAAAAAAAAWoEAEcwRAIgSwczcWxkT+Tk8wvTdorKXE3Hfemk6mtcKXC2yGSXp2ACIEIa5UwomMwpoPLyowZ/e550yHRPTyIIbYDaYT1kF9szAUgwRQIhAPpw4wkAFjKT1mvhOSfmHlYFtRgQ87hfbOfjnjJnQ2PuAiA7uR/iEFqgQfLLZIEsRIImvMPP/gMfchFpj4Qx5aRSpQFHUiED1iNYBtEHilqVRjfuFj7hkUEtAkMkPX7WRMHZ3NGTrUQhArxPc6k2RYEdx2fw2Pd82g7GgeLraJ7meGEFXIxa7IwfUq7gBwAA",
    kind: "P2WSH 2-of-2",
  },
  {
    form: "ful",
    address: "bc1q9nrqkah76dcr2yvw40wkr2af439ccyl5xay0md3awkkk00zges4qdt3sx7",
    message: "QDZMAZBL27JFGRNCIXL25DXBSH",
    wrong: "5P7EW4XUVZ6PJX5HY4MW5FK5PB",
    sig: "AgAAAAABAer7c1QlVJDuAbqiJjI4BDfc9mBGcO7bMHZbQkfJkv5xAAAAAADgBwAAAQAAAAAAAAAAAWoFAEcwRAIgSOxqpGJcIsTlpitk5ZYjL39Oz19Nju75iEIAZJakhxoCIAGdJoVeVRnYtALtXneYlvi+c1cM/g1VB9KuVPAbG2sEAUgwRQIhANqm0LEFk63YpHgNdhiOxvqrr+CfuTYDiBWd2qSX4eCZAiAEkN5Cei/Nu8hf344x16B07RoLmp5QkanvbWw+RYG0iAFIMEUCIQDNtva8FSjrEKwDIuRbtWf/1l5sPfPDfjCNiq4qN2b83gIgDUhfk7LFcc300VDuTgS7sapPpq7DeiEfy3bzgz6bGCoBaVMhAxv7aVMjtYlThA88s4q8tFcoyY5SuiQq5hCXJcSUaYXyIQJr/JHIEQpdLdJFEA8iFMHu9wqLtkEpmGFhDLrShlameCECWmK4dVblBueUxUfoJ20abiYpeApWXbNfy3w/lDWja7xTruAHAAA=",
    kind: "P2WSH 3-of-3",
  },
];

describe("BIP-322 multisig: the published vectors", () => {
  for (const v of VECTORS)
    it(`${v.form} ${v.kind}: valid, and refused over the vector's wrong message`, () => {
      const r = verifyMessage(v.address, `${v.form}${v.sig}`, v.message);
      expect(r).toMatchObject({ valid: true, format: v.form === "smp" ? "bip322-simple" : "bip322-full" });
      expect(r.detail).toContain(`${v.kind} multisig`);
      expect(verifyMessage(v.address, `${v.form}${v.sig}`, v.wrong).valid).toBe(false);
    });
});

const MESSAGE = "chaingw audit 2026-11: cold storage";
let node: LitecoinNode;
let dir: string;
/** the 2-of-3 multisig addresses of each type, keys held by the node's wallet */
const ms: Record<"bech32" | "p2sh-segwit" | "legacy", string> = {} as never;
/** another 2-of-3 of other keys (bech32) */
let otherMs: string;

/**
 * BIP-322's to_sign for `address` and `message` as a PSBT, signed and finalized by litecoind: the signature
 * (full: the whole transaction; simple: its witness) comes from the node's wallet, not from chaingw.
 */
async function nodeSigns(address: string, message: string, form: "ful" | "smp"): Promise<string> {
  const info = await node.rpc<{ scriptPubKey: string }>("getaddressinfo", [address]);
  const spk = Uint8Array.from(Buffer.from(info.scriptPubKey, "hex"));
  const { toSpendId, toSpend } = bip322Transactions(spk, message);
  const tx = new Transaction({ version: 0, lockTime: 0, allowUnknownOutputs: true });
  const legacy = OutScript.decode(spk).type === "sh" && address === ms.legacy;
  tx.addInput({
    txid: toSpendId,
    index: 0,
    sequence: 0,
    ...(legacy ? { nonWitnessUtxo: toSpend } : { witnessUtxo: { script: spk, amount: 0n } }),
  });
  tx.addOutput({ script: Uint8Array.of(0x6a), amount: 0n });
  const signed = await node.rpc<{ psbt: string; complete: boolean }>("walletprocesspsbt", [
    base64.encode(tx.toPSBT()),
    true,
    "ALL",
    true,
  ]);
  expect(signed.complete).toBe(true);
  const final = await node.rpc<{ hex: string; complete: boolean }>("finalizepsbt", [signed.psbt, true]);
  const bytes = Uint8Array.from(Buffer.from(final.hex, "hex"));
  if (form === "ful") return `ful${base64.encode(bytes)}`;
  return `smp${base64.encode(RawWitness.encode(RawTx.decode(bytes).witnesses?.[0] ?? []))}`;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-ms-"));
  trackDir(dir);
  node = await startLitecoind({ blocks: 101 });
  const keys = async () => {
    const out: string[] = [];
    for (let i = 0; i < 3; i++) {
      const a = await node.rpc<string>("getnewaddress", ["", "bech32"]);
      out.push((await node.rpc<{ pubkey: string }>("getaddressinfo", [a])).pubkey);
    }
    return out;
  };
  const mine = await keys();
  for (const type of ["bech32", "p2sh-segwit", "legacy"] as const)
    ms[type] = (await node.rpc<{ address: string }>("addmultisigaddress", [2, mine, "", type])).address;
  otherMs = (await node.rpc<{ address: string }>("addmultisigaddress", [2, await keys(), "", "bech32"]))
    .address;
});

afterAll(async () => {
  await node?.stop();
});

describe("BIP-322 multisig signed by litecoind (walletprocesspsbt)", () => {
  for (const type of ["bech32", "p2sh-segwit", "legacy"] as const)
    it(`${type} 2-of-3, full form: valid; another message, other keys, truncated, an EVM signature refused`, async () => {
      const a = ms[type];
      const sig = await nodeSigns(a, MESSAGE, "ful");
      const ok = await runCli(["--json", "verify-message", a, sig, MESSAGE]);
      expect(ok.exitCode, ok.stderr).toBe(0);
      const j = JSON.parse(ok.stdout);
      expect(j).toMatchObject({ valid: true, format: "bip322-full", chain: "litecoin" });
      expect(j.detail).toContain(
        `${type === "bech32" ? "P2WSH" : type === "legacy" ? "P2SH" : "P2SH-P2WSH"} 2-of-3 multisig`,
      );
      const other = await runCli(["verify-message", a, sig, `${MESSAGE}.`]);
      expect(other.exitCode).toBe(1);
      expect(other.stderr).toContain("made for another message or address");
      // the other key set's signature, over the same message, for this address
      const stranger = await runCli(["verify-message", a, await nodeSigns(otherMs, MESSAGE, "ful"), MESSAGE]);
      expect(stranger.exitCode).toBe(1);
      const cut = await runCli(["verify-message", a, sig.slice(0, 79), MESSAGE]);
      expect(cut.exitCode).toBe(2);
      expect(cut.stderr).toContain("not a consensus-encoded transaction");
      const evm = await runCli(["verify-message", a, `0x${"ab".repeat(65)}`, MESSAGE]);
      expect(evm.exitCode).toBe(2);
    });

  it("P2WSH 2-of-3, simple form (the witness alone), and a signature with one key's signature dropped", async () => {
    const sig = await nodeSigns(ms.bech32, MESSAGE, "smp");
    const ok = await runCli(["verify-message", ms.bech32, sig, MESSAGE]);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.stderr).toContain("bip322-simple");
    const items = RawWitness.decode(base64.decode(sig.slice(3)));
    const dropped = `smp${base64.encode(RawWitness.encode([items[0] as Uint8Array, items[1] as Uint8Array, items[3] as Uint8Array]))}`;
    const r = await runCli(["verify-message", ms.bech32, dropped, MESSAGE]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("1 signatures for a 2-of-3 script");
    // the same signature twice is not two keys
    const twice = `smp${base64.encode(RawWitness.encode([items[0] as Uint8Array, items[1] as Uint8Array, items[1] as Uint8Array, items[3] as Uint8Array]))}`;
    expect((await runCli(["verify-message", ms.bech32, twice, MESSAGE])).exitCode).toBe(1);
  });

  it("a reserve proof proves the multisig addresses owned; verify judges the signatures again", async () => {
    // one transaction: the wallet holds every key of these addresses, so a second send could spend the first
    await node.rpc("sendmany", ["", { [ms.bech32]: 2.5, [ms.legacy]: 0.75 }]);
    await node.mine(1);
    const sigs = join(dir, "ms-sigs.csv");
    writeFileSync(
      sigs,
      `address,signature\n${ms.bech32},${await nodeSigns(ms.bech32, MESSAGE, "ful")}\n${ms.legacy},${await nodeSigns(ms.legacy, MESSAGE, "ful")}\n`,
    );
    const proof = join(dir, "ms-proof.json");
    const r = await runCli([
      "--url",
      node.authUrl,
      "reserves",
      "scan",
      ms.bech32,
      ms.legacy,
      "--proof",
      proof,
      "--challenge",
      MESSAGE,
      "--signatures",
      sigs,
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const p = JSON.parse(readFileSync(proof, "utf8"));
    expect(p.ownership.proven_sats).toBe("325000000");
    expect(p.ownership.signatures.map((s: any) => s.format)).toEqual(["bip322-full", "bip322-full"]);
    const v = await runCli([
      "--url",
      node.authUrl,
      "--json",
      "reserves",
      "verify",
      proof,
      "--challenge",
      MESSAGE,
    ]);
    expect(v.exitCode, v.stdout).toBe(0);
    expect(JSON.parse(v.stdout).ownership).toMatchObject({ proven_sats: "325000000", proven_addresses: 2 });
  });
});
