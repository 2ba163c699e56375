/**
 * A chaingw commitment whose totals were edited under its root (issue 55, item 2: totals a root does not bind are
 * never taken as what is owed). A v1 root is SHA-256(0x01 ‖ left record ‖ right record): the totals are bound
 * only through the root's two children, which are in the build's tree.bin, not in commitment.json. A forger
 * writes PEPE's total 0 (5,000 owed), recomputes the unkeyed digest, and every customer's path still reaches
 * the same root: `solvency` said SOLVENT, exit 0, on both paths (chaingw's own LTC proof; an exchange's
 * address file), beside NOT SOLVENT for the commitment as built. Now the root's children are read from the
 * tree.bin beside the commitment: the edited totals do not hold (NOT SOLVENT, naming PEPE); with no tree beside
 * it the totals are not relied on (CANNOT SAY, exit 3).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestOf } from "../src/proof/jcs.js";
import { runCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { trackDir } from "./helpers/procs.js";

const AUDIT = "audit 2026-12 of Example Exchange";
const HUOBI = "huobi";

let dir: string;
let ltc: LitecoinNode;
let proof: string;
let addressFile: string;
/** the commitment as built (in its build's folder), and the forger's: PEPE's total 0, re-digested */
let built: string;
let forged: string;
/** the forger's commitment alone, no tree.bin beside it */
let alone: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-commitment-totals-"));
  trackDir(dir);
  ltc = await startLitecoind({ blocks: 101 });
  const addr = await ltc.rpc<string>("getnewaddress", ["", "legacy"]);
  await ltc.rpc("sendtoaddress", [addr, 2]);
  await ltc.mine(1);
  const height = await ltc.rpc<number>("getblockcount");
  const sigs = join(dir, "sigs.csv");
  writeFileSync(sigs, `${addr},${await ltc.rpc<string>("signmessage", [addr, AUDIT])}\n`);
  proof = join(dir, "ltc.json");
  const scan = await runCli(
    ["reserves", "scan", addr, "--proof", proof, "--challenge", AUDIT, "--signatures", sigs],
    { env: { CHAINGW_URL: ltc.authUrl } },
  );
  expect(scan.exitCode, scan.stderr).toBe(0);
  // the exchange's address file in HTX's layout: the LTC row litecoind signed over HTX's text
  const sig = await ltc.rpc<string>("signmessage", [addr, HUOBI]);
  addressFile = join(dir, "reserves.csv");
  writeFileSync(
    addressFile,
    [
      "coin,snapshot height,balance",
      `LTC,${height},2`,
      "",
      "coin,address,snapshot height,balance,message,signature",
      `LTC,${addr},${height},2,${HUOBI},${sig}`,
      "",
    ].join("\n"),
  );
  writeFileSync(join(dir, "balances.csv"), "customer_id,asset,amount\nc1,LTC,1\nc2,LTC,0.5\nc3,PEPE,5000\n");
  writeFileSync(join(dir, "assets.csv"), "asset,decimals\nLTC,8\nPEPE,0\n");
  const out = join(dir, "build");
  const b = await runCli([
    "liabilities",
    "build",
    "--input",
    join(dir, "balances.csv"),
    "--assets",
    join(dir, "assets.csv"),
    "--out",
    out,
  ]);
  expect(b.exitCode, b.stderr).toBe(0);
  built = join(out, "commitment.json");
  const d = JSON.parse(readFileSync(built, "utf8"));
  expect(d.construction).toBe("merkle-sum-sha256/v1");
  const pepe = d.totals.find((t: { asset: string }) => t.asset === "PEPE");
  pepe.amount = "0";
  pepe.base_units = "0";
  delete d.digest;
  d.digest = digestOf(d);
  // the forger publishes it in the build's folder, beside the tree (the root unchanged)
  mkdirSync(join(dir, "forged"));
  copyFileSync(join(out, "tree.bin"), join(dir, "forged", "tree.bin"));
  forged = join(dir, "forged", "commitment.json");
  writeFileSync(forged, JSON.stringify(d, null, 2));
  alone = join(dir, "alone.json");
  writeFileSync(alone, JSON.stringify(d, null, 2));
});

afterAll(async () => {
  await ltc?.stop();
});

/** solvency of chaingw's own LTC proof against `liabilities` */
const own = (liabilities: string) =>
  runCli([
    "solvency",
    "--liabilities",
    liabilities,
    "--reserves",
    `LTC=${proof}`,
    "--backing",
    "LTC=litecoin-regtest",
    "--challenge",
    AUDIT,
    "--verify",
    "--url-for",
    `utxo=${ltc.authUrl}`,
  ]);

/** solvency of the exchange's address file against `liabilities` */
const exchange = (liabilities: string) =>
  runCli([
    "--network",
    "regtest",
    "solvency",
    "--liabilities",
    liabilities,
    "--reserves",
    addressFile,
    "--backing",
    "LTC=litecoin-regtest",
    "--challenge",
    HUOBI,
    "--node",
    `LTC=${ltc.authUrl}`,
  ]);

describe("a commitment's totals edited under its root (PEPE's 5,000 written 0, re-digested)", () => {
  it("chaingw's own proof: NOT SOLVENT naming PEPE's totals beside the tree, CANNOT SAY alone — never SOLVENT; as built NOT SOLVENT for the 5,000 PEPE", async () => {
    const honest = await own(built);
    expect(honest.stdout).toMatch(/^NOT SOLVENT: PEPE not covered: short 5000 PEPE/);
    expect(honest.exitCode).toBe(1);
    // before: SOLVENT, exit 0
    const bad = await own(forged);
    expect(bad.stdout).toMatch(
      /^NOT SOLVENT: the liabilities commitment does not hold: the commitment's totals are not its root's \(PEPE: the root's children sum to 5000 base units, the commitment says 0\)/,
    );
    expect(bad.exitCode).toBe(1);
    const solo = await own(alone);
    expect(solo.stdout).toMatch(
      /^CANNOT SAY: the liabilities cannot be relied on: the commitment's totals are bound to its root [0-9a-f]{16}… only through the root's two children, which are in its build's tree.bin, and there is none beside it/,
    );
    expect(solo.exitCode).toBe(3);
  });

  it("an exchange's address file: the same — NOT SOLVENT beside the tree, CANNOT SAY alone; as built NOT SOLVENT for PEPE", async () => {
    const honest = await exchange(built);
    expect(honest.stderr).toBe("");
    expect(honest.stdout).toMatch(/^NOT SOLVENT: PEPE not covered/);
    expect(honest.exitCode).toBe(1);
    const bad = await exchange(forged);
    expect(bad.stdout).toMatch(
      /^NOT SOLVENT: the liabilities do not hold: the commitment's totals are not its root's \(PEPE: the root's children sum to 5000 base units, the commitment says 0\)/,
    );
    expect(bad.exitCode).toBe(1);
    const solo = await exchange(alone);
    expect(solo.stdout).toMatch(
      /^CANNOT SAY: the liabilities cannot be relied on: the commitment's totals are bound/,
    );
    expect(solo.exitCode).toBe(3);
  });
});
