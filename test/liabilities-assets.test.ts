/**
 * Liabilities at an exchange's shape: hundreds of assets, each customer holding a few. Built through the
 * real CLI (the streamed build, its workers reading the input in parts), every total held against a sum
 * made here from the generated rows, every customer's proof checked; a customer holding only the last asset;
 * a true duplicate named by its own line and asset, never another's; limits refused by name (exit 2,
 * nothing written).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCommitment } from "../src/liabilities/commitment.js";
import { CONSTRUCTION_V2 } from "../src/liabilities/format.js";
import { ProofSource } from "../src/liabilities/proof.js";
import { parseProofs, verifyLiabilityProof } from "../src/liabilities/verify.js";
import { digestOf } from "../src/proof/jcs.js";
import { runCli } from "./helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "chaingw-liab-assets-"));
const cli = (...args: string[]) => runCli(args, { timeoutMs: 240_000 });

interface Shape {
  assets: string[];
  decimals: number[];
  /** the CSV's text */
  csv: string;
  /** customer → asset index → base units */
  held: Map<string, Map<number, bigint>>;
}

/** `customers` customers over `n` assets holding 1-5 each; "last-only" holds only the last asset. */
function shape(n: number, customers: number, padTo = 0): Shape {
  let x = 0x9e3779b9 ^ n;
  const rnd = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
  const assets = Array.from({ length: n }, (_, i) => `A${String(i).padStart(3, "0")}`);
  const decimals = assets.map((_, i) => i % 19);
  const held = new Map<string, Map<number, bigint>>();
  const lines = ["customer_id,asset,amount"];
  const row = (id: string, a: number, base: bigint) => {
    const d = decimals[a];
    const s = base.toString().padStart(d + 1, "0");
    lines.push(`${id},${assets[a]},${d ? `${s.slice(0, -d)}.${s.slice(-d)}` : s}`);
    if (!held.has(id)) held.set(id, new Map());
    held.get(id)!.set(a, base);
  };
  for (let c = 0; c < customers; c++) {
    const id = `cust-${c}`;
    const mine = new Set<number>();
    const h = 1 + (rnd() % 5);
    while (mine.size < h) mine.add(rnd() % n);
    for (const a of mine) row(id, a, BigInt(rnd()) * BigInt(rnd() % 1000) + BigInt(rnd() % 7));
  }
  row("last-only", n - 1, 123456789n);
  // assets past 255 and 256 whose low byte is another's: 294 read as 38 was the bug
  row("wide", n - 1, 1n);
  row("wide", (n - 1) & 0xff, 2n);
  if (n > 294) {
    row("wide", 294, 3n);
    row("wide", 38, 4n);
  }
  // the workers read a file from 1 MiB on in parts: comment lines make it that long
  let csv = `${lines.join("\n")}\n`;
  while (csv.length < padTo) csv += `# ${"padding ".repeat(12)}\n`;
  return { assets, decimals, csv, held };
}

/** Builds the shape, then checks every total and every customer's proof. */
async function buildAndCheck(name: string, s: Shape, ...more: string[]): Promise<string> {
  const assetsFile = join(dir, `${name}-assets.csv`);
  const input = join(dir, `${name}-balances.csv`);
  const out = join(dir, name);
  writeFileSync(
    assetsFile,
    `asset,decimals\n${s.assets.map((a, i) => `${a},${s.decimals[i]}`).join("\n")}\n`,
  );
  writeFileSync(input, s.csv);
  const r = await cli(
    "liabilities",
    "build",
    "--input",
    input,
    "--assets",
    assetsFile,
    "--out",
    out,
    ...more,
  );
  expect(r.stderr).toBe("");
  expect(r.exitCode).toBe(0);
  const text = readFileSync(join(out, "commitment.json"), "utf8");
  const c = parseCommitment(text, "commitment.json");
  // the totals, summed here from the generated rows
  const totals = s.assets.map(() => 0n);
  for (const m of s.held.values()) for (const [a, v] of m) totals[a] += v;
  expect(c.totals.map((t) => t.base_units)).toEqual(totals.map(String));
  // every proof, made in-process (at 800 assets a v1 proof is ~100 KB: 1,000 of them past a pipe's buffer)
  const src = new ProofSource(out);
  let n = 0;
  for await (const made of src.all()) {
    n++;
    const [p] = parseProofs(JSON.stringify(made), "proof.json");
    const v = verifyLiabilityProof(p, c, { customer: p.customer });
    expect(v.faults).toEqual([]);
    expect(v.verdict).toBe("holds");
    const m = s.held.get(p.customer)!;
    // v2 lists the assets held, v1 every asset
    if (p.construction === CONSTRUCTION_V2)
      expect(p.balances.length).toBe([...m.values()].filter((x) => x > 0n).length);
    v.balances.forEach((b, a) => {
      expect(b.base_units).toBe((m.get(a) ?? 0n).toString());
    });
  }
  src.close();
  expect(n).toBe(s.held.size);
  return out;
}

describe("liabilities build over many assets", () => {
  it("257 assets: every total exact, every proof holds", async () => {
    await buildAndCheck("a257", shape(257, 40));
  });

  it("257 assets, construction v2: every total exact, every proof holds", async () => {
    await buildAndCheck("a257v2", shape(257, 40), "--construction", "v2");
  });

  it("800 assets, construction v1: every total exact, every proof holds", async () => {
    await buildAndCheck("a800v1", shape(800, 150));
  });

  it("800 assets v2, 600 customers holding 1-5 each, read in parts: every total exact, every proof holds", async () => {
    const s = shape(800, 600, 1.1 * 2 ** 20);
    const out = await buildAndCheck("a800", s, "--construction", "v2");
    const c = JSON.parse(readFileSync(join(out, "commitment.json"), "utf8"));
    expect(c.construction).toBe("merkle-sum-sha256/v2.1");
    expect(c.trees.length).toBe(800);
    // the customer holding only the last asset, through the CLI's verifier
    const p = await cli("liabilities", "proof", "--out", out, "last-only");
    const f = join(dir, "last-only.json");
    writeFileSync(f, p.stdout);
    const proof = JSON.parse(p.stdout);
    expect(proof.balances).toEqual([{ asset: "A799", amount: "12345678.9", base_units: "123456789" }]);
    expect(proof.leaves.map((l: { asset: string }) => l.asset)).toEqual(["A799", "A799"]);
    const v = await cli(
      "liabilities",
      "verify",
      f,
      "--commitment",
      join(out, "commitment.json"),
      "--customer",
      "last-only",
    );
    expect(v.stderr).toBe("");
    expect(v.stdout).toContain('customer "last-only": 12345678.9 A799 included');
    expect(v.exitCode).toBe(0);
    // a proof of a customer holding 1-5 assets of 800: a few kilobytes, not the v1 proof's ~100 KB
    expect(p.stdout.length).toBeLessThan(20_000);
    forgeries(out, "wide");
  });

  it("a true duplicate past asset 256 is refused naming its own line and asset", async () => {
    const s = shape(800, 300, 1.1 * 2 ** 20);
    const lines = s.csv.split("\n");
    // cust-0's first row again, further down: that line is named, with that asset
    const first = lines[1];
    const [id, asset] = first.split(",");
    lines.splice(200, 0, first);
    const input = join(dir, "dup-balances.csv");
    const assetsFile = join(dir, "dup-assets.csv");
    writeFileSync(input, lines.join("\n"));
    writeFileSync(
      assetsFile,
      `asset,decimals\n${s.assets.map((a, i) => `${a},${s.decimals[i]}`).join("\n")}\n`,
    );
    const out = join(dir, "dup");
    const r = await cli("liabilities", "build", "--input", input, "--assets", assetsFile, "--out", out);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`line 201: customer "${id}" has ${asset} twice`);
    expect(r.stderr.match(/twice/g)?.length).toBe(1);
    expect(existsSync(out)).toBe(false);
  });

  it("an assets table past the limit is refused naming it, nothing written", async () => {
    const assetsFile = join(dir, "many-assets.csv");
    const names = Array.from({ length: 65_537 }, (_, i) => `X${i},0`);
    writeFileSync(assetsFile, `asset,decimals\n${names.join("\n")}\n`);
    const input = join(dir, "many-balances.csv");
    writeFileSync(input, "customer_id,asset,amount\nc1,X0,1\n");
    const out = join(dir, "many");
    const r = await cli("liabilities", "build", "--input", input, "--assets", assetsFile, "--out", out);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("names 65537 assets, more than the 65536 a build handles");
    expect(existsSync(out)).toBe(false);
  });
});

describe("input beyond what a build handles: exit 2 naming the limit, nothing written, never an internal error", () => {
  const assetsFile = join(dir, "limit-assets.csv");
  const refused = async (name: string, input: string, construction = "v2") => {
    writeFileSync(assetsFile, "asset,decimals\nBTC,8\nMILLI,3\n");
    const file = join(dir, `${name}.csv`);
    writeFileSync(file, input);
    const out = join(dir, name);
    const r = await cli(
      "liabilities",
      "build",
      "--input",
      file,
      "--assets",
      assetsFile,
      "--out",
      out,
      "--construction",
      construction,
    );
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).not.toMatch(/internal error|RangeError|TypeError/);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.startsWith(`.${name}.build-`))).toEqual([]);
    return r.stderr;
  };

  it("an amount of 2^128 base units or more, a total past it: named by line, in both constructions", async () => {
    const max = 2n ** 128n;
    for (const construction of ["v1", "v2"]) {
      // 2^128 base units at 3 decimals
      const s = max.toString();
      const milli = `${s.slice(0, -3)}.${s.slice(-3)}`;
      expect(
        await refused("amount", `customer_id,asset,amount\na,BTC,1\nb,MILLI,${milli}\n`, construction),
      ).toContain(`line 3: amount ${milli} MILLI overflows 128 bits of base units`);
      // two halves of 2^128 base units: each within it, their total not
      const h = (max / 2n).toString();
      const half = `${h.slice(0, -3)}.${h.slice(-3)}`;
      const input = `customer_id,asset,amount\na,BTC,1\nb,MILLI,${half}\nc,MILLI,${half}\n`;
      expect(await refused("total", input, construction)).toContain(
        "line 4: the MILLI total overflows 128 bits of base units",
      );
    }
  });

  it("a line longer than 1 MiB: named, never held whole — read by the workers (a file from 1 MiB) and by the main thread", async () => {
    const rows = Array.from({ length: 60_000 }, (_, i) => `c${i},BTC,1`).join("\n");
    // a zero-padded amount 3 MiB long (valid digits: only its length is past the limit), then more rows
    const long = `long,BTC,1.${"0".repeat(3 * 2 ** 20)}`;
    const big = await refused("long-big", `customer_id,asset,amount\n${rows}\n${long}\nafter,BTC,1\n`);
    expect(big).toContain("line 60002: longer than 1,048,576 bytes, the most a line may take");
    const small = await refused("long-small", `customer_id,asset,amount\na,BTC,1\n${long}`);
    expect(small).toContain("line 3: longer than 1,048,576 bytes");
    // a comment line too (it is held like any line)
    expect(
      await refused("long-comment", `customer_id,asset,amount\n#${"x".repeat(2 ** 20 + 1)}\na,BTC,1\n`),
    ).toContain("line 2: longer than 1,048,576 bytes");
  });

  it("an assets table file past 16 MiB: refused before it is read", async () => {
    const file = join(dir, "huge-assets.csv");
    writeFileSync(file, `asset,decimals\nBTC,8\n#${"x".repeat(16 * 2 ** 20)}\n`);
    const input = join(dir, "huge-balances.csv");
    writeFileSync(input, "customer_id,asset,amount\na,BTC,1\n");
    const out = join(dir, "huge");
    const r = await cli("liabilities", "build", "--input", input, "--assets", file, "--out", out);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("more than the 16,777,216 an assets table may take");
    expect(existsSync(out)).toBe(false);
  });
});

/** The forger's edits of a v2 proof and commitment: each refused by the verifier, naming what changed. */
function forgeries(out: string, id: string): void {
  const text = readFileSync(join(out, "commitment.json"), "utf8");
  const c = parseCommitment(text, "commitment.json");
  const src = new ProofSource(out);
  const honest = src.proofOf(id)!;
  src.close();
  const check = (p: unknown, cc = c) => verifyLiabilityProof(p as never, cc, { customer: id });
  expect(check(honest).verdict).toBe("holds");
  const edit = (f: (p: any) => void) => {
    const p = structuredClone(honest) as any;
    f(p);
    return check(p);
  };
  // an amount raised (and the balance with it): the leaf no longer hashes to the path's start
  let v = edit((p) => {
    p.leaves[0].amount = String(BigInt(p.leaves[0].amount) + 1n);
    p.balances[0].base_units = String(BigInt(p.balances[0].base_units) + 1n);
  });
  expect(v.verdict).toBe("fails");
  expect(v.faults.join("\n")).toMatch(/edited|does not add up|not to the committed/);
  // a leaf moved to another asset's tree
  v = edit((p) => {
    p.leaves[0].asset = p.leaves.find((l: any) => l.asset !== p.leaves[0].asset).asset;
  });
  expect(v.verdict).toBe("fails");
  // a sibling's sum lowered (value shifted away from the customer's path)
  v = edit((p) => {
    const s = p.leaves[0].path[0];
    s.sum = String(BigInt(s.sum) > 0n ? BigInt(s.sum) - 1n : 1n);
  });
  expect(v.verdict).toBe("fails");
  expect(v.faults.join("\n")).toMatch(/not to the committed|does not add up/);
  // a negative sibling sum
  v = edit((p) => {
    p.leaves[0].path[1].sum = "-5";
  });
  expect(v.faults.join("\n")).toContain("is negative");
  // one part of an asset dropped
  v = edit((p) => {
    p.leaves.splice(1, 1);
  });
  expect(v.faults.join("\n")).toContain("is missing");
  // the commitment's tree root replaced and its digest recomputed: the root is no longer its trees' hash
  const forged = JSON.parse(text);
  forged.trees[0].root = "00".repeat(32);
  delete forged.digest;
  forged.digest = digestOf(forged);
  const fc = parseCommitment(JSON.stringify(forged), "forged.json");
  expect(check(honest, fc).faults.join("\n")).toContain("is not the hash of its trees and totals");
}
