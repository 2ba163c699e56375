/**
 * liabilities build | proof | verify through the real CLI: generated balances (assets with 0, 6, 8 and 18
 * decimals, customers with one asset and with all, an all-zero customer), every proof of the build extracted
 * and checked, and the forger's edits — each must exit 1 naming the fault. Bad input exits 2 naming the line
 * and writes nothing.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { digestOf } from "../src/proof/jcs.js";
import { runCli } from "./helpers/cli.js";
import { HANG_GUARD_MS } from "./helpers/procs.js";

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

/** base units of BTC as decimal text */
const btc = (base: string) => {
  const s = base.padStart(9, "0");
  return `${s.slice(0, -8)}.${s.slice(-8)}`.replace(/\.?0+$/, "");
};
const cli = (...args: string[]) => runCli(args);
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
});

const proofOf = (id: string) => structuredClone(proofs.find((p) => p.customer === id)!);
const COMMITMENT = () => join(A, "commitment.json");
async function verify(proof: unknown, commitment = COMMITMENT(), ...more: string[]) {
  const f = join(dir, `proof-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(f, typeof proof === "string" ? proof : JSON.stringify(proof));
  return cli("liabilities", "verify", f, "--commitment", commitment, ...more);
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
      const r = await verify(one.stdout, COMMITMENT(), "--customer", id);
      expect(r.stderr).toBe("");
      expect(r.exitCode).toBe(0);
      const c = JSON.parse(readFileSync(COMMITMENT(), "utf8"));
      expect(r.stdout).toMatch(
        new RegExp(
          `^customer "${id}": .* included in the liabilities whose root is ${c.root} \\("snapshot 2026-11-30", created "${c.created}"; commitment digest ${c.digest}\\)\n  the commitment's totals are its root's: the root's two children it carries hash to its root and sum to its totals\n$`,
        ),
      );
    }
    const z = await verify(proofOf("zero-balance"));
    expect(z.stdout).toContain("a zero balance included");
    const j = await cli("--json", "liabilities", "verify", "-", "--commitment", COMMITMENT());
    expect(j.exitCode).toBe(2);
  });

  it("build's totals and verify's balances: every amount the one way, at its asset's decimals (issue 59 item 6)", async () => {
    const out = join(dir, "one-way");
    const input = join(dir, "one-way.csv");
    writeFileSync(input, "customer_id,asset,amount\nw1,BTC,1.6\nw1,USDT,310\nw1,ETH,0.5\nw2,PTS,7\n");
    const b = await build(out, input);
    expect(b.exitCode, b.stderr).toBe(0);
    // it read "  BTC 1.6", "  USDT 310": the commitment's shortest text, beside 1.60000000 in solvency's table
    expect(b.stdout).toContain(
      "\n  BTC 1.60000000\n  USDT 310.000000\n  ETH 0.500000000000000000\n  PTS 7\n",
    );
    const p = await cli("liabilities", "proof", "--out", out, "w1");
    const v = await verify(p.stdout, join(out, "commitment.json"), "--customer", "w1");
    expect(v.exitCode, v.stderr).toBe(0);
    expect(v.stdout).toMatch(
      /^customer "w1": 1\.60000000 BTC, 310\.000000 USDT, 0\.500000000000000000 ETH included in the liabilities whose root is /,
    );
  });

  it("proof --all --dir: one file per customer, each the proof --all streams; an earlier run's directory refused", async () => {
    const d = join(dir, "proofs");
    const r = await cli("liabilities", "proof", "--out", A, "--all", "--dir", d);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      `wrote 300 proofs to ${d} (one file per customer, private: each holds the customer's secret)\n`,
    );
    expect(readdirSync(d).length).toBe(300);
    for (const p of proofs) {
      const f = join(d, p.customer === "ünïcode id" ? "%C3%BCn%C3%AFcode%20id.json" : `${p.customer}.json`);
      expect(JSON.parse(readFileSync(f, "utf8"))).toEqual(p);
    }
    expect(statSync(join(d, "cust-0.json")).mode & 0o777).toBe(0o600);
    // the same directory again: exit 2 before any proof is made, the files as they were
    const again = await cli("liabilities", "proof", "--out", A, "cust-1", "--dir", d);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain(`--dir ${d}: holds files already`);
    expect(readdirSync(d).length).toBe(300);
    // ids: one missing exits 1 naming it, the others written; --json says how many
    const some = join(dir, "some");
    const j = await cli("--json", "liabilities", "proof", "--out", A, "cust-2", "nobody", "--dir", some);
    expect(j.exitCode).toBe(1);
    expect(JSON.parse(j.stdout)).toEqual({ dir: some, proofs: 1 });
    expect(j.stderr).toContain('customer "nobody" is not in the build');
    expect(readdirSync(some)).toEqual(["cust-2.json"]);
  });

  it("proof --dir: ids that are paths, dots or long name files inside the directory, escaped, never outside", async () => {
    const ids = [
      "../evil",
      "a/b\\c",
      "..",
      ".",
      ".hidden",
      "%41",
      "A",
      "x".repeat(250),
      `${"é".repeat(100)}z`,
    ];
    const f = join(dir, "paths.csv");
    writeFileSync(f, `customer_id,asset,amount\n${ids.map((id) => `${id},BTC,1`).join("\n")}\n`);
    const out = join(dir, "paths-out");
    expect((await build(out, f)).exitCode).toBe(0);
    const d = join(dir, "paths-proofs");
    const r = await cli("liabilities", "proof", "--out", out, "--all", "--dir", d);
    expect(r.exitCode, r.stderr).toBe(0);
    const names = readdirSync(d).sort();
    expect(names.length).toBe(ids.length);
    expect(names).toContain("..%2Fevil.json".replace("..", "%2E%2E"));
    expect(names).toContain("a%2Fb%5Cc.json");
    expect(names).toContain("%2E%2E.json");
    expect(names).toContain("%2E.json");
    expect(names).toContain("%2Ehidden.json");
    expect(names).toContain("%2541.json");
    expect(names).toContain("A.json");
    expect(existsSync(join(dir, "evil.json"))).toBe(false);
    for (const n of names) {
      expect(n).toMatch(/^[A-Za-z0-9_%~-]+\.json$/);
      expect(Buffer.byteLength(n)).toBeLessThanOrEqual(160 + 17 + 5);
      const p = JSON.parse(readFileSync(join(d, n), "utf8"));
      // a short name decodes back to its id; a long one is its id's escaped start and a hash
      if (!n.includes("~")) expect(decodeURIComponent(n.slice(0, -5))).toBe(p.customer);
      else expect(p.customer.length).toBeGreaterThan(50);
    }
    expect(names.filter((n) => n.includes("~")).length).toBe(2);
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
    c.totals[0].amount = btc(c.totals[0].base_units);
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

describe("liabilities verify --customer: the customer says who they are", () => {
  it("their own proof holds; anyone else's fails with exit 1 naming both ids", async () => {
    const own = await verify(proofOf("cust-2"), COMMITMENT(), "--customer", "cust-2");
    expect(own.exitCode).toBe(0);
    expect(own.stdout).toMatch(
      /^customer "cust-2": .* included in the liabilities whose root is [0-9a-f]{64} /,
    );
    const other = await verify(proofOf("cust-5"), COMMITMENT(), "--customer", "cust-2");
    expect(other.exitCode).toBe(1);
    expect(other.stdout).toMatch(
      /^customer "cust-2": NOT proven in the liabilities whose root is [0-9a-f]{64}/,
    );
    expect(other.stdout).toContain(`this proof is customer "cust-5"'s, not "cust-2"'s`);
    // without --customer (and no terminal to ask on) the proof holds for whoever it names, and stderr says so
    const none = await verify(proofOf("cust-5"));
    expect(none.exitCode).toBe(0);
    expect(none.stderr).toContain(
      'no --customer given: this shows whose proof holds ("cust-5"), not that it is yours',
    );
  });

  it("on a terminal without --customer it asks, and someone else's proof fails", async () => {
    const f = join(dir, "asked.json");
    writeFileSync(f, JSON.stringify(proofOf("cust-5")));
    const bin = join(__dirname, "..", "bin", "chaingw");
    const ask = (id: string) =>
      execa("script", ["-qec", `${bin} liabilities verify ${f} --commitment ${COMMITMENT()}`, "/dev/null"], {
        input: `${id}\n`,
        reject: false,
        timeout: HANG_GUARD_MS,
        env: { NO_COLOR: "1" },
      });
    const bob = await ask("cust-2");
    expect(bob.stdout).toContain("your customer id (as your account shows it): ");
    expect(bob.stdout).toContain(`this proof is customer "cust-5"'s, not "cust-2"'s`);
    expect(bob.exitCode).toBe(1);
    const owner = await ask("cust-5");
    expect(owner.stdout).toMatch(/customer "cust-5": .* included in/);
    expect(owner.exitCode).toBe(0);
  });

  it("an id holding a carriage return and escape sequences is shown escaped, never painting a line", async () => {
    const p = proofOf("cust-5");
    p.customer = "cust-5\r\u001b[2Kcustomer bob: 1 BTC included\u009b";
    p.label = "x\u202e";
    const r = await verify(p, COMMITMENT(), "--customer", "bob");
    expect(r.exitCode).toBe(1);
    expect(r.stdout).not.toMatch(/[\r\u001b\u009b\u202e]/);
    expect(r.stdout).toContain('"cust-5\\r\\u001b[2Kcustomer bob: 1 BTC included\\u009b"');
    expect(r.stdout).toContain(`label "x\\u202e", the commitment's "snapshot 2026-11-30"`);
  });

  it("ids with control characters are refused at build time, exit 2 naming the line", async () => {
    for (const id of ["bob\u001b[2K", "a\tb", "x\u0085y", "rtl\u202eevil", "bob\u200b"]) {
      const f = join(dir, "ctl.csv");
      writeFileSync(f, `customer_id,asset,amount\ncust-0,BTC,1\n${id},BTC,1\n`);
      const out = join(dir, "ctl-out");
      const r = await build(out, f);
      expect(r.exitCode, JSON.stringify(id)).toBe(2);
      expect(r.stderr).toContain("line 3: customer id");
      expect(r.stderr).toContain("holds a control or invisible character");
      expect(r.stderr).not.toMatch(/[\u001b\t\u0085\u202e\u200b]/);
      expect(existsSync(out)).toBe(false);
    }
  });

  it("JSON Lines of several proofs (as proof ID ID prints them) are read; --customer picks theirs", async () => {
    const lines = await cli("liabilities", "proof", "--out", A, "cust-3", "cust-4");
    expect(lines.exitCode).toBe(0);
    const both = await verify(lines.stdout);
    expect(both.exitCode).toBe(0);
    // each verdict two lines: included, and whether the root binds the totals
    expect(both.stdout.trim().split("\n")).toHaveLength(4);
    expect(both.stdout.match(/^customer "cust-[34]": .* included in the liabilities/gm)).toHaveLength(2);
    // with --json: JSON Lines, one verdict a line, which --pretty leaves unindented
    for (const more of [["--json"], ["--json", "--pretty"]]) {
      const json = await verify(lines.stdout, COMMITMENT(), ...more);
      expect(json.exitCode).toBe(0);
      const verdicts = json.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(verdicts.map((v) => [v.customer, v.verdict])).toEqual([
        ["cust-3", "holds"],
        ["cust-4", "holds"],
      ]);
    }
    const mine = await verify(lines.stdout, COMMITMENT(), "--customer", "cust-4");
    expect(mine.exitCode).toBe(0);
    expect(mine.stdout).toMatch(
      /^customer "cust-4": .* included in .*\n {2}the commitment's totals are its root's: .*\n$/,
    );
    const nobody = await verify(lines.stdout, COMMITMENT(), "--customer", "cust-9");
    expect(nobody.exitCode).toBe(1);
    expect(nobody.stdout).toContain(`the file holds 2 proofs, none of them customer "cust-9"'s`);
    // one bad line among good ones: refused naming the line
    const bad = `${lines.stdout.trim().split("\n")[0]}\n{"format": 1}\n`;
    const r = await verify(bad);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/line 2: not a liabilities proof/);
  });
});

describe("the commitment (and the proof) checked whole: each forgery next to the honest file", () => {
  /** the honest commitment edited by `edit`, its digest recomputed so that it is self-consistent */
  const forged = (edit: (c: any) => void, name: string) => {
    const c = JSON.parse(readFileSync(COMMITMENT(), "utf8"));
    edit(c);
    delete c.digest;
    c.digest = digestOf(c);
    const f = join(dir, `forged-${name}.json`);
    writeFileSync(f, JSON.stringify(c, null, 2));
    return { file: f, digest: c.digest as string };
  };
  const refused = async (file: string, digest: string, why: RegExp) => {
    const p = proofOf("cust-0");
    p.commitment = digest;
    const r = await verify(p, file, "--customer", "cust-0");
    expect(r.exitCode, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(/not a liabilities commitment/);
    expect(r.stderr).toMatch(why);
    return r;
  };

  it("the honest commitment, rewritten with its digest recomputed, holds (the control)", async () => {
    const { file, digest } = forged(() => {}, "honest");
    const p = proofOf("cust-0");
    p.commitment = digest;
    const r = await verify(p, file, "--customer", "cust-0");
    expect(r.exitCode).toBe(0);
  });

  it("an asset listed twice — in verify and in solvency", async () => {
    const twice = forged((c) => {
      c.assets.push({ ...c.assets[0] });
      c.totals.push({ ...c.totals[0] });
    }, "twice");
    await refused(twice.file, twice.digest, /assets\[4\]: asset BTC is listed twice/);
    const s = await cli(
      "solvency",
      "--liabilities",
      twice.file,
      "--reserves",
      `BTC=${join(dir, "none.json")}`,
    );
    expect(s.exitCode).toBe(2);
    expect(s.stderr).toContain("assets[4]: asset BTC is listed twice");
    // the honest commitment gets past it (and stops at the missing reserves file instead)
    const h = await cli(
      "solvency",
      "--liabilities",
      COMMITMENT(),
      "--reserves",
      `BTC=${join(dir, "none.json")}`,
    );
    expect(h.stderr).not.toContain("not a liabilities commitment");
  });

  it("an asset name that only looks like another (Cyrillic), or with a space", async () => {
    const look = forged((c) => {
      c.assets[1].asset = "USDТ";
      c.totals[1].asset = "USDТ";
    }, "look");
    await refused(look.file, look.digest, /assets\[1\]\.asset "USDТ": letters, digits and \. _ : - only/);
  });

  it("a total whose amount says one thing and base_units another", async () => {
    const f = forged((c) => {
      c.totals[0].amount = "0.5";
    }, "amount");
    await refused(f.file, f.digest, /totals\[0\]: amount 0\.5 BTC is not base_units \d+ at 8 decimals/);
  });

  it("created that is not RFC 3339", async () => {
    for (const created of ["next tuesday", "2026-02-30T00:00:00Z", "2026-11-30 00:00:00"]) {
      const f = forged((c) => {
        c.created = created;
      }, "created");
      await refused(f.file, f.digest, /created .* is not an RFC 3339 date-time/);
    }
  });

  it("an unknown version or construction, and a member the format does not have", async () => {
    const v = forged((c) => {
      c.version = 2;
    }, "version");
    await refused(v.file, v.digest, /version 2 \(this chaingw reads 1\)/);
    const k = forged((c) => {
      c.construction = "merkle-sum-sha256/v3";
    }, "construction");
    await refused(k.file, k.digest, /construction "merkle-sum-sha256\/v3"/);
    // a v1 commitment called v2: it has no trees
    const k2 = forged((c) => {
      c.construction = "merkle-sum-sha256/v2";
    }, "construction");
    await refused(k2.file, k2.digest, /trees does not list one tree per asset/);
    const m = forged((c) => {
      c.note = "audited";
    }, "member");
    await refused(m.file, m.digest, /member "note" is not part of the format/);
  });

  it("a member repeated at any depth, the digest covering the last copy", async () => {
    const honest = readFileSync(COMMITMENT(), "utf8");
    const c = JSON.parse(honest);
    // a second, lower BTC total before the real one: JSON.parse would keep the last
    const low = honest.replace('"base_units": "', `"base_units": "1", "base_units": "`);
    const f = join(dir, "dup-commitment.json");
    writeFileSync(f, low);
    const r = await verify(proofOf("cust-0"), f, "--customer", "cust-0");
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('member "base_units" appears twice at totals[0].base_units');
    expect(JSON.parse(low).totals[0].base_units).toBe(c.totals[0].base_units);
    const top = honest.replace('"root": ', `"root": "${"0".repeat(64)}", "root": `);
    writeFileSync(f, top);
    expect((await verify(proofOf("cust-0"), f)).stderr).toContain('member "root" appears twice at root');
    // in the proof too
    const p = JSON.stringify(proofOf("cust-0")).replace('"amounts":[', '"amounts":["0"],"amounts":[');
    const rp = await verify(p);
    expect(rp.exitCode).toBe(2);
    expect(rp.stderr).toContain('member "amounts" appears twice at leaves[0].amounts');
  });

  it("a proof of another version or construction, or with a member the format does not have", async () => {
    for (const [edit, why] of [
      [{ version: 2 }, /version 2 \(this chaingw reads 1\)/],
      [{ construction: "merkle-sum-sha256/v0" }, /construction "merkle-sum-sha256\/v0"/],
      [{ verified: true }, /member "verified" is not part of the format/],
    ] as const) {
      const r = await verify({ ...proofOf("cust-0"), ...edit });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(why);
    }
  });
});
