/**
 * A liabilities build's asset table relabelled under its root (issue 55: names bound by no root). chaingw's
 * merkle-sum-sha256/v1 and /v2 roots bind each total by its asset's POSITION: the leaves and sums carry amounts
 * in the table's order, never a name or decimals. A forger who built honest liabilities — 5 LTC and 1 PEPE owed,
 * 2 LTC and 10 PEPE held — swaps the names in commitment.json's `assets` and `totals` (v2: `trees[].asset` too),
 * re-digests, and the root every customer checks is unchanged: `solvency` read 1 LTC and 5 PEPE owed and said
 * SOLVENT, exit 0, for an exchange 3 LTC short. The same with the decimals: LTC's 8 written 18 makes the 5 LTC owed
 * 0.0000000005. Real litecoind (the LTC held, signed by its wallet), real anvil (the PEPE token, signed by
 * cast). Now a build's root hashes its asset table (merkle-sum-sha256/v1.1, v2.1: each asset's name and decimals,
 * in order, length-prefixed): the relabelled commitment no longer reaches its root (NOT SOLVENT, naming it), and a
 * commitment of the old constructions is not relied on for what is owed: CANNOT SAY, exit 3, never SOLVENT.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestOf } from "../src/proof/jcs.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { signedLtcProof } from "./helpers/liabilities.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { trackDir } from "./helpers/procs.js";
import { deployToken, mint } from "./helpers/tokens.js";

const CAST = new URL("../node_modules/.bin/cast", import.meta.url).pathname;
const AUDIT = "audit 2026-12 of Example Exchange";
const K0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const A0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";

let dir: string;
let ltc: LitecoinNode;
let anvil: AnvilNode;
let pepe: string;
let ltcProof: string;
let pepeProof: string;
/** per construction: the honest commitment (in its build's folder), and the forger's relabelled ones */
interface Built {
  out: string;
  honest: string;
  swapped: string;
  decimals: string;
  /** the same build as the old construction (v1, v2) announces it: its root the tree's top (v2: the forest root) */
  old: string;
  oldSwapped: string;
  oldDecimals: string;
}
const built: Record<"v1" | "v2", Built> = { v1: {} as Built, v2: {} as Built };

const sha = (...b: Buffer[]) => createHash("sha256").update(Buffer.concat(b)).digest();
const u128 = (v: string) => Buffer.from(BigInt(v).toString(16).padStart(32, "0"), "hex");
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

/**
 * The commitment an old chaingw (merkle-sum-sha256/v1, v2) wrote for the same tree, computed here with
 * node:crypto as docs/liabilities.md states the old roots: v1 SHA-256(0x01 ‖ left record ‖ right record) of the
 * root's two children, v2 SHA-256(0x02 ‖ per asset: u32 height ‖ tree root ‖ u128 total).
 */
function oldConstruction(d: Doc): Doc {
  if (d.construction === "merkle-sum-sha256/v1.1") {
    const ch = d.children as { hash: string; sums: string[] }[];
    const rec = (c: { hash: string; sums: string[] }) => [Buffer.from(c.hash, "hex"), ...c.sums.map(u128)];
    const root = sha(Buffer.from([1]), ...rec(ch[0]), ...rec(ch[1])).toString("hex");
    return { ...d, construction: "merkle-sum-sha256/v1", root };
  }
  const trees = d.trees as unknown as { height: number; root: string }[];
  const root = sha(
    Buffer.from([2]),
    ...trees.flatMap((t, a) => [u32(t.height), Buffer.from(t.root, "hex"), u128(d.totals[a].base_units)]),
  ).toString("hex");
  return { ...d, construction: "merkle-sum-sha256/v2", root };
}

type Doc = {
  assets: { asset: string; decimals: number }[];
  totals: { asset: string; amount: string; base_units: string }[];
  trees?: { asset: string }[];
  construction: string;
} & Record<string, unknown>;

/** `d` re-digested (as a forger recomputes the unkeyed digest), written to `file` */
function publish(d: Doc, file: string): string {
  const body: Record<string, unknown> = structuredClone(d);
  delete body.digest;
  writeFileSync(file, JSON.stringify({ ...body, digest: digestOf(body) }, null, 2));
  return file;
}

/** LTC's and PEPE's names swapped in the table, the totals and (v2) the trees: every amount where it was */
function swapNames(d: Doc): Doc {
  const other = (n: string) => (n === "LTC" ? "PEPE" : n === "PEPE" ? "LTC" : n);
  return {
    ...d,
    assets: d.assets.map((a) => ({ ...a, asset: other(a.asset) })),
    totals: d.totals.map((t) => ({ ...t, asset: other(t.asset) })),
    ...(d.trees ? { trees: d.trees.map((t) => ({ ...t, asset: other(t.asset) })) } : {}),
  };
}

/** LTC's decimals 8 written 18 (its total's amount rewritten to match its base units) */
function relabelDecimals(d: Doc): Doc {
  const k = d.assets.findIndex((a) => a.asset === "LTC");
  const assets = d.assets.map((a, i) => (i === k ? { ...a, decimals: 18 } : a));
  const totals = d.totals.map((t, i) =>
    i === k ? { ...t, amount: `0.${t.base_units.padStart(18, "0")}`.replace(/0+$/, "") } : t,
  );
  return { ...d, assets, totals };
}

async function build(v: "v1" | "v2"): Promise<void> {
  const out = join(dir, `build-${v}`);
  const b = await runCli([
    "liabilities",
    "build",
    "--input",
    join(dir, "balances.csv"),
    "--assets",
    join(dir, "assets.csv"),
    "--out",
    out,
    "--challenge",
    AUDIT,
    ...(v === "v2" ? ["--construction", "v2"] : []),
  ]);
  expect(b.exitCode, b.stderr).toBe(0);
  const honest = join(out, "commitment.json");
  const d: Doc = JSON.parse(readFileSync(honest, "utf8"));
  const old = oldConstruction(d);
  built[v] = {
    out,
    honest,
    swapped: publish(swapNames(d), join(dir, `swapped-${v}.json`)),
    decimals: publish(relabelDecimals(d), join(dir, `decimals-${v}.json`)),
    old: publish(old, join(dir, `old-${v}.json`)),
    oldSwapped: publish(swapNames(old), join(dir, `old-swapped-${v}.json`)),
    oldDecimals: publish(relabelDecimals(old), join(dir, `old-decimals-${v}.json`)),
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-asset-table-"));
  trackDir(dir);
  [ltc, anvil] = await Promise.all([startLitecoind({ blocks: 101 }), startAnvil()]);
  // 2 LTC held at P, signed by litecoind's wallet over the audit's challenge
  const p = await ltc.rpc<string>("getnewaddress", ["", "legacy"]);
  await ltc.rpc("sendtoaddress", [p, 2]);
  await ltc.mine(1);
  ltcProof = await signedLtcProof(ltc, ltc.authUrl, dir, "ltc", p, AUDIT);
  // 10 PEPE (8 places) held at A0, signed by cast
  pepe = await deployToken(anvil.rpc, "Token", { symbol: "PEPE", decimals: 8 });
  await mint(anvil.rpc, pepe, [A0], [10n * 10n ** 8n]);
  const sig = execFileSync(CAST, ["wallet", "sign", "--private-key", K0, AUDIT], { encoding: "utf8" });
  writeFileSync(join(dir, "evm-sigs.csv"), `${A0},${sig.trim()}\n`);
  pepeProof = join(dir, "pepe.json");
  const r = await runCli(
    [
      "reserves",
      "balances",
      A0,
      "--token",
      pepe,
      "--proof",
      pepeProof,
      "--challenge",
      AUDIT,
      "--signatures",
      join(dir, "evm-sigs.csv"),
    ],
    { env: { CHAINGW_URL: anvil.url } },
  );
  expect(r.exitCode, r.stderr).toBe(0);
  // owed: 5 LTC (3 more than held) and 1 PEPE
  writeFileSync(join(dir, "balances.csv"), "customer_id,asset,amount\nc1,LTC,4\nc2,LTC,1\nc3,PEPE,1\n");
  writeFileSync(join(dir, "assets.csv"), "asset,decimals\nLTC,8\nPEPE,8\n");
  await build("v1");
  await build("v2");
});

afterAll(async () => {
  await Promise.all([ltc?.stop(), anvil?.stop()]);
});

const solvency = (liabilities: string) =>
  runCli([
    "solvency",
    "--liabilities",
    liabilities,
    "--reserves",
    `LTC=${ltcProof}`,
    "--reserves",
    `PEPE=${pepeProof}#${pepe}`,
    "--backing",
    "LTC=litecoin-regtest",
    "--backing",
    `PEPE=anvil:${pepe}`,
    "--challenge",
    AUDIT,
    "--verify",
    "--url-for",
    `utxo=${ltc.authUrl}`,
    "--url-for",
    `evm=${anvil.url}`,
  ]);

const CHILDREN =
  /^NOT SOLVENT: the liabilities commitment does not hold: the root's two children the commitment carries hash to [0-9a-f]{16}…, not to its root [0-9a-f]{16}…: they are not its root's children \(edited\)/;
const FOREST =
  /^NOT SOLVENT: the liabilities commitment does not hold: the commitment's root [0-9a-f]{16}… is not the hash of its trees and totals \([0-9a-f]{16}…\): its totals are not its root's/;
const UNBOUND = (construction: string, table: string) =>
  new RegExp(
    `^CANNOT SAY: the liabilities cannot be relied on: the commitment's root \\(merkle-sum-sha256/${construction}\\) binds each total by its asset's position, not its name or decimals: its asset table \\(${table}\\) could be relabelled under the same root`,
  );

describe("a liabilities asset table relabelled under its root (LTC↔PEPE swapped; LTC's decimals 8 written 18)", () => {
  for (const v of ["v1", "v2"] as const)
    it(`${v}: the honest build NOT SOLVENT (3 LTC short); swapped names were SOLVENT exit 0, now NOT SOLVENT (off the root); the old construction CANNOT SAY`, async () => {
      const b = built[v];
      expect(JSON.parse(readFileSync(b.honest, "utf8")).construction).toBe(`merkle-sum-sha256/${v}.1`);
      const honest = await solvency(b.honest);
      expect(honest.stderr).toBe("");
      expect(honest.stdout).toMatch(/^NOT SOLVENT: LTC not covered: short 3\.00000000 LTC/);
      expect(honest.exitCode).toBe(1);
      // before: "SOLVENT: every asset covered (2) by proven reserves", exit 0 (PEPE 5 owed, LTC 1)
      const swapped = await solvency(b.swapped);
      expect(swapped.stdout).toMatch(v === "v1" ? CHILDREN : FOREST);
      expect(swapped.exitCode).toBe(1);
      // the same tree as an old chaingw announced it: its root binds no name, honest or swapped alike
      const old = await solvency(b.old);
      expect(old.stdout).toMatch(UNBOUND(v, "LTC at 8 decimals, PEPE at 8 decimals"));
      expect(old.exitCode).toBe(3);
      const oldSwapped = await solvency(b.oldSwapped);
      expect(oldSwapped.stdout).toMatch(UNBOUND(v, "PEPE at 8 decimals, LTC at 8 decimals"));
      expect(oldSwapped.stdout).not.toMatch(/^SOLVENT/m);
      expect(oldSwapped.exitCode).toBe(3);
      // decimals relabelled: refused against the proof's coins (the chain's 8), before and after
      for (const file of [b.decimals, b.oldDecimals]) {
        const r = await solvency(file);
        expect(r.stderr).toMatch(/the proof's coins has 8 decimals, the liabilities' LTC 18/);
        expect(r.exitCode).toBe(2);
      }
    });

  it("the customer's liabilities verify: the root binds the asset table (v1.1, v2.1); a relabelled commitment does not hold; an old proof holds, saying its root binds no name", async () => {
    for (const v of ["v1", "v2"] as const) {
      const b = built[v];
      const p = await runCli(["liabilities", "proof", "--out", b.out, "c1"]);
      expect(p.exitCode, p.stderr).toBe(0);
      const proof = join(dir, `c1-${v}.json`);
      writeFileSync(proof, p.stdout);
      // v1.1's proof carries the table its root hashes; v2.1's is checked against the commitment's
      expect(JSON.parse(p.stdout).assets).toEqual(
        v === "v1"
          ? [
              { asset: "LTC", decimals: 8 },
              { asset: "PEPE", decimals: 8 },
            ]
          : undefined,
      );
      const verify = (commitment: string, file = proof, ...more: string[]) =>
        runCli(["liabilities", "verify", file, "--customer", "c1", "--commitment", commitment, ...more]);
      const honest = await verify(b.honest);
      expect(honest.stderr).toBe("");
      // the root binds the table: no caveat beside the totals' line
      expect(honest.stdout).toMatch(
        /^customer "c1": 4\.00000000 LTC included in [^\n]+\n {2}the commitment's totals are its root's[^\n]+\n$/,
      );
      expect(honest.exitCode).toBe(0);
      const json = JSON.parse((await verify(b.honest, proof, "--json")).stdout);
      expect(json.names_binding).toBe("bound");
      expect(json.findings).toContainEqual(
        expect.objectContaining({
          step: "names",
          status: "ok",
          text: 'the root binds the asset table ("LTC" at 8 decimals, "PEPE" at 8 decimals): every amount is of the asset named',
        }),
      );
      for (const forged of [b.swapped, b.decimals]) {
        const r = await verify(forged);
        expect(r.stdout).toMatch(/^customer "c1": NOT proven in the liabilities/);
        expect(r.exitCode).toBe(1);
      }
      // the old construction's proof (no asset table; the old root and digest) against the old commitment
      const oldDoc = JSON.parse(readFileSync(b.old, "utf8"));
      const { assets: _, ...rest } = JSON.parse(p.stdout);
      const oldProof = join(dir, `c1-old-${v}.json`);
      writeFileSync(
        oldProof,
        JSON.stringify({
          ...rest,
          construction: oldDoc.construction,
          root: oldDoc.root,
          commitment: oldDoc.digest,
        }),
      );
      const old = await verify(b.old, oldProof);
      expect(old.stdout).toMatch(
        new RegExp(
          `^customer "c1": 4\\.00000000 LTC included in [^\\n]+\\n {2}the commitment's totals are its root's[^\\n]+\\n {2}the leaf holds, but the root \\(merkle-sum-sha256/${v}\\) does not bind the assets' names or decimals: it binds each amount by its asset's position \\("LTC" at 8 decimals, "PEPE" at 8 decimals as the commitment states them\\), so the same root stands under a relabelled table\\n$`,
        ),
      );
      expect(old.exitCode).toBe(0);
      expect(JSON.parse((await verify(b.old, oldProof, "--json")).stdout).names_binding).toBe("not-bound");
    }
  });

  it("--root alone (v1.1): the proof's asset table is the root's — relabelled in the proof, it does not reach the announced root", async () => {
    const root = JSON.parse(readFileSync(built.v1.honest, "utf8")).root;
    const proof = join(dir, "c1-v1.json");
    const ok = await runCli(["liabilities", "verify", proof, "--customer", "c1", "--root", root]);
    expect(ok.stdout).toMatch(/^customer "c1": 4\.00000000 LTC included in the liabilities whose root is/);
    expect(ok.exitCode).toBe(0);
    // the customer's own proof relabelled (LTC↔PEPE in its table and balances): not the announced root
    const d = JSON.parse(readFileSync(proof, "utf8"));
    const other = (n: string) => (n === "LTC" ? "PEPE" : "LTC");
    const forged = join(dir, "c1-v1-swapped.json");
    writeFileSync(
      forged,
      JSON.stringify({
        ...d,
        assets: d.assets.map((a: { asset: string }) => ({ ...a, asset: other(a.asset) })),
        balances: d.balances.map((x: { asset: string }) => ({ ...x, asset: other(x.asset) })),
      }),
    );
    const bad = await runCli(["liabilities", "verify", forged, "--customer", "c1", "--root", root]);
    expect(bad.stdout).toMatch(/^customer "c1": NOT proven in the liabilities whose root is/);
    expect(bad.stdout).toMatch(/the path leads to [0-9a-f]{12}…, not to the committed root/);
    expect(bad.exitCode).toBe(1);
  });
});
