/**
 * An exchange's liabilities root whose coin names carry the format's own separators (issue 55, item 2: "formats
 * that do not bind their totals"). MEXC hashes a node's sums as `K1:v1,K2:v2,…`: a sibling's balances re-keyed
 * `{"PEPE:5000,SHIB": "0"}` spell the same text as `{"PEPE": "5000", "SHIB": "0"}`, so a file built that way
 * reaches the exchange's published root with the 5,000 PEPE owed gone from its totals. `solvency` against an
 * LTC proof on litecoind said SOLVENT, exit 0, for the re-keyed file beside NOT SOLVENT for the honest one.
 * A coin's name in an exchange's liabilities file is now ASCII letters, digits and `. _ -`: the re-keyed file
 * is refused by name (exit 2, nothing judged), the honest one still holds.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { trackDir } from "./helpers/procs.js";

const AUDIT = "audit 2026-12 of Example Exchange";
const sha = (s: string) => createHash("sha256").update(s).digest("hex");
/** MEXC's encoding of sums (src/exchange/liabilities/mexc.ts): keys sorted, `K:v` joined by commas */
const kv = (m: Record<string, string>) =>
  Object.keys(m)
    .sort()
    .map((k) => `${k}:${m[k]}`)
    .join(",");

let dir: string;
let ltc: LitecoinNode;
let proof: string;
/** the root the exchange published, and its two files: the honest sibling's balances, and re-keyed */
let root: string;
let honest: string;
let rekeyed: string;

/** A MEXC proof of one customer (1 LTC) and one sibling whose balances are `sib`, its root at level 1. */
function mexcFile(
  name: string,
  sib: Record<string, string>,
  rootHash: string | undefined,
): { file: string; root: string } {
  const self = { LTC: "1" };
  const leaf = sha(`PR-1,acct-1,${kv(self)}`).slice(0, 32);
  const sibHash = "ab".repeat(16);
  // MEXC fills BTC, ETH, USDC and USDT with 0 once a node has a right child
  const { LTC: sibLtc, ...rest } = sib;
  const totals = { BTC: "0", ETH: "0", USDC: "0", USDT: "0", LTC: String(1 + Number(sibLtc)), ...rest };
  const reached = sha(`${leaf},${sibHash},${kv(totals)}`).slice(0, 32);
  const doc = {
    pathList: [
      { level: 0, type: 2, hash: sibHash, balances: sib },
      { level: 1, type: 3, hash: rootHash ?? reached, balances: totals },
    ],
    self: { level: 0, type: 1, hash: leaf, balances: self, proofId: "PR-1", accountId: "acct-1" },
  };
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(doc, null, 1));
  return { file, root: reached };
}

/**
 * Bitunix (the Bitget family's `quoted-precision` form) hashes each node's sums cut to the asset's precision,
 * which the file itself states (`self.precisions`): with precision -1 the nodes bind only the tens, so a sibling's
 * 8 LTC written 0 reaches the same root, its total 9 written 1. `solvency` against the 2 LTC proof said SOLVENT,
 * exit 0, beside NOT SOLVENT for the honest file. A precision is now 0 to 36 and every amount at most its
 * places (the real files write each at exactly its precision): the cut drops nothing.
 */
function bitunixFile(
  name: string,
  sib: string,
  total: string,
  rootHash: string,
  precision: number,
  leaf: string,
) {
  const doc = {
    path: [
      { type: 2, height: 1, balances: { LTC: sib }, merkleLeaf: "ab".repeat(32) },
      { type: 3, height: 0, balances: { LTC: total }, merkleLeaf: rootHash },
    ],
    self: {
      type: 1,
      height: 1,
      nonce: "n0",
      encryptUid: "u1",
      merkleLeaf: leaf,
      balances: { LTC: "1" },
      precisions: { LTC: precision },
    },
  };
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(doc, null, 1));
  return file;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-asset-names-"));
  trackDir(dir);
  ltc = await startLitecoind({ blocks: 101 });
  const addr = await ltc.rpc<string>("getnewaddress", ["", "legacy"]);
  await ltc.rpc("sendtoaddress", [addr, 2]);
  await ltc.mine(1);
  const sigs = join(dir, "sigs.csv");
  writeFileSync(sigs, `${addr},${await ltc.rpc<string>("signmessage", [addr, AUDIT])}\n`);
  proof = join(dir, "ltc.json");
  const scan = await runCli(
    ["reserves", "scan", addr, "--proof", proof, "--challenge", AUDIT, "--signatures", sigs],
    { env: { CHAINGW_URL: ltc.authUrl } },
  );
  expect(scan.exitCode, scan.stderr).toBe(0);
  const h = mexcFile("honest.json", { LTC: "0.5", PEPE: "5000", SHIB: "0" }, undefined);
  [honest, root] = [h.file, h.root];
  const r = mexcFile("rekeyed.json", { LTC: "0.5", "PEPE:5000,SHIB": "0" }, root);
  rekeyed = r.file;
  // the re-keyed sums spell the honest ones: one root for both files
  expect(r.root).toBe(root);
});

afterAll(async () => {
  await ltc?.stop();
});

const solvency = (liabilities: string) =>
  runCli([
    "solvency",
    "--liabilities",
    liabilities,
    "--root",
    root,
    "--liabilities-date",
    new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
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

describe("a liabilities root whose coin names hold the format's separators (MEXC's K:v,K:v)", () => {
  it('the sibling re-keyed {"PEPE:5000,SHIB": "0"} reaches the published root without the 5,000 PEPE owed: refused by name (exit 2), never SOLVENT; the honest file NOT SOLVENT for PEPE', async () => {
    const good = await solvency(honest);
    expect(good.stderr).toBe("");
    expect(good.stdout).toMatch(/^NOT SOLVENT: PEPE not covered: short 5000 PEPE/);
    expect(good.exitCode).toBe(1);
    // before: SOLVENT, exit 0 — "PEPE:5000,SHIB" owed 0, PEPE not owed at all
    const bad = await solvency(rekeyed);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toContain(
      `pathList[0].balances."PEPE:5000,SHIB": not a coin's name (ASCII letters, digits and . _ - only, 1 to 64)`,
    );
    expect(bad.exitCode).toBe(2);
    // liabilities verify alike: the honest file holds against the root, the re-keyed one is refused
    const v = await runCli(["liabilities", "verify", honest, "--root", root]);
    expect(v.exitCode, v.stderr).toBe(0);
    const w = await runCli(["liabilities", "verify", rekeyed, "--root", root]);
    expect(w.stderr).toContain(`"PEPE:5000,SHIB": not a coin's name`);
    expect(w.exitCode).toBe(2);
  });

  it("a zero-width space or a Cyrillic letter in a coin's name (CoinEx's root): refused by name, exit 2", async () => {
    for (const name of ["ETH\u200b", "\u0415TH", "ETH "]) {
      const doc = {
        root: { hash: "00".repeat(32), balances: { [name]: "1" } },
        self: { nonce: "5e".repeat(32), balances: { [name]: "1" } },
        path: [{ hash: "ab".repeat(32), pos: "right", balances: { [name]: "0" } }],
      };
      const file = join(dir, `names-${name.codePointAt(0)}-${name.length}.json`);
      writeFileSync(file, JSON.stringify(doc));
      const r = await runCli(["liabilities", "verify", file]);
      expect(r.stderr).toContain("not a coin's name");
      expect(r.exitCode).toBe(2);
    }
  });
});

describe("a liabilities root whose nodes cut its sums to a precision the file states (Bitunix's self.precisions)", () => {
  it("precision -1: a sibling's 8 LTC written 0 reaches the same root, the total 9 written 1 — refused by name (exit 2), never SOLVENT; precision 0 beside an amount of one place refused too; the honest file at precision 8 NOT SOLVENT", async () => {
    const leaf = sha('u1,n0,{"LTC":"1"}');
    // the node hashes L ‖ R , sums cut to the precision , level: 9 and 1 cut to tens are both "0"
    const cutRoot = sha(`${leaf}${"ab".repeat(32)},{"LTC":"0"},0`);
    const honestCut = bitunixFile("bitunix-honest-cut.json", "8", "9", cutRoot, -1, leaf);
    const forgedCut = bitunixFile("bitunix-forged-cut.json", "0", "1", cutRoot, -1, leaf);
    const bitunix = (file: string, r: string) =>
      runCli([
        "solvency",
        "--liabilities",
        file,
        "--root",
        r,
        "--liabilities-date",
        new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
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
    // before: the forged file SOLVENT exit 0 (1 LTC owed, 2 proven), the honest one NOT SOLVENT (9 owed)
    for (const file of [honestCut, forgedCut]) {
      const r = await bitunix(file, cutRoot);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain("self.precisions.LTC -1: not a number of places (0 to 36)");
      expect(r.exitCode).toBe(2);
    }
    const zero = bitunixFile("bitunix-zero.json", "0.5", "1.5", cutRoot, 0, leaf);
    const z = await runCli(["liabilities", "verify", zero, "--root", cutRoot]);
    expect(z.stderr).toContain(
      "path[0].balances.LTC 0.5: more places than the asset's precision 0 (self.precisions): the nodes hash sums cut to 0 places, so the digits past them are bound by no hash",
    );
    expect(z.exitCode).toBe(2);
    // the honest form, every amount at its precision's places: read, and NOT SOLVENT for the 9 LTC owed
    const root8 = sha(`${leaf}${"ab".repeat(32)},{"LTC":"9.00000000"},0`);
    const honest8 = bitunixFile("bitunix-honest-8.json", "8.00000000", "9.00000000", root8, 8, leaf);
    const h = await bitunix(honest8, root8);
    expect(h.stderr).toBe("");
    expect(h.stdout).toMatch(/^NOT SOLVENT: LTC not covered: short 7\.00000000 LTC/);
    expect(h.exitCode).toBe(1);
  });
});

describe("a name that shows nothing is shown escaped", () => {
  it('a commitment\'s challenge "audit X" + U+200B: printed \\u200b, never as "audit X" (another text to every signature)', async () => {
    const input = join(dir, "zw-balances.csv");
    writeFileSync(input, "customer_id,asset,amount\nc1,LTC,1\n");
    const assets = join(dir, "zw-assets.csv");
    writeFileSync(assets, "asset,decimals\nLTC,8\n");
    const r = await runCli([
      "liabilities",
      "build",
      "--input",
      input,
      "--assets",
      assets,
      "--out",
      join(dir, "zw-out"),
      "--challenge",
      "audit X\u200b",
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('audit challenge "audit X\\u200b"');
    expect(r.stdout).not.toContain("\u200b");
  });
});
