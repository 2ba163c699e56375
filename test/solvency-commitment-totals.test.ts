/**
 * A chaingw commitment whose totals were edited under its root (issue 55, item 2: totals a root does not bind are
 * never taken as what is owed). A v1 root is SHA-256(0x01 ‖ left record ‖ right record): the totals are bound
 * only through the root's two children. A forger writes PEPE's total 0 (5,000 owed), recomputes the unkeyed
 * digest, and every customer's path still reaches the same root: `solvency` said SOLVENT, exit 0, on both paths
 * (chaingw's own LTC proof; an exchange's address file). Then (a8ef56a) the children were read from the
 * tree.bin beside the commitment, and a commitment alone was CANNOT SAY. Now `liabilities build` writes the
 * children into commitment.json: the commitment alone binds its totals — the forger's is NOT SOLVENT naming
 * both sums, one whose children were edited too NOT SOLVENT (they no longer hash to the root) — and a commitment
 * built before (no children) is read through the tree.bin beside it, else CANNOT SAY. The customer's
 * `liabilities verify` says in every verdict whether the root binds the totals.
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
/** the commitment as built (in its build's folder), and the same alone */
let built: string;
let builtAlone: string;
/** the forger's, alone: PEPE's total 0, re-digested (its children as built) */
let forged: string;
/** the forger's, alone: PEPE's total 0 and its children's PEPE sums 0, re-digested */
let forgedChildren: string;
/** a commitment as built before children were written (none), honest, alone */
let oldAlone: string;
/** the forger's without children: beside the build's tree.bin, and alone */
let oldForged: string;
let oldForgedAlone: string;
/** customer c3's proof (5,000 PEPE) */
let c3: string;

/** `d` re-digested (as a forger recomputes the unkeyed digest), written to `file` */
function publish(d: Record<string, unknown>, file: string): string {
  const body = structuredClone(d);
  delete body.digest;
  writeFileSync(file, JSON.stringify({ ...body, digest: digestOf(body) }, null, 2));
  return file;
}

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
  const p = await runCli(["liabilities", "proof", "--out", out, "c3"]);
  expect(p.exitCode, p.stderr).toBe(0);
  c3 = join(dir, "c3.json");
  writeFileSync(c3, p.stdout);
  const d = JSON.parse(readFileSync(built, "utf8"));
  expect(d.construction).toBe("merkle-sum-sha256/v1.1");
  // the root's two children, their PEPE sums adding up to the 5,000 owed
  expect(d.children).toHaveLength(2);
  expect(BigInt(d.children[0].sums[1]) + BigInt(d.children[1].sums[1])).toBe(5000n);
  builtAlone = publish(d, join(dir, "built-alone.json"));
  const pepe = d.totals.find((t: { asset: string }) => t.asset === "PEPE");
  pepe.amount = "0";
  pepe.base_units = "0";
  forged = publish(d, join(dir, "forged.json"));
  forgedChildren = publish(
    {
      ...d,
      children: d.children.map((c: { hash: string; sums: string[] }) => ({ ...c, sums: [c.sums[0], "0"] })),
    },
    join(dir, "forged-children.json"),
  );
  const { children: _, ...old } = JSON.parse(readFileSync(built, "utf8"));
  oldAlone = publish(old, join(dir, "old.json"));
  old.totals[1] = { asset: "PEPE", amount: "0", base_units: "0" };
  // the forger publishes it in the build's folder, beside the tree (the root unchanged)
  mkdirSync(join(dir, "old-forged"));
  copyFileSync(join(out, "tree.bin"), join(dir, "old-forged", "tree.bin"));
  oldForged = publish(old, join(dir, "old-forged", "commitment.json"));
  oldForgedAlone = publish(old, join(dir, "old-forged-alone.json"));
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

const SUMS =
  /the commitment's totals are not its root's \(PEPE: the root's children sum to 5000 base units, the commitment says 0\): they were edited under the same root/;
const CHILDREN =
  /the root's two children the commitment carries hash to [0-9a-f]{16}…, not to its root [0-9a-f]{16}…: they are not its root's children \(edited\)/;
const UNBOUND =
  /the commitment's totals are bound to its root [0-9a-f]{16}… only through the root's two children, which it does not carry \(built before chaingw wrote them into commitment.json\) and no tree.bin of its build is beside it/;

describe("a commitment's totals edited under its root (PEPE's 5,000 written 0, re-digested)", () => {
  it("chaingw's own proof: the commitment alone binds its totals — the forger's NOT SOLVENT naming both sums, edited children NOT SOLVENT; without children through the tree.bin, else CANNOT SAY; never SOLVENT", async () => {
    // the honest commitment alone: its totals relied on (NOT SOLVENT for the 5,000 PEPE nobody holds)
    const honest = await own(builtAlone);
    expect(honest.stderr).toBe("");
    expect(honest.stdout).toMatch(/^NOT SOLVENT: PEPE not covered: short 5000 PEPE/);
    expect(honest.stdout).toMatch(/digest matches, totals bound by the root\n/);
    expect(honest.exitCode).toBe(1);
    // before (main at a8ef56a): CANNOT SAY alone; before that SOLVENT, exit 0
    const bad = await own(forged);
    expect(bad.stdout).toMatch(
      new RegExp(`^NOT SOLVENT: the liabilities commitment does not hold: ${SUMS.source}`),
    );
    expect(bad.exitCode).toBe(1);
    const children = await own(forgedChildren);
    expect(children.stdout).toMatch(
      new RegExp(`^NOT SOLVENT: the liabilities commitment does not hold: ${CHILDREN.source}`),
    );
    expect(children.exitCode).toBe(1);
    // a commitment built before the children were written: through the tree.bin beside it, else CANNOT SAY
    const old = await own(oldForged);
    expect(old.stdout).toMatch(
      /^NOT SOLVENT: the liabilities commitment does not hold: the commitment's totals are not its root's \(PEPE: the root's children sum to 5000 base units, the commitment says 0\)/,
    );
    expect(old.exitCode).toBe(1);
    for (const file of [oldAlone, oldForgedAlone]) {
      const solo = await own(file);
      expect(solo.stdout).toMatch(
        new RegExp(`^CANNOT SAY: the liabilities cannot be relied on: ${UNBOUND.source}`),
      );
      expect(solo.exitCode).toBe(3);
    }
  });

  it("an exchange's address file: the same — the honest commitment alone NOT SOLVENT for PEPE, the forger's NOT SOLVENT naming both sums, an old one alone CANNOT SAY", async () => {
    const honest = await exchange(builtAlone);
    expect(honest.stderr).toBe("");
    expect(honest.stdout).toMatch(/^NOT SOLVENT: PEPE not covered/);
    expect(honest.exitCode).toBe(1);
    const bad = await exchange(forged);
    expect(bad.stdout).toMatch(new RegExp(`^NOT SOLVENT: the liabilities do not hold: ${SUMS.source}`));
    expect(bad.exitCode).toBe(1);
    const solo = await exchange(oldForgedAlone);
    expect(solo.stdout).toMatch(
      new RegExp(`^CANNOT SAY: the liabilities cannot be relied on: ${UNBOUND.source}`),
    );
    expect(solo.exitCode).toBe(3);
  });

  it("the customer's liabilities verify says whether the root binds the totals: bound by the children, by the path (no children), not read (--root); the forger's does not hold naming both sums", async () => {
    const verify = (...args: string[]) => runCli(["liabilities", "verify", c3, "--customer", "c3", ...args]);
    const honest = await verify("--commitment", builtAlone);
    expect(honest.stderr).toBe("");
    expect(honest.stdout).toMatch(
      /^customer "c3": 5000 PEPE included in the liabilities whose root is [0-9a-f]{64} \(created "[^"]+"; commitment digest [0-9a-f]{64}\)\n {2}the commitment's totals are its root's: the root's two children it carries hash to its root and sum to its totals\n$/,
    );
    expect(honest.exitCode).toBe(0);
    const json = await verify("--commitment", builtAlone, "--json");
    expect(JSON.parse(json.stdout).totals_binding).toBe("bound");
    const bad = await verify("--commitment", forged);
    expect(bad.stdout).toMatch(/^customer "c3": NOT proven in the liabilities/);
    expect(bad.stdout).toMatch(new RegExp(`\n  - ${SUMS.source}\n`));
    expect(bad.exitCode).toBe(1);
    const badJson = await verify("--commitment", forged, "--json");
    expect(JSON.parse(badJson.stdout).totals_binding).toBe("not-bound");
    const children = await verify("--commitment", forgedChildren);
    expect(children.stdout).toMatch(new RegExp(`\n  - ${CHILDREN.source}`));
    expect(children.exitCode).toBe(1);
    // a commitment built before the children were written: the proof's own path reached the root with its totals
    // (its proofs are this build's but for the commitment digest they name: the old document's)
    const oldProof = join(dir, "c3-old.json");
    const oldDigest = JSON.parse(readFileSync(oldAlone, "utf8")).digest;
    writeFileSync(
      oldProof,
      JSON.stringify({ ...JSON.parse(readFileSync(c3, "utf8")), commitment: oldDigest }),
    );
    const old = await runCli([
      "liabilities",
      "verify",
      oldProof,
      "--customer",
      "c3",
      "--commitment",
      oldAlone,
    ]);
    expect(old.stdout).toMatch(
      /\n {2}the commitment's totals are its root's: this proof's path reaches the root with them \(the root's hash covers both its children's sums\)\n$/,
    );
    expect(old.exitCode).toBe(0);
    const root = JSON.parse(readFileSync(built, "utf8")).root;
    const alone = await verify("--root", root);
    expect(alone.stdout).toMatch(
      /\n {2}the root's totals were not read: no commitment was given \(--commitment\), only the root\n$/,
    );
    expect(alone.exitCode).toBe(0);
    expect(JSON.parse((await verify("--root", root, "--json")).stdout).totals_binding).toBe("unread");
  });
});
