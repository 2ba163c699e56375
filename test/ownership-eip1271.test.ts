/**
 * Issue 35, item 3: an EIP-1271 answer proves control only when the wallet tells signatures apart. Contracts
 * compiled with solc-js (test/fixtures/ownership/Wallet.sol), deployed on anvil; signatures by `cast wallet
 * sign`. Honest controls: OwnerWallet (its owner's 65-byte signature) and PairWallet (a 2-of-2 whose signature
 * is a 130-byte bundle, as a Safe's is: read whole, judged by the wallet). Forgeries, each with a garbage
 * signature: AnyWallet (approves everything), UninitialisedWallet (owner never set: an all-zero signature
 * recovers to it), MagicVault (no wallet: its fallback answers any call with 0x1626ba7e). Each forgery was
 * "proven owned" before; now each is "accepts any signature: proves nothing".
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestOf } from "../src/proof/jcs.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { trackDir } from "./helpers/procs.js";

const CAST = new URL("../node_modules/.bin/cast", import.meta.url).pathname;
const K0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const A0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const K1 = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const A1 = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const CHALLENGE = "chaingw audit 2026-11: these wallets are ours";
type Name = "OwnerWallet" | "PairWallet" | "AnyWallet" | "UninitialisedWallet" | "MagicVault";
const CODE = JSON.parse(readFileSync(new URL("./fixtures/ownership/wallet.json", import.meta.url), "utf8"))
  .contracts as Record<Name, string>;
const word = (a: string) => a.slice(2).padStart(64, "0");
const castSign = (key: string, message: string): string =>
  execFileSync(CAST, ["wallet", "sign", "--private-key", key, message], { encoding: "utf8" }).trim();

let dir: string;
let anvil: AnvilNode;
const at = {} as Record<Name, string>;

async function deploy(code: string): Promise<string> {
  const hash = await anvil.rpc<string>("eth_sendTransaction", [{ from: A0, data: code, gas: "0x1c9c380" }]);
  for (let i = 0; i < 200; i++) {
    const r = await anvil.rpc<{ contractAddress: string; status: string } | null>(
      "eth_getTransactionReceipt",
      [hash],
    );
    if (r) {
      expect(r.status).toBe("0x1");
      return r.contractAddress.toLowerCase();
    }
    await new Promise((ok) => setTimeout(ok, 25));
  }
  throw new Error("deploy not mined");
}

const sigFile = (name: string, lines: [string, string][]) => {
  const p = join(dir, name);
  writeFileSync(p, `address,signature\n${lines.map((l) => l.join(",")).join("\n")}\n`);
  return p;
};

const balances = (addresses: string[], sigs: string, proof: string) =>
  runCli([
    "--url",
    anvil.url,
    "--json",
    "reserves",
    "balances",
    ...addresses,
    "--challenge",
    CHALLENGE,
    "--signatures",
    sigs,
    "--proof",
    proof,
  ]);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-1271-"));
  trackDir(dir);
  anvil = await startAnvil();
  at.OwnerWallet = await deploy(`${CODE.OwnerWallet}${word(A0)}`);
  at.PairWallet = await deploy(`${CODE.PairWallet}${word(A0)}${word(A1)}`);
  at.AnyWallet = await deploy(CODE.AnyWallet);
  at.UninitialisedWallet = await deploy(CODE.UninitialisedWallet);
  at.MagicVault = await deploy(CODE.MagicVault);
  for (const a of Object.values(at)) await anvil.rpc("anvil_setBalance", [a, "0x3635c9adc5dea00000"]);
  await anvil.rpc("evm_mine", []);
});

afterAll(async () => {
  await anvil?.stop();
});

describe("EIP-1271 that proves control (real anvil, solc-compiled wallets, cast wallet sign)", () => {
  let honest: string;
  beforeAll(async () => {
    honest = join(dir, "honest.json");
    // the pair's signature: both owners' signatures of the challenge, one after the other (130 bytes)
    const pair = `${castSign(K0, CHALLENGE)}${castSign(K1, CHALLENGE).slice(2)}`;
    expect(pair.length).toBe(2 + 260);
    const r = await balances(
      [at.OwnerWallet, at.PairWallet],
      sigFile("honest.csv", [
        [at.OwnerWallet, castSign(K0, CHALLENGE)],
        [at.PairWallet, pair],
      ]),
      honest,
    );
    expect(r.exitCode, r.stderr).toBe(0);
  });

  it("control: the owner's wallet and the 2-of-2's 130-byte bundle are proven, and verify holds", async () => {
    const p = JSON.parse(readFileSync(honest, "utf8"));
    expect(p.ownership.signatures.map((s: any) => [s.address, s.valid, s.format])).toEqual([
      [at.OwnerWallet, true, "eip1271"],
      [at.PairWallet, true, "eip1271"],
    ]);
    expect(p.ownership.signatures[0].detail).toContain("refused a random challenge, a random signature");
    const v = await runCli(["--url", anvil.url, "--json", "reserves", "verify", honest]);
    expect(v.exitCode, v.stdout).toBe(0);
    expect(JSON.parse(v.stdout).ownership.addresses.map((a: any) => a.ownership)).toEqual([
      "proven",
      "proven",
    ]);
  });

  it("control: the 2-of-2 with one owner's signature twice, or the owners swapped, is not proven", async () => {
    const s0 = castSign(K0, CHALLENGE);
    const f = join(dir, "pair-bad.json");
    const r = await balances(
      [at.PairWallet],
      sigFile("pair-bad.csv", [[at.PairWallet, `${s0}${s0.slice(2)}`]]),
      f,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(f, "utf8")).ownership.signatures[0]).toMatchObject({
      valid: false,
      detail: "EIP-1271: the contract wallet answered 0xffffffff, not the magic value 0x1626ba7e",
    });
  });

  it("forgeries: a yes-to-all wallet, an owner never set, a vault's fallback: 'accepts any signature: proves nothing'", async () => {
    const f = join(dir, "forged.json");
    const garbage = `0x${"ab".repeat(65)}`;
    const r = await balances(
      [at.AnyWallet, at.UninitialisedWallet, at.MagicVault],
      sigFile("forged.csv", [
        [at.AnyWallet, garbage],
        [at.UninitialisedWallet, `0x${"00".repeat(65)}`],
        [at.MagicVault, garbage],
      ]),
      f,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const p = JSON.parse(readFileSync(f, "utf8"));
    for (const s of p.ownership.signatures) {
      expect(s.valid, s.address).toBe(false);
      expect(s.detail).toContain("EIP-1271: the contract wallet accepts any signature: proves nothing");
    }
    // which controls each approved: all three (the uninitialised owner: every signature that recovers no
    // key, so a random one only when its last byte is not a valid v: 252 times in 256)
    for (const s of p.ownership.signatures)
      expect(s.detail).toMatch(
        /a random challenge and (a random signature and )?an all-zero signature at block \d+\)$/,
      );
    expect(p.ownership.signatures[0].detail).toContain("a random signature");
    expect(p.ownership.proven[0].base_units).toBe("0");
    // a forger flips them to valid, recomputes the proven total and the digest: verify refuses (exit 1)
    p.ownership.signatures = p.ownership.signatures.map((s: any) => ({ ...s, valid: true }));
    const total = p.assets[0].balances.reduce((t: bigint, b: any) => t + BigInt(b.base_units), 0n);
    p.ownership.proven[0] = { ...p.ownership.proven[0], base_units: total.toString(), amount: "3000" };
    const { digest: _, ...rest } = p;
    p.digest = digestOf(rest);
    const flipped = join(dir, "flipped.json");
    writeFileSync(flipped, JSON.stringify(p, null, 2));
    const v = await runCli(["--url", anvil.url, "--json", "reserves", "verify", flipped]);
    expect(v.exitCode, v.stdout + v.stderr).toBe(1);
    const j = JSON.parse(v.stdout);
    expect(j.ownership.addresses.map((a: any) => a.ownership)).toEqual(["unproven", "unproven", "unproven"]);
    for (const a of at.AnyWallet ? [at.AnyWallet, at.UninitialisedWallet, at.MagicVault] : [])
      expect(j.failures.join("\n")).toContain(`signature for ${a} does not verify`);
    expect(j.failures.join("\n")).toContain("accepts any signature: proves nothing");
  });

  it("a 130-byte signature in a signature file is read (no exit 2); odd hex is still bad input", async () => {
    const odd = await balances(
      [at.PairWallet],
      sigFile("odd.csv", [[at.PairWallet, `0x${"a".repeat(131)}`]]),
      join(dir, "odd.json"),
    );
    expect(odd.exitCode).toBe(2);
    expect(odd.stderr).toContain("line 2");
    expect(odd.stderr).toContain("not hex bytes");
  });
});
