/**
 * Issue 55, item 3: one moment across chains. 5 LTC proven on Litecoin (regtest), then moved to a bridge and
 * proven again minutes later as 5 wrapped LTC on an EVM chain (anvil): against 10 LTC owed the same coins must
 * not count twice. The asset is judged at one moment, the latest of its chains' snapshots; Litecoin's output
 * counts only if it was still unspent then. Real litecoind (its clock set with setmocktime, so the blocks' times
 * are the story's), real anvil (anvil_setNextBlockTimestamp), real signatures: the forgery (the wrapped coins
 * proven after the move) beside the honest control (proven before it) in the same run.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SolvencyReport } from "../src/liabilities/solvency.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { buildCommitment, signedLtcProof } from "./helpers/liabilities.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { trackDir } from "./helpers/procs.js";
import { deployToken, mint } from "./helpers/tokens.js";

const CAST = new URL("../node_modules/.bin/cast", import.meta.url).pathname;
const CHALLENGE = "bridge audit";
const K0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const A0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";

let dir: string;
let ltc: LitecoinNode;
let anvil: AnvilNode;
let wltc: string;
let ltcProof: string;
/** the wrapped coins proven before the move (control) and after it (forgery) */
let before: string;
let after: string;
let commitment: string;
/** the story's clock: Litecoin's proof at base, wrapped coins at base+100, the move at base+200, again at base+300 */
let base: number;

/** `reserves balances A0 --token wLTC` at anvil's tip, signed over the challenge */
async function evmProof(name: string): Promise<string> {
  const proof = join(dir, `${name}.json`);
  const r = await runCli(
    [
      "reserves",
      "balances",
      A0,
      "--token",
      wltc,
      "--proof",
      proof,
      "--challenge",
      CHALLENGE,
      "--signatures",
      join(dir, "evm-sigs.csv"),
    ],
    { env: { CHAINGW_URL: anvil.url } },
  );
  expect(r.exitCode, r.stderr).toBe(0);
  return proof;
}

async function anvilBlockAt(time: number) {
  await anvil.rpc("anvil_setNextBlockTimestamp", [time]);
  await anvil.rpc("evm_mine", []);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-moment-"));
  trackDir(dir);
  [ltc, anvil] = await Promise.all([startLitecoind({ blocks: 101 }), startAnvil()]);
  writeFileSync(join(dir, "assets.csv"), "asset,decimals\nLTC,8\n");
  commitment = await buildCommitment(dir, "owed", ["c1,LTC,10"], CHALLENGE);
  base = Math.floor(Date.now() / 1000) + 600;
  // 5 LTC to the exchange's address P, proven at base
  const p = await ltc.rpc<string>("getnewaddress", ["", "legacy"]);
  await ltc.rpc("setmocktime", [base]);
  const txid = await ltc.rpc<string>("sendtoaddress", [p, 5]);
  await ltc.mine(1);
  ltcProof = await signedLtcProof(ltc, ltc.authUrl, dir, "ltc", p, CHALLENGE);
  // 5 wrapped LTC at A0 (8 places, as LTC), proven at base+100: other coins, the control
  wltc = await deployToken(anvil.rpc, "Token", { symbol: "WLTC", decimals: 8 });
  await mint(anvil.rpc, wltc, [A0], [5n * 10n ** 8n]);
  const sig = execFileSync(CAST, ["wallet", "sign", "--private-key", K0, CHALLENGE], { encoding: "utf8" });
  writeFileSync(join(dir, "evm-sigs.csv"), `${A0},${sig.trim()}\n`);
  await anvilBlockAt(base + 100);
  before = await evmProof("before");
  // Litecoin's blocks go on at base+150: a spend is placed by its block's median time past too (a block may be
  // dated ahead, judge/moment.ts), which passes the control's snapshot only blocks later
  await ltc.rpc("setmocktime", [base + 150]);
  await ltc.mine(11);
  // the 5 LTC of P moved to the bridge at base+200 (that very output spent)
  const tx = await ltc.rpc<{ details: { address: string; category: string; vout: number }[] }>(
    "gettransaction",
    [txid],
  );
  const vout = tx.details.find((d) => d.address === p && d.category === "receive")?.vout;
  const bridge = await ltc.rpc<string>("getnewaddress", ["", "legacy"]);
  await ltc.rpc("setmocktime", [base + 200]);
  const raw = await ltc.rpc<string>("createrawtransaction", [[{ txid, vout }], { [bridge]: 4.999 }]);
  const signed = await ltc.rpc<{ hex: string }>("signrawtransactionwithwallet", [raw]);
  await ltc.rpc("sendrawtransaction", [signed.hex]);
  await ltc.mine(1);
  // the same coins as wrapped LTC, proven again at base+300
  await anvilBlockAt(base + 300);
  after = await evmProof("after");
});

afterAll(async () => {
  await Promise.all([ltc?.stop(), anvil?.stop()]);
});

async function solvency(evm: string) {
  const r = await runCli([
    "solvency",
    "--liabilities",
    commitment,
    "--reserves",
    `LTC=${ltcProof}`,
    "--reserves",
    `LTC=${evm}#${wltc}`,
    "--backing",
    "LTC=litecoin-regtest",
    "--backing",
    `LTC=anvil:${wltc}`,
    "--verify",
    "--url-for",
    `utxo=${ltc.authUrl}`,
    "--url-for",
    `evm=${anvil.url}`,
    "--json",
  ]);
  return { ...r, report: JSON.parse(r.stdout) as SolvencyReport };
}

describe("one moment across chains: coins moved between chains count once", () => {
  it("5 LTC proven on Litecoin, moved to a bridge, proven again as 5 wrapped LTC after the move: NOT SOLVENT against 10 owed; the wrapped coins proven before the move: SOLVENT", async () => {
    const ok = await solvency(before);
    expect(ok.stderr).toBe("");
    expect(ok.report.verdict).toBe("solvent");
    expect(ok.exitCode).toBe(0);
    const honest = ok.report.assets[0]!;
    expect(honest.proven.amount).toBe("10.00000000");
    expect(honest.moment).toEqual({
      time: new Date((base + 100) * 1000).toISOString().replace(".000", ""),
      network: "anvil (chain id 31337)",
    });
    expect(honest.moved_before_moment).toEqual([]);

    const forged = await solvency(after);
    expect(forged.report.verdict).toBe("not-solvent");
    expect(forged.exitCode).toBe(1);
    const a = forged.report.assets[0]!;
    expect(a).toMatchObject({
      status: "not-covered",
      proven: { amount: "5.00000000" },
      claimed: { amount: "5.00000000" },
    });
    expect(a.moved_before_moment).toEqual([
      expect.objectContaining({ time: new Date((base + 200) * 1000).toISOString().replace(".000", "") }),
    ]);
    expect(forged.report.summary).toContain("1 output spent by the audit's moment");
  });
});

describe("one moment for the whole audit, not one per asset", () => {
  it("5 LTC proven on Litecoin, moved to a bridge, and the same value proven again after the move as 5 of another asset owed (WBTC on anvil): NOT SOLVENT for 5 of each; proven before the move: SOLVENT", async () => {
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nLTC,8\nWBTC,8\n");
    const two = await buildCommitment(dir, "owed-two", ["c1,LTC,5", "c2,WBTC,5"], CHALLENGE);
    const run = async (evm: string) => {
      const r = await runCli([
        "solvency",
        "--liabilities",
        two,
        "--reserves",
        `LTC=${ltcProof}`,
        "--reserves",
        `WBTC=${evm}#${wltc}`,
        "--backing",
        "LTC=litecoin-regtest",
        "--backing",
        `WBTC=anvil:${wltc}`,
        "--verify",
        "--url-for",
        `utxo=${ltc.authUrl}`,
        "--url-for",
        `evm=${anvil.url}`,
        "--json",
      ]);
      return { ...r, report: JSON.parse(r.stdout) as SolvencyReport };
    };
    const [ok, forged] = await Promise.all([run(before), run(after)]);
    expect(ok.stderr).toBe("");
    expect(ok.report.verdict).toBe("solvent");
    expect(ok.exitCode).toBe(0);
    expect(forged.stderr).toBe("");
    expect(forged.report.verdict).toBe("not-solvent");
    expect(forged.exitCode).toBe(1);
    const l = forged.report.assets.find((a) => a.asset === "LTC")!;
    expect(l).toMatchObject({ status: "not-covered", proven: { amount: "0.00000000" } });
    expect(l.moment).toMatchObject({ network: "anvil (chain id 31337)" });
    expect(forged.report.summary).toContain("1 output spent by the audit's moment");
    expect(forged.report.assets.find((a) => a.asset === "WBTC")).toMatchObject({ status: "covered" });
  });
});
