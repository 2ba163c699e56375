/**
 * liabilities build | proof | verify through the real CLI: generated balances (assets with 0, 6, 8 and 18
 * decimals, customers with one asset and with all, an all-zero customer), every proof of the build extracted
 * and checked, and the forger's edits — each must exit 1 naming the fault. Bad input exits 2 naming the line
 * and writes nothing.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { digestOf } from "../src/proof/jcs.js";
import { runCli } from "./helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "chaingw-liab-"));
const ASSETS = join(dir, "assets.csv");
const BALANCES = join(dir, "balances.csv");
const DEC: Record<string, number> = { PTS: 0, USDT: 6, BTC: 8, ETH: 18 };
/** customer → asset → base units (what the input says) */
const expected = new Map<string, Map<string, bigint>>();

function generate(): string {
  let x = 0x2545f491;
  const rnd = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
  const lines = ["customer_id,asset,amount", "# generated: odd amounts, every decimals"];
  const names = Object.keys(DEC);
  for (let c = 0; c < 300; c++) {
    const id = c === 7 ? "zero-balance" : c === 8 ? "ünïcode id" : `cust-${c}`;
    const held = c === 0 ? names : c === 1 ? ["ETH"] : names.filter(() => rnd() < 0.6);
    const m = new Map<string, bigint>();
    for (const a of held.length ? held : ["BTC"]) {
      const d = DEC[a];
      let base = c === 7 ? 0n : BigInt(Math.floor(rnd() * 1e9)) * BigInt(Math.floor(rnd() * 1e6) + 1);
      if (a === "ETH" && c !== 7) base = base * 10n ** 9n + 1n;
      m.set(a, base);
      const s = base.toString().padStart(d + 1, "0");
      const text = d ? `${s.slice(0, -d)}.${s.slice(-d)}` : s;
      lines.push(`${id},${a},${text}`);
    }
    expected.set(id, m);
  }
  return lines.join("\n") + "\n";
}

const cli = (...args: string[]) => runCli(args, { timeoutMs: 60_000 });
const build = (out: string, input = BALANCES, ...more: string[]) =>
  cli(
    "liabilities",
    "build",
    "--input",
    input,
    "--assets",
    ASSETS,
    "--out",
    out,
    "--label",
    "snapshot 2026-11-30",
    ...more,
  );

let proofs: Record<string, any>[];
const A = join(dir, "a");

beforeAll(async () => {
  writeFileSync(ASSETS, "asset,decimals\nBTC,8\nUSDT,6\nETH,18\nPTS,0\n");
  writeFileSync(BALANCES, generate());
  const r = await build(A);
  expect(r.stderr).toBe("");
  expect(r.exitCode).toBe(0);
  const all = await cli("liabilities", "proof", "--out", A, "--all");
  expect(all.exitCode).toBe(0);
  proofs = all.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}, 120_000);

const proofOf = (id: string) => structuredClone(proofs.find((p) => p.customer === id)!);
const COMMITMENT = () => join(A, "commitment.json");
async function verify(proof: unknown, commitment = COMMITMENT()) {
  const f = join(dir, `proof-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(f, typeof proof === "string" ? proof : JSON.stringify(proof));
  return cli("liabilities", "verify", f, "--commitment", commitment);
}

describe("liabilities build", () => {
  it("commits the totals, pads to a power of two and hides ids", () => {
    const c = JSON.parse(readFileSync(COMMITMENT(), "utf8"));
    expect(c.format).toBe("chaingw-liabilities");
    expect(c.leaves).toBe(1024); // 300 customers × 2 leaves → 600, padded
    expect(c.height).toBe(10);
    expect(c.digest).toBe(digestOf(c));
    for (const [i, a] of ["BTC", "USDT", "ETH", "PTS"].entries()) {
      let t = 0n;
      for (const m of expected.values()) t += m.get(a) ?? 0n;
      expect(c.totals[i]).toMatchObject({ asset: a, base_units: t.toString() });
    }
    const tree = readFileSync(join(A, "tree.bin"));
    expect(tree.includes(Buffer.from("cust-1"))).toBe(false);
    expect(JSON.stringify(c)).not.toContain("cust-");
  });

  it("every customer's proof is extracted and shows exactly their input balances", () => {
    expect(proofs.length).toBe(300);
    for (const p of proofs) {
      const m = expected.get(p.customer)!;
      expect(p.leaves.length).toBe(2);
      for (const b of p.balances) expect(b.base_units).toBe((m.get(b.asset) ?? 0n).toString());
    }
  });

  it("verify holds for a sample of customers, including one asset only, all assets and all zero", async () => {
    for (const id of ["cust-0", "cust-1", "zero-balance", "ünïcode id", "cust-299"]) {
      const one = await cli("liabilities", "proof", "--out", A, id);
      expect(one.exitCode).toBe(0);
      expect(JSON.parse(one.stdout)).toEqual(proofOf(id));
      const r = await verify(one.stdout);
      expect(r.stderr).toBe("");
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toMatch(
        new RegExp(
          `^customer ${id}: .* included in root ${proofs[0].root.slice(0, 16)}…, snapshot 2026-11-30\n$`,
        ),
      );
    }
    const z = await verify(proofOf("zero-balance"));
    expect(z.stdout).toContain("a zero balance included");
    const j = await cli("--json", "liabilities", "verify", "-", "--commitment", COMMITMENT());
    expect(j.exitCode).toBe(2);
  });

  it("several ids print JSON Lines; an unknown id exits 1 naming it", async () => {
    const r = await cli("liabilities", "proof", "--out", A, "cust-3", "nobody", "cust-4");
    expect(r.exitCode).toBe(1);
    expect(
      r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).customer),
    ).toEqual(["cust-3", "cust-4"]);
    expect(r.stderr).toContain('customer "nobody" is not in the build');
  });

  it("refuses bad input with the line number, exit 2, and writes nothing", async () => {
    const cases: [string, string][] = [
      ["cust-1,BTC,-1", "line 3: negative amount"],
      ["cust-1,BTC,1.5x", "line 3: malformed amount"],
      ["cust-1,BTC,0.000000001", "line 3: 0.000000001 BTC has non-zero digits beyond the asset's 8 decimals"],
      ["cust-1,DOGE,1", 'line 3: unknown asset "DOGE"'],
      [",BTC,1", "line 3: empty customer id"],
      ["cust-0,BTC,2", 'line 3: customer "cust-0" has BTC twice'],
      [`cust-1,ETH,${"9".repeat(39)}`, "line 3: amount"],
    ];
    for (const [row, msg] of cases) {
      const f = join(dir, "bad.csv");
      writeFileSync(f, `customer_id,asset,amount\ncust-0,BTC,1\n${row}\n`);
      const out = join(dir, "bad-out");
      const r = await build(out, f);
      expect(r.exitCode, row).toBe(2);
      expect(r.stderr).toContain(msg);
      expect(existsSync(out)).toBe(false);
    }
    const f = join(dir, "overflow.csv");
    const big = (2n ** 127n).toString();
    writeFileSync(f, `customer_id,asset,amount\n# two halves of 2^128\na,PTS,${big}\nb,PTS,${big}\n`);
    const r = await build(join(dir, "of-out"), f);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("line 4: the PTS total overflows 128 bits");
    expect(readdirSync(dir)).not.toContain("of-out");
  });
});

describe("liabilities verify: the forger's edits fail with exit 1 and name the fault", () => {
  const fails = async (proof: unknown, fault: RegExp, commitment?: string) => {
    const r = await verify(proof, commitment);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain("NOT proven");
    expect(r.stdout).toMatch(fault);
    return r;
  };

  it("an amount lowered in a leaf, without fixing the path", async () => {
    const p = proofOf("cust-0");
    p.leaves[0].amounts[0] = (BigInt(p.leaves[0].amounts[0]) / 2n).toString();
    await fails(p, /amounts \(or the part\) were edited/);
  });

  it("an amount lowered with the path's sums fixed so the root totals still add up", async () => {
    const p = proofOf("cust-0");
    const l = p.leaves[0];
    const cut = BigInt(l.amounts[0]) / 2n;
    l.amounts[0] = (BigInt(l.amounts[0]) - cut).toString();
    l.path[0].sums[0] = (BigInt(l.path[0].sums[0]) + cut).toString();
    p.balances[0].base_units = (BigInt(p.balances[0].base_units) - cut).toString();
    const r = await fails(p, /were edited/);
    expect(r.stdout).toMatch(/the path leads to .*, not to the committed root/);
    expect(r.stdout).not.toContain("does not add up");
  });

  it("the stated balance lowered while the leaves are left alone", async () => {
    const p = proofOf("cust-0");
    p.balances[0].amount = "0";
    await fails(p, /the BTC balance says 0, the leaves add up to/);
  });

  it("another customer's path under this id", async () => {
    const p = proofOf("cust-2");
    p.leaves = proofOf("cust-5").leaves;
    await fails(p, /is another customer's: its tag is not HMAC-SHA256\(secret, "cust-2"\)/);
  });

  it("a customer omitted from the tree: their proof from another build, and one re-pointed at this root", async () => {
    const without = join(dir, "without");
    const rows = readFileSync(BALANCES, "utf8")
      .split("\n")
      .filter((l) => !l.startsWith("cust-9,"));
    writeFileSync(join(dir, "without.csv"), rows.join("\n"));
    expect((await build(without, join(dir, "without.csv"))).exitCode).toBe(0);
    const other = join(without, "commitment.json");
    await fails(proofOf("cust-9"), /the proof is for another build/, other);
    const c = JSON.parse(readFileSync(other, "utf8"));
    const p = proofOf("cust-9");
    p.root = c.root;
    p.commitment = c.digest;
    const r = await fails(p, /the path leads to .*, not to the committed root/, other);
    expect(r.stdout).not.toContain("another build");
    // the omitted customer is not in that build at all
    expect((await cli("liabilities", "proof", "--out", without, "cust-9")).exitCode).toBe(1);
  });

  it("a root from another build (same balances, fresh secrets)", async () => {
    const again = join(dir, "again");
    expect((await build(again)).exitCode).toBe(0);
    await fails(proofOf("cust-3"), /another build/, join(again, "commitment.json"));
  });

  it("child sums swapped under a parent whose total is right", async () => {
    const p = proofOf("cust-0");
    const l = p.leaves[0];
    const sib = l.path[0].sums;
    [l.amounts, l.path[0].sums] = [sib, l.amounts];
    const r = await fails(p, /the path leads to .*, not to the committed root/);
    expect(r.stdout).not.toContain("does not add up");
  });

  it("a zero-balance customer's leaves dropped, or one of them", async () => {
    const p = proofOf("zero-balance");
    await fails({ ...p, leaves: [] }, /carries no leaf/);
    await fails({ ...p, leaves: [p.leaves[1]] }, /part 0 of 2 is missing/);
    // the custodian's tree without the customer: their proof reaches no root of it
    const rows = readFileSync(BALANCES, "utf8")
      .split("\n")
      .filter((l) => !l.startsWith("zero-balance,"));
    writeFileSync(join(dir, "nozero.csv"), rows.join("\n"));
    const nz = join(dir, "nozero");
    expect((await build(nz, join(dir, "nozero.csv"))).exitCode).toBe(0);
    const c = JSON.parse(readFileSync(join(nz, "commitment.json"), "utf8"));
    await fails(
      { ...p, root: c.root, commitment: c.digest },
      /not to the committed root/,
      join(nz, "commitment.json"),
    );
  });

  it("a negative sibling sum, and sums that overflow", async () => {
    const p = proofOf("cust-0");
    p.leaves[0].path[2].sums[1] = "-5";
    await fails(p, /sum at level 2 is negative/);
    const q = proofOf("cust-0");
    q.leaves[0].path[0].sums[0] = (2n ** 128n - 1n).toString();
    await fails(q, /overflows 128 bits at level 1: it does not add up/);
  });

  it("an edited commitment: total lowered without and with its digest recomputed", async () => {
    const c = JSON.parse(readFileSync(COMMITMENT(), "utf8"));
    c.totals[0].base_units = (BigInt(c.totals[0].base_units) - 1n).toString();
    const f = join(dir, "edited.json");
    writeFileSync(f, JSON.stringify(c));
    await fails(proofOf("cust-0"), /the commitment was edited/, f);
    c.digest = digestOf(c);
    writeFileSync(f, JSON.stringify(c));
    const p = proofOf("cust-0");
    p.commitment = c.digest;
    await fails(p, /BTC sums add up to .* the commitment's total is .*: a sum does not add up/, f);
  });

  it("--json prints the verdict as one document; not a proof exits 2", async () => {
    const f = join(dir, "lowered.json");
    const p = proofOf("cust-0");
    p.leaves[0].amounts[0] = "0";
    writeFileSync(f, JSON.stringify(p));
    const r = await cli("--json", "liabilities", "verify", f, "--commitment", COMMITMENT());
    expect(r.exitCode).toBe(1);
    const v = JSON.parse(r.stdout);
    expect(v.verdict).toBe("fails");
    expect(v.faults[0]).toContain("were edited");
    const ok = await cli(
      "--json",
      "liabilities",
      "verify",
      f.replace("lowered", "ok"),
      "--commitment",
      COMMITMENT(),
    );
    expect(ok.exitCode).toBe(2);
    writeFileSync(join(dir, "ok.json"), JSON.stringify(proofOf("cust-1")));
    const good = await cli(
      "--json",
      "liabilities",
      "verify",
      join(dir, "ok.json"),
      "--commitment",
      COMMITMENT(),
    );
    expect(good.exitCode).toBe(0);
    expect(JSON.parse(good.stdout)).toMatchObject({ verdict: "holds", customer: "cust-1", faults: [] });
    for (const text of ["not json", "{}", JSON.stringify({ ...proofOf("cust-1"), leaves: "x" })]) {
      const r2 = await verify(text);
      expect(r2.exitCode).toBe(2);
      expect(r2.stderr).toMatch(/not (JSON|a liabilities proof)/);
    }
  });
});
