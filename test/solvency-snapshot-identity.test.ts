/**
 * `solvency` as a forger would try it (issue 35, items 1 and 2), each forgery beside an honest control, on
 * real litecoind -regtest and anvil with real signers (litecoind's signmessage, `cast wallet sign`):
 *  - coins counted twice: 0.7 LTC proven at P at height h, moved to Q, Q proven at h+1 — judged together at
 *    h+1, P's output is spent there and counts nothing; a coin that stayed put (R at h) still counts;
 *  - proofs of one chain at different heights without --verify, and EVM proofs at different blocks: refused,
 *    exit 2, naming files and heights, nothing sent;
 *  - any asset backing any liability: a regtest LTC proof against BTC (and against LTC without --backing), a
 *    token the custodian deployed and named "USDT", native ether against DAI, an anvil proof edited to claim
 *    chain id 1 — each named for what it is and not counted.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestOf } from "../src/proof/jcs.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { buildCommitment, signedLtcProof } from "./helpers/liabilities.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { trackDir } from "./helpers/procs.js";
import { deployToken, mint, move } from "./helpers/tokens.js";

const CAST = join(new URL("../", import.meta.url).pathname, "node_modules/.bin/cast");
const K0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const A0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const K1 = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const A1 = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const CHALLENGE = "solvency snapshot audit";

let ltc: LitecoinNode;
let anvil: AnvilNode;
let dir: string;
let ltcUrl: string;
let h: number;
const proof: Record<string, string> = {};
let realUsdt: string;
let fakeUsdt: string;

const castSign = (key: string) =>
  execFileSync(CAST, ["wallet", "sign", "--private-key", key, CHALLENGE], { encoding: "utf8" }).trim();

async function ltcScan(name: string, address: string): Promise<void> {
  proof[name] = await signedLtcProof(ltc, ltcUrl, dir, name, address, CHALLENGE);
}

async function evmProof(name: string, args: string[], sigs: [string, string][]): Promise<void> {
  writeFileSync(join(dir, `${name}.csv`), sigs.map(([a, k]) => `${a},${castSign(k)}`).join("\n"));
  proof[name] = join(dir, `${name}.json`);
  const r = await runCli(
    [
      "reserves",
      "balances",
      ...args,
      "--proof",
      proof[name],
      "--challenge",
      CHALLENGE,
      "--signatures",
      join(dir, `${name}.csv`),
    ],
    { env: { CHAINGW_URL: anvil.url } },
  );
  expect(r.exitCode, r.stderr).toBe(0);
}

const mineLtc = async () =>
  ltc.rpc("generatetoaddress", [1, await ltc.rpc<string>("getnewaddress", ["", "bech32"])]);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-solvency-snap-"));
  trackDir(dir);
  [ltc, anvil] = await Promise.all([startLitecoind({ blocks: 110 }), startAnvil()]);
  ltcUrl = ltc.url.replace("://", `://${ltc.user}:${ltc.password}@`);
  const [P, Q, R] = await Promise.all([1, 2, 3].map(() => ltc.rpc<string>("getnewaddress", ["", "legacy"])));
  await ltc.rpc("sendtoaddress", [P, 0.7]);
  await ltc.rpc("sendtoaddress", [R, 0.3]);
  await mineLtc();
  h = await ltc.rpc<number>("getblockcount", []);
  await ltcScan("P", P as string);
  await ltcScan("R", R as string);
  // P's coin moves to Q (0.001 LTC fee), one block later Q is proven
  const [u] = await ltc.rpc<{ txid: string; vout: number }[]>("listunspent", [1, 9_999_999, [P]]);
  const raw = await ltc.rpc<string>("createrawtransaction", [
    [{ txid: u!.txid, vout: u!.vout }],
    { [Q as string]: 0.699 },
  ]);
  const signed = await ltc.rpc<{ hex: string }>("signrawtransactionwithwallet", [raw]);
  await ltc.rpc("sendrawtransaction", [signed.hex]);
  await mineLtc();
  await ltcScan("Q", Q as string);

  realUsdt = await deployToken(anvil.rpc, "Token", { symbol: "USDT", decimals: 6 });
  fakeUsdt = await deployToken(anvil.rpc, "Token", { symbol: "USDT", decimals: 6 });
  await mint(anvil.rpc, realUsdt, [A0], [1_000_000_000n]);
  await mint(anvil.rpc, fakeUsdt, [A0], [9_000_000_000n]);
  await anvil.rpc("evm_mine", []);
  await evmProof(
    "E1",
    [A0, A1, "--native", "--token", realUsdt, "--token", fakeUsdt],
    [
      [A0, K0],
      [A1, K1],
    ],
  );
  // the real token moves from A0 to A1, one block later A1 is proven
  await move(anvil.rpc, realUsdt, A0, A1, 1_000_000_000n);
  await anvil.rpc("evm_mine", []);
  await evmProof("E2", [A1, "--token", realUsdt], [[A1, K1]]);
  writeFileSync(join(dir, "assets.csv"), "asset,decimals\nLTC,8\nBTC,8\nUSDT,6\nETH,18\nDAI,18\n");
});

afterAll(async () => {
  await Promise.all([ltc?.stop(), anvil?.stop()]);
});

let built = 0;
/** a commitment for this audit whose customers owe these totals (assets not named: zero) */
async function owed(totals: Record<string, string>, challenge: string | null = CHALLENGE): Promise<string> {
  return buildCommitment(
    dir,
    `l${built++}`,
    Object.entries(totals).map(([a, v], i) => `c${i},${a},${v}`),
    challenge ?? undefined,
  );
}

const VERIFY = () => ["--verify", "--url-for", `utxo=${ltcUrl}`, "--url-for", `evm=${anvil.url}`];
const solvency = (c: string, ...args: string[]) =>
  runCli(["solvency", "--liabilities", c, ...args], { env: { CHAINGW_URL: "http://127.0.0.1:9/" } });
const first = (s: string) => s.split("\n")[0];

describe("solvency: one snapshot per chain, each coin once", () => {
  it("a coin proven at P (height h) and again at Q after it moved (h+1) counts once: judged at h+1", async () => {
    const c = await owed({ LTC: "1.3" });
    const back = ["--backing", "LTC=litecoin-regtest"];
    const forged = await solvency(
      c,
      "--reserves",
      `LTC=${proof.P}`,
      "--reserves",
      `LTC=${proof.Q}`,
      ...back,
      ...VERIFY(),
    );
    expect(forged.exitCode, forged.stdout + forged.stderr).toBe(1);
    expect(first(forged.stdout)).toBe(
      "NOT SOLVENT: LTC not covered: short 0.60100000 LTC (claimed reserves 0.69900000 of 1.30000000)",
    );
    expect(forged.stdout).toContain(
      `LTC: judged at one snapshot per chain: Litecoin regtest at height ${h + 1} (0 blocks below the node's tip)`,
    );
    expect(forged.stdout).toContain(
      "LTC: 1 outputs of lower proofs were spent by the joint height: not counted",
    );
    // each proof alone holds: the double count was only in the sum
    expect(forged.stdout).toMatch(
      /P\.json: LTC on Litecoin regtest at \d+: claimed 0\.0+, proven 0\.0+ \(holds\)/,
    );
    // honest control: a coin that stayed put at h counts beside Q at h+1
    const c2 = await owed({ LTC: "0.999" });
    const honest = await solvency(
      c2,
      "--reserves",
      `LTC=${proof.R}`,
      "--reserves",
      `LTC=${proof.Q}`,
      ...back,
      ...VERIFY(),
    );
    expect(honest.exitCode, honest.stdout + honest.stderr).toBe(0);
    expect(first(honest.stdout)).toMatch(/^SOLVENT: every asset covered \(5\) by proven reserves/);
    expect(honest.stdout).toMatch(
      /LTC .* 0\.9990* .* 0\.9990* .* 0\.9990* .* 100\.00% .* covered \(proven\)/,
    );
  });

  it("proofs of one chain at different heights without --verify, EVM proofs at different blocks: exit 2, nothing sent", async () => {
    const c = await owed({ LTC: "0.5", USDT: "1000" });
    const utxo = await solvency(
      c,
      "--reserves",
      `LTC=${proof.P}`,
      "--reserves",
      `LTC=${proof.Q}`,
      "--backing",
      "LTC=litecoin-regtest",
    );
    expect(utxo.exitCode).toBe(2);
    expect(utxo.stderr).toMatch(
      new RegExp(
        `--reserves: the "regtest" network: proofs at different heights \\(.*P\\.json at ${h}, .*Q\\.json at ${h + 1}\\) cannot be counted together — give --verify to judge them at the highest, or proofs of one height`,
      ),
    );
    const back = ["--backing", `USDT=anvil:${realUsdt}`];
    const evm = await solvency(
      c,
      "--reserves",
      `USDT=${proof.E1}#${realUsdt}`,
      "--reserves",
      `USDT=${proof.E2}`,
      ...back,
      ...VERIFY(),
    );
    expect(evm.exitCode).toBe(2);
    expect(evm.stderr).toMatch(
      /--reserves: anvil \(chain id 31337\): proofs at different blocks \(.*E1\.json at \d+, .*E2\.json at \d+\) cannot be counted together — make them at one block/,
    );
    expect(evm.stdout).toBe("");
    // control: the later proof alone proves the 1000 USDT once
    const one = await solvency(
      await owed({ USDT: "1000" }),
      "--reserves",
      `USDT=${proof.E2}`,
      ...back,
      ...VERIFY(),
    );
    expect(one.exitCode, one.stdout + one.stderr).toBe(0);
  });
});

describe("solvency: an asset is backed by its own network and contract only", () => {
  it("a regtest LTC proof backs neither BTC nor, without --backing, LTC; declared, it does", async () => {
    const btc = await solvency(await owed({ BTC: "0.1" }), "--reserves", `BTC=${proof.R}`, ...VERIFY());
    expect(btc.exitCode).toBe(1);
    expect(first(btc.stdout)).toBe(
      "NOT SOLVENT: BTC not covered: short 0.10000000 BTC (no reserves count for it)",
    );
    expect(btc.stdout).toMatch(
      /BTC: .*R\.json: NOT COUNTED: LTC on Litecoin regtest, not bitcoin on Bitcoin/,
    );
    const c = await owed({ LTC: "0.1" });
    const ltcDefault = await solvency(c, "--reserves", `LTC=${proof.R}`, ...VERIFY());
    expect(ltcDefault.exitCode).toBe(1);
    expect(ltcDefault.stdout).toMatch(/NOT COUNTED: LTC on Litecoin regtest, not litecoin on Litecoin/);
    const declared = await solvency(
      c,
      "--reserves",
      `LTC=${proof.R}`,
      "--backing",
      "LTC=litecoin-regtest",
      ...VERIFY(),
    );
    expect(declared.exitCode, declared.stdout).toBe(0);
    // by genesis hash: what getblockhash 0 answers on the node
    const genesis = await ltc.rpc<string>("getblockhash", [0]);
    const byHash = await solvency(
      c,
      "--reserves",
      `LTC=${proof.R}`,
      "--backing",
      `LTC=${genesis}`,
      ...VERIFY(),
    );
    expect(byHash.exitCode, byHash.stdout).toBe(0);
  });

  it('a token the custodian deployed and named "USDT" is not Tether\'s, nor the declared contract', async () => {
    const c = await owed({ USDT: "5000" });
    const byTable = await solvency(c, "--reserves", `USDT=${proof.E1}#${fakeUsdt}`, ...VERIFY());
    expect(byTable.exitCode).toBe(1);
    expect(byTable.stdout).toContain(
      `NOT COUNTED: a token named USDT at ${fakeUsdt} on anvil (chain id 31337), not Tether's USDT on Ethereum or Tether's USDT on TRON`,
    );
    const declared = ["--backing", `USDT=anvil:${realUsdt}`];
    const fake = await solvency(c, "--reserves", `USDT=${proof.E1}#${fakeUsdt}`, ...declared, ...VERIFY());
    expect(fake.exitCode).toBe(1);
    expect(fake.stdout).toContain(
      `NOT COUNTED: a token named USDT at ${fakeUsdt} on anvil (chain id 31337), not the token at ${realUsdt} on anvil (chain id 31337)`,
    );
    // control: the declared contract's 1000 USDT (at E1's block) covers 1000
    const real = await solvency(
      await owed({ USDT: "1000" }),
      "--reserves",
      `USDT=${proof.E1}#${realUsdt}`,
      ...declared,
      ...VERIFY(),
    );
    expect(real.exitCode, real.stdout + real.stderr).toBe(0);
  });

  it("native ether does not back DAI; an anvil proof edited to claim chain id 1 is not Ethereum's ether", async () => {
    const dai = await solvency(await owed({ DAI: "1" }), "--reserves", `DAI=${proof.E1}#native`, ...VERIFY());
    expect(dai.exitCode).toBe(1);
    expect(dai.stdout).toContain(
      "NOT COUNTED: the native coin of anvil (chain id 31337), not MakerDAO's DAI on Ethereum",
    );
    const d = JSON.parse(readFileSync(proof.E1 as string, "utf8"));
    d.chain.chain_id = "1";
    d.digest = digestOf(d);
    const edited = join(dir, "chain1.json");
    writeFileSync(edited, JSON.stringify(d));
    const c = await owed({ ETH: "1" });
    // without --verify the document's word is all there is: claimed, never proven
    const offline = await solvency(c, "--reserves", `ETH=${edited}#native`);
    expect(offline.exitCode).toBe(1);
    expect(first(offline.stdout)).toMatch(
      /^NOT PROVEN SOLVENT: ETH covered only by claimed reserves: proven 0\.000000000000000000 of 1\.000000000000000000 ETH/,
    );
    // with it the node says chain id 31337: it cannot check a chain-1 proof, so nothing is proven
    const online = await solvency(c, "--reserves", `ETH=${edited}#native`, ...VERIFY());
    expect(online.exitCode).toBe(3);
    expect(first(online.stdout)).toBe(
      "CANNOT SAY: ETH: a node could not say whether its reserves hold; proven 0.000000000000000000 of 1.000000000000000000 ETH",
    );
    expect(online.stdout).toContain("the node is on chain id 31337, the proof on 1");
    // control: the honest proof, declared as anvil's ether, covers 1 ETH (A0 and A1 signed)
    const honest = await solvency(
      c,
      "--reserves",
      `ETH=${proof.E1}#native`,
      "--backing",
      "ETH=anvil",
      ...VERIFY(),
    );
    expect(honest.exitCode, honest.stdout + honest.stderr).toBe(0);
  });
});

describe("solvency --challenge: signatures over another text prove nothing for this audit", () => {
  it("a commitment without a challenge: --challenge names the audit; a proof over another text proves nothing, the audit's own is SOLVENT", async () => {
    const c = await owed({ LTC: "0.3" }, null);
    const args = ["--reserves", `LTC=${proof.R}`, "--backing", "LTC=litecoin-regtest", ...VERIFY()];
    const other = await solvency(c, ...args, "--challenge", "audit 2027-01 for Example Exchange");
    expect(other.exitCode).toBe(1);
    expect(first(other.stdout)).toBe(
      `NOT PROVEN SOLVENT: LTC covered only by claimed reserves: proven 0.00000000 of 0.30000000 LTC (0.00%); not proven for this audit: ${proof.R}: its signatures are over "${CHALLENGE}", not the audit's challenge "audit 2027-01 for Example Exchange"`,
    );
    expect(other.stdout).toContain(
      'audit: challenge "audit 2027-01 for Example Exchange" (from the --challenge)',
    );
    expect(other.stdout).toContain(`signatures over "${CHALLENGE}" (NOT the audit's): ${proof.R}`);
    const own = await solvency(c, ...args, "--challenge", CHALLENGE);
    expect(own.exitCode, own.stdout + own.stderr).toBe(0);
    expect(own.stdout).toContain(`signatures over "${CHALLENGE}" (the audit's): ${proof.R}`);
    // without --verify the audit is named all the same; nothing is proven
    const offline = await solvency(
      c,
      "--reserves",
      `LTC=${proof.R}`,
      "--backing",
      "LTC=litecoin-regtest",
      "--challenge",
      CHALLENGE,
    );
    expect(offline.exitCode).toBe(1);
    expect(offline.stdout).toContain(`audit: challenge "${CHALLENGE}" (from the --challenge)`);
  });
});

describe("a proof verified long after its height says where it was judged and how old it is", () => {
  it("300 blocks later: judged at its own height, 300+ blocks below the tip, never 'now'", async () => {
    const report = () =>
      runCli(["reserves", "report", "--verify", "--url-for", `utxo=${ltcUrl}`, proof.R as string]);
    const before = await report();
    expect(before.exitCode, before.stdout + before.stderr).toBe(0);
    await ltc.rpc("generatetoaddress", [300, await ltc.rpc<string>("getnewaddress", ["", "bech32"])]);
    const r = await report();
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    const tip = await ltc.rpc<number>("getblockcount", []);
    expect(first(r.stdout)).toMatch(
      new RegExp(
        `^HOLDS: the proof holds, each re-read at its own height, not now \\(.*R\\.json at height ${h}, ${(tip - h).toLocaleString("en")} blocks below the node's tip ${tip}, made \\S+ \\(\\d+ min ago\\)\\); proven owned \\(signed for, re-read\\): 0\\.30000000 of 0\\.30000000 LTC; the rest is claimed only$`,
      ),
    );
    expect(r.stdout).not.toContain("now)");
    // the verifier's own line leads with what is proven, then what is only claimed
    const v = await runCli(["--url", ltcUrl, "reserves", "verify", proof.R as string]);
    expect(v.stdout).toMatch(
      new RegExp(
        `holds: proven owned 0\\.30000000 LTC \\(1 of 1 address signed the challenge\\), claimed only 0\\.00000000 LTC: 0\\.30000000 LTC in 1 output unspent at height ${h}`,
      ),
    );
  });
});
