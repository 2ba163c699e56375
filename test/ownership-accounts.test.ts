/**
 * Ownership on account chains (issue 25, parts 1, 2 and 4): EIP-191 signatures made by `cast wallet sign`,
 * TRON TIP-191 signatures made by TronWeb's signMessageV2, contract wallets answering EIP-1271 on anvil,
 * and the EVM balances proof carrying the ownership section that `reserves verify` judges again.
 * Every form: valid, over another message, by another key, truncated, on the wrong chain.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TronWeb } from "tronweb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestOf } from "../src/proof/jcs.js";
import { entryProxy } from "./fixtures/forward.js";
import { startTronFixture, type TronFixture } from "./fixtures/tron.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { trackDir } from "./helpers/procs.js";

const ROOT = new URL("../", import.meta.url).pathname;
const CAST = join(ROOT, "node_modules/.bin/cast");
/** anvil's first two dev keys */
const K0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const A0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const K1 = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const A1 = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const CHALLENGE = "chaingw audit 2026-11: I control this address";
const WALLETS = JSON.parse(readFileSync(new URL("./fixtures/ownership/wallet.json", import.meta.url), "utf8"))
  .contracts as Record<"OwnerWallet" | "RefusingWallet", string>;

/** `cast wallet sign` — the reference signer for EIP-191. */
const castSign = (key: string, message: string): string =>
  execFileSync(CAST, ["wallet", "sign", "--private-key", key, message], { encoding: "utf8" }).trim();
const tronSign = (key: string, message: string): string =>
  new TronWeb({ fullHost: "http://127.0.0.1:1" }).trx.signMessageV2(message, key.replace(/^0x/, ""));
const tronAddress = (key: string): string => TronWeb.address.fromPrivateKey(key.replace(/^0x/, "")) as string;

let dir: string;
let anvil: AnvilNode;
let ownerWallet: string;
let refusingWallet: string;

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

const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const sigFile = (name: string, lines: [string, string][]) =>
  file(name, `address,signature\n${lines.map((l) => l.join(",")).join("\n")}\n`);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-own-"));
  trackDir(dir);
  anvil = await startAnvil();
  // OwnerWallet(owner = A0): its constructor argument is one padded word after the code
  ownerWallet = await deploy(`${WALLETS.OwnerWallet}${A0.slice(2).padStart(64, "0")}`);
  refusingWallet = await deploy(WALLETS.RefusingWallet);
  await anvil.rpc("anvil_setBalance", [ownerWallet, "0x3635c9adc5dea00000"]); // 1000 ETH
  await anvil.rpc("anvil_setBalance", [refusingWallet, "0x56bc75e2d63100000"]); // 100 ETH
  await anvil.rpc("evm_mine", []);
});

afterAll(async () => {
  await anvil?.stop();
});

describe("verify-message: EIP-191 (cast wallet sign) and TIP-191 (TronWeb signMessageV2)", () => {
  it("an EIP-191 signature by the address's key is valid, and says which form verified", async () => {
    const sig = castSign(K0, CHALLENGE);
    const r = await runCli(["verify-message", A0, sig, CHALLENGE]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toBe("true");
    expect(r.stderr).toContain("eip191: EIP-191 personal_sign");
    // v as 0/1 (as some wallets give it) is the same signature
    const v01 = sig.slice(0, -2) + (Number.parseInt(sig.slice(-2), 16) - 27).toString(16).padStart(2, "0");
    expect((await runCli(["verify-message", A0, v01, CHALLENGE])).exitCode).toBe(0);
    // a checksummed address is the same address
    expect(
      (await runCli(["verify-message", "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", sig, CHALLENGE]))
        .exitCode,
    ).toBe(0);
  });

  it("EIP-191: over another message, by another key, truncated, and a TRON signature refused", async () => {
    const sig = castSign(K0, CHALLENGE);
    const other = await runCli(["verify-message", A0, sig, `${CHALLENGE}!`]);
    expect(other.exitCode).toBe(1);
    expect(other.stdout.trim()).toBe("false");
    const key = await runCli(["--json", "verify-message", A0, castSign(K1, CHALLENGE), CHALLENGE]);
    expect(key.exitCode).toBe(1);
    expect(JSON.parse(key.stdout)).toMatchObject({ valid: false, format: "eip191", signer: A1 });
    const cut = await runCli(["verify-message", A0, sig.slice(0, 100), CHALLENGE]);
    expect(cut.exitCode).toBe(2);
    expect(cut.stderr).toMatch(/signature: 49 bytes: an EVM or TRON signature is 65 bytes.*nothing was sent/);
    const tron = await runCli(["verify-message", A0, tronSign(K0, CHALLENGE), CHALLENGE]);
    expect(tron.exitCode).toBe(1);
    expect(tron.stderr).toContain("made with the TRON TIP-191 (signMessageV2) prefix by this address's key");
  });

  it("TIP-191: valid for the T-address, refused over another message, by another key, truncated, or as EIP-191", async () => {
    const t0 = tronAddress(K0);
    const sig = tronSign(K0, CHALLENGE);
    const ok = await runCli(["--json", "verify-message", t0, sig, CHALLENGE]);
    expect(ok.exitCode).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ valid: true, format: "tip191", signer: t0 });
    expect((await runCli(["verify-message", t0, sig, "another"])).exitCode).toBe(1);
    const key = await runCli(["--json", "verify-message", t0, tronSign(K1, CHALLENGE), CHALLENGE]);
    expect(JSON.parse(key.stdout)).toMatchObject({ valid: false, signer: tronAddress(K1) });
    expect((await runCli(["verify-message", t0, sig.slice(0, -4), CHALLENGE])).exitCode).toBe(2);
    const evm = await runCli(["verify-message", t0, castSign(K0, CHALLENGE), CHALLENGE]);
    expect(evm.exitCode).toBe(1);
    expect(evm.stderr).toContain("an EVM signature proves nothing for a TRON address");
    // a T-address with a bad checksum is bad input
    const bad = await runCli([
      "verify-message",
      `${t0.slice(0, -1)}${t0.endsWith("a") ? "b" : "a"}`,
      sig,
      CHALLENGE,
    ]);
    expect(bad.exitCode).toBe(2);
  });
});

describe("the EVM balances proof carries ownership: keys, contract wallets (EIP-1271), verify judges again", () => {
  let proofFile: string;
  const holders = () => [A0, A1, ownerWallet];

  beforeAll(async () => {
    proofFile = join(dir, "owned.json");
    const sigs = sigFile("sigs.csv", [
      [A0, castSign(K0, CHALLENGE)],
      // the wallet's owner signs the challenge; the wallet itself answers for it
      [ownerWallet, castSign(K0, CHALLENGE)],
    ]);
    const r = await runCli([
      "--chain",
      "evm",
      "--url",
      anvil.url,
      "reserves",
      "balances",
      ...holders(),
      "--challenge",
      CHALLENGE,
      "--signatures",
      sigs,
      "--proof",
      proofFile,
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(`ownership: signatures over "${CHALLENGE}"`);
    await anvil.rpc("evm_mine", []);
  });

  it("records each signature with its form and the proven total per asset", () => {
    const p = JSON.parse(readFileSync(proofFile, "utf8"));
    expect(p.challenge).toBe(CHALLENGE);
    expect(p.ownership.signatures.map((s: any) => [s.address, s.valid, s.format])).toEqual([
      [A0, true, "eip191"],
      [ownerWallet, true, "eip1271"],
    ]);
    const a0 = BigInt(p.assets[0].balances[0].base_units);
    expect(p.ownership.proven).toEqual([
      expect.objectContaining({ asset: "native", base_units: (a0 + 1000n * 10n ** 18n).toString() }),
    ]);
  });

  it("verify holds, showing proven / claimed only, and the proven share from re-read balances", async () => {
    const r = await runCli([
      "--url",
      anvil.url,
      "--json",
      "reserves",
      "verify",
      proofFile,
      "--challenge",
      CHALLENGE,
    ]);
    expect(r.exitCode, r.stdout).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.verdict).toBe("holds");
    expect(j.ownership.addresses.map((a: any) => [a.address, a.ownership, a.format])).toEqual([
      [A0, "proven", "eip191"],
      [ownerWallet, "proven", "eip1271"],
    ]);
    expect(j.ownership.proven[0].share).toMatch(/^\d+\.\d\d%$/);
    const h = await runCli(["--url", anvil.url, "reserves", "verify", proofFile]);
    expect(h.stdout).toMatch(/proven\s+│ eip1271/);
    expect(h.stdout).toContain(`claim      challenge: "${CHALLENGE}"`);
  });

  it("a stranger's signature for the wallet, and the wallet that says no, do not hold (exit 1)", async () => {
    const stranger = sigFile("stranger.csv", [[ownerWallet, castSign(K1, CHALLENGE)]]);
    const r = await runCli(["--url", anvil.url, "reserves", "verify", proofFile, "--signatures", stranger]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain(
      `signature for ${ownerWallet} does not verify over the challenge: EIP-1271: the contract wallet answered 0xffffffff`,
    );
    // the wallet that says no, in a proof of its own
    const no = join(dir, "refusing.json");
    const made = await runCli([
      "--url",
      anvil.url,
      "--json",
      "reserves",
      "balances",
      refusingWallet,
      "--challenge",
      CHALLENGE,
      "--signatures",
      sigFile("refusing.csv", [[refusingWallet, castSign(K0, CHALLENGE)]]),
      "--proof",
      no,
    ]);
    expect(made.exitCode).toBe(0);
    expect(JSON.parse(readFileSync(no, "utf8")).ownership.signatures[0]).toMatchObject({
      valid: false,
      format: "eip1271",
    });
    const v = await runCli(["--url", anvil.url, "reserves", "verify", no]);
    expect(v.exitCode).toBe(1);
  });

  it("forgeries with the digest recomputed: a signature copied to another address, the challenge rewritten, validity flipped", async () => {
    const forge = (name: string, edit: (d: any) => void) => {
      const d = JSON.parse(readFileSync(proofFile, "utf8"));
      edit(d);
      const { digest: _, ...rest } = d;
      d.digest = digestOf(rest);
      return file(name, `${JSON.stringify(d, null, 2)}\n`);
    };
    const addProven = (d: any, address: string, sig: string) => {
      d.ownership.signatures.push({ address, signature: sig, valid: true, format: "eip191", detail: "ok" });
      const a = d.assets[0];
      const sum = a.balances
        .filter((b: any) => d.ownership.signatures.some((s: any) => s.valid && s.address === b.address))
        .reduce((s: bigint, b: any) => s + BigInt(b.base_units), 0n);
      d.ownership.proven[0].base_units = sum.toString();
      const frac = (sum % 10n ** 18n).toString().padStart(18, "0").replace(/0+$/, "");
      d.ownership.proven[0].amount = frac ? `${sum / 10n ** 18n}.${frac}` : `${sum / 10n ** 18n}`;
    };
    // A1 credited as proven with A0's signature, the proven total recomputed to match
    const copied = forge("copied.json", (d) => addProven(d, A1, castSign(K0, CHALLENGE)));
    const rc = await runCli(["--url", anvil.url, "--json", "reserves", "verify", copied]);
    expect(rc.exitCode, rc.stderr).toBe(1);
    expect(JSON.parse(rc.stdout).failures.join("\n")).toContain(`signature for ${A1} does not verify`);
    const rewritten = forge("rewritten.json", (d) => {
      d.challenge = "another audit";
    });
    const rr = await runCli(["--url", anvil.url, "reserves", "verify", rewritten]);
    expect(rr.exitCode).toBe(1);
    expect(rr.stdout).toContain(`signature for ${A0} does not verify over the challenge`);
    const required = await runCli([
      "--url",
      anvil.url,
      "reserves",
      "verify",
      proofFile,
      "--challenge",
      "last year's",
    ]);
    expect(required.exitCode).toBe(1);
    expect(required.stdout).toContain(`not the required "last year's"`);
  });

  it("a node without the wallet's state cannot say (exit 3); a node behind cannot say either", async () => {
    // answers eth_getCode and eth_call as a pruned geth does; everything else from anvil
    const proxy = await entryProxy(async (e) =>
      e.method === "eth_getCode" || e.method === "eth_call"
        ? {
            jsonrpc: "2.0",
            id: e.id,
            error: { code: -32000, message: "missing trie node 0c9f (path ) state is not available" },
          }
        : { jsonrpc: "2.0", id: e.id, result: await anvil.rpc(e.method, e.params) },
    );
    try {
      const r = await runCli(["--url", proxy.url, "--json", "reserves", "verify", proofFile]);
      expect(r.exitCode).toBe(3);
      const j = JSON.parse(r.stdout);
      expect(j.verdict).toBe("cannot-say");
      expect(j.failures).toEqual([]);
      expect(j.ownership.addresses.map((a: any) => a.ownership)).toEqual(["proven", "cannot-say"]);
    } finally {
      await proxy.close();
    }
    const fresh = await startAnvil();
    try {
      const r = await runCli(["--url", fresh.url, "--json", "reserves", "verify", proofFile]);
      expect(r.exitCode).toBe(3);
      expect(JSON.parse(r.stdout).ownership.addresses[1].ownership).toBe("cannot-say");
    } finally {
      await fresh.stop();
    }
  });

  it("reserves report shows the proven share per asset (the verifier's with --verify)", async () => {
    const r = await runCli(["--url", anvil.url, "--json", "reserves", "report", "--verify", proofFile]);
    expect(r.exitCode, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.proofs[0].assets[0].proven_share).toMatch(/^\d+\.\d\d%$/);
    expect(j.proofs[0].assets[0].proven_share).not.toBe("0.00%");
  });

  it("bad signature files are exit 2 before anything is sent", async () => {
    const t = tronAddress(K0);
    const r = await runCli([
      "--url",
      anvil.url,
      "reserves",
      "balances",
      A0,
      "--challenge",
      CHALLENGE,
      "--signatures",
      sigFile("tron-on-evm.csv", [[t, tronSign(K0, CHALLENGE)]]),
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("line 2");
    const nochal = await runCli([
      "--url",
      anvil.url,
      "reserves",
      "balances",
      A0,
      "--signatures",
      join(dir, "sigs.csv"),
    ]);
    expect(nochal.exitCode).toBe(2);
    expect(nochal.stderr).toContain("--signatures needs --challenge");
  });
});

describe("TRON: TIP-191 ownership in a balances proof of the EVM-compat chain", () => {
  let tron: TronFixture;
  beforeAll(async () => {
    tron = await startTronFixture();
  });
  afterAll(async () => {
    await tron?.stop();
  });

  it("a TronWeb signature proves the T-address; an EIP-191 one by the same key does not", async () => {
    const t0 = tronAddress(K0);
    const t1 = tronAddress(K1);
    const proof = join(dir, "tron.json");
    const r = await runCli([
      "--chain",
      "evm-compat",
      "--url",
      tron.url,
      "--json",
      "reserves",
      "balances",
      t0,
      t1,
      "--challenge",
      CHALLENGE,
      "--signatures",
      sigFile("tron.csv", [
        [t0, tronSign(K0, CHALLENGE)],
        [t1, castSign(K1, CHALLENGE)],
      ]),
      "--proof",
      proof,
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const p = JSON.parse(readFileSync(proof, "utf8"));
    expect(p.ownership.signatures.map((s: any) => [s.valid, s.format])).toEqual([
      [true, "tip191"],
      [false, "tip191"],
    ]);
    expect(p.ownership.signatures[1].detail).toContain("EIP-191");
    expect(p.ownership.proven[0].base_units).toBe(p.assets[0].balances[0].base_units);
  });
});
