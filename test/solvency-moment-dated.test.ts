/**
 * Issue 55, item 3, tried again as an auditor's adversary: a Bitcoin-family block's time is its miner's stamp,
 * which consensus lets run up to two hours ahead of the network's clock. 5 LTC proven on Litecoin (regtest) are
 * moved to a bridge and proven again as 5 wrapped LTC on anvil; the block that spends them is dated an hour
 * ahead, after the wrapped coins' snapshot, so "spent by the audit's moment" read from its stamp said no: the
 * same coins counted on both chains, SOLVENT against 10 LTC owed (exit 0). The spend is now placed by the block's
 * median time past too (BIP113: the 11 blocks before it, which its own stamp cannot move; judge/moment.ts
 * `datedAhead`): the chain cannot tell whether the spend was before the moment, so the output is "cannot say"
 * (CANNOT SAY, exit 3), the words naming both times — not NOT SOLVENT, which an honest spend minutes after the
 * moment, in a block its miner dated honestly, would look the same as. Real litecoind (its clock set with setmocktime: the move
 * at base+200, its block stamped base+3800), real anvil (anvil_setNextBlockTimestamp), real signatures
 * (litecoind signmessage, cast wallet sign). Honest control in the same run: the wrapped coins proven before the
 * move (whose block's median time past is after them) — SOLVENT.
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
const CHALLENGE = "dated audit";
const K0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const A0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";

let dir: string;
let ltc: LitecoinNode;
let anvil: AnvilNode;
let wltc: string;
let ltcProof: string;
let before: string;
let after: string;
let commitment: string;
let base: number;
/** the spending block: its height, its median time past */
let spentHeight: number;
let spentMedian: number;

const iso = (t: number) => new Date(t * 1000).toISOString().replace(".000", "");

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
  dir = mkdtempSync(join(tmpdir(), "chaingw-moment-dated-"));
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
  // 5 wrapped LTC at A0, proven at base+100: other coins, the control
  wltc = await deployToken(anvil.rpc, "Token", { symbol: "WLTC", decimals: 8 });
  await mint(anvil.rpc, wltc, [A0], [5n * 10n ** 8n]);
  const sig = execFileSync(CAST, ["wallet", "sign", "--private-key", K0, CHALLENGE], { encoding: "utf8" });
  writeFileSync(join(dir, "evm-sigs.csv"), `${A0},${sig.trim()}\n`);
  await anvilBlockAt(base + 100);
  before = await evmProof("before");
  // Litecoin's blocks go on at base+150 (the median time past then passes the control's snapshot)
  await ltc.rpc("setmocktime", [base + 150]);
  await ltc.mine(11);
  // the 5 LTC of P moved to the bridge at base+200, in a block its miner dates an hour ahead (base+3800)
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
  await ltc.rpc("setmocktime", [base + 3800]);
  await ltc.mine(1);
  await ltc.rpc("setmocktime", [base + 300]);
  spentHeight = await ltc.rpc<number>("getblockcount", []);
  const header = await ltc.rpc<{ time: number; mediantime: number }>("getblockheader", [
    await ltc.rpc<string>("getblockhash", [spentHeight]),
  ]);
  expect(header.time).toBe(base + 3800);
  spentMedian = header.mediantime;
  // the same coins as wrapped LTC, proven again at base+300: an hour before the spend's stamp
  await anvilBlockAt(base + 300);
  after = await evmProof("after");
});

afterAll(async () => {
  await Promise.all([ltc?.stop(), anvil?.stop()]);
});

const solvency = (evm: string, ...more: string[]) =>
  runCli([
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
    ...more,
  ]);

describe("a spend in a block dated ahead of the audit's moment", () => {
  it("5 LTC moved to a bridge in a block stamped an hour ahead, proven again as 5 wrapped LTC after the move: CANNOT SAY against 10 owed (was SOLVENT, exit 0), not counted on both chains; the wrapped coins proven before the move: SOLVENT", async () => {
    expect(spentMedian).toBeGreaterThan(base + 100);
    expect(spentMedian).toBeLessThanOrEqual(base + 300);
    const ok = await solvency(before, "--json");
    expect(ok.stderr).toBe("");
    const honest = JSON.parse(ok.stdout) as SolvencyReport;
    expect(honest.verdict).toBe("solvent");
    expect(honest.assets[0]?.moved_before_moment).toEqual([]);
    expect(honest.assets[0]?.spent_dated_ahead).toEqual([]);
    expect(ok.exitCode).toBe(0);

    // the chain cannot tell this spend from one made after the moment in a block its miner dated honestly, so
    // the output is "cannot say" for the audit: neither counted as held (SOLVENT, the coins twice) nor as moved
    // (NOT SOLVENT, which an exchange that moved its coins minutes after the moment would be called)
    const forged = await solvency(after);
    expect(forged.stderr).toBe("");
    expect(forged.stdout.split("\n")[0]).toBe(
      `CANNOT SAY: LTC: whether its reserves proven on chain are for this audit cannot be said; proven 5.00000000 of 10.00000000 LTC; not proven for this audit: 1 output spent in a block dated after the liabilities' date or the audit's moment whose median time past is not (block ${spentHeight}): whether still held then cannot be said; trusted as declared (--backing), not checked to be what they are declared: the token at ${wltc} on anvil (chain id 31337) as LTC`,
    );
    expect(forged.stdout).toContain(
      `was spent in block ${spentHeight}, dated ${iso(base + 3800)}, after the audit's moment ${iso(base + 300)}, but its median time past ${iso(spentMedian)} is not: a miner may date a block up to 2 hours ahead, so whether it was still held then cannot be said`,
    );
    expect(forged.exitCode).toBe(3);
    const j = JSON.parse((await solvency(after, "--json")).stdout) as SolvencyReport;
    expect(j.verdict).toBe("cannot-say");
    expect(j.assets[0]?.moved_before_moment).toEqual([]);
    expect(j.assets[0]?.spent_dated_ahead).toEqual([
      expect.objectContaining({
        height: spentHeight,
        fault: expect.objectContaining({
          code: "spend-dated-ahead",
          time: iso(base + 3800),
          median: iso(spentMedian),
          bound: "moment",
        }),
      }),
    ]);
  });
});
