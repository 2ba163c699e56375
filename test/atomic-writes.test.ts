/**
 * Issue 35, item 7: every file chaingw writes goes through the one atomic writer (src/util/atomic.ts), so a
 * failure midway leaves the old file whole, or none, and no temporary file. The failure is a real one: the
 * shell's `ulimit -f` makes the kernel refuse the write past a size (EFBIG), as a full disk would; and a
 * rename onto a folder the kernel refuses. A plain write (what `reserves scan --proof` did) truncates the
 * old proof to the limit and leaves it there.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeAtomic } from "../src/util/atomic.js";
import { runCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { trackDir } from "./helpers/procs.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-atomic-"));
  trackDir(dir);
});

const leftovers = (d: string) => readdirSync(d).filter((f) => f.endsWith(".tmp"));

describe("writeAtomic", () => {
  it("control: replaces the file whole, keeps the mode asked for, leaves no temporary file", () => {
    const d = mkdtempSync(join(dir, "w-"));
    const f = join(d, "out.json");
    writeFileSync(f, "old\n");
    writeAtomic(f, "new text\n", "--proof", { mode: 0o600 });
    expect(readFileSync(f, "utf8")).toBe("new text\n");
    expect(leftovers(d)).toEqual([]);
  });

  it("a rename the kernel refuses (the target is a folder): the error names the output, nothing left", () => {
    const d = mkdtempSync(join(dir, "w-"));
    const f = join(d, "proof.json");
    mkdirSync(f);
    writeFileSync(join(f, "inside"), "x");
    expect(() => writeAtomic(f, "new", "--proof")).toThrow(`--proof: cannot write ${f}: EISDIR`);
    expect(readFileSync(join(f, "inside"), "utf8")).toBe("x");
    expect(leftovers(d)).toEqual([]);
  });

  it("exclusive: an existing file is refused (EEXIST) and kept; a new one is written whole", () => {
    const d = mkdtempSync(join(dir, "w-"));
    const f = join(d, "config.json");
    writeFileSync(f, "mine\n");
    let cause: unknown;
    try {
      writeAtomic(f, "starter", "config init", { exclusive: true });
    } catch (e) {
      cause = (e as Error).cause;
    }
    expect((cause as NodeJS.ErrnoException).code).toBe("EEXIST");
    expect(readFileSync(f, "utf8")).toBe("mine\n");
    writeAtomic(join(d, "fresh.json"), "starter", "config init", { exclusive: true });
    expect(readFileSync(join(d, "fresh.json"), "utf8")).toBe("starter");
    expect(leftovers(d)).toEqual([]);
  });
});

describe("reserves scan --proof / --csv: a write that fails midway (real litecoind)", () => {
  let node: LitecoinNode;
  let addr: string;
  beforeAll(async () => {
    node = await startLitecoind({ blocks: 101 });
    addr = await node.newAddress();
    await node.rpc("sendtoaddress", [addr, 1.5]);
    await node.mine(1);
  });
  afterAll(async () => {
    await node?.stop();
  });

  it("control, then EFBIG past a 1 KiB limit: the old proof and CSV stay whole, exit 1, no temporary file", async () => {
    const d = mkdtempSync(join(dir, "scan-"));
    const proof = join(d, "proof.json");
    const csv = join(d, "report.csv");
    const args = ["--url", node.authUrl, "reserves", "scan", addr, "--proof", proof, "--csv", csv];
    const ok = await runCli(args);
    expect(ok.exitCode, ok.stderr).toBe(0);
    const before = readFileSync(proof, "utf8");
    expect(before.length).toBeGreaterThan(1024);
    const csvBefore = readFileSync(csv, "utf8");
    // a second scan after one more block: a different proof, which cannot be written past 1 KiB
    await node.mine(1);
    const cut = await runCli(args, { fileSizeKb: 1 });
    expect(cut.exitCode).toBe(1);
    expect(cut.stderr).toContain(`cannot write`);
    expect(cut.stderr).toContain("EFBIG");
    expect(readFileSync(proof, "utf8")).toBe(before);
    expect(readFileSync(csv, "utf8")).toBe(csvBefore);
    expect(leftovers(d)).toEqual([]);
    // the old proof is still a whole proof that verifies
    const v = await runCli(["--url", node.authUrl, "reserves", "verify", proof]);
    expect(v.exitCode, v.stdout + v.stderr).toBe(0);
  });
});

describe("liabilities build: a write that fails midway leaves --out as it was", () => {
  // 300 customers of one asset: the input bucket is a few KiB, tree.bin 1024 leaves of 48 bytes (~96 KiB)
  const setup = () => {
    const d = mkdtempSync(join(dir, "liab-"));
    writeFileSync(join(d, "assets.csv"), "asset,decimals\nBTC,8\n");
    const rows = Array.from({ length: 300 }, (_, i) => `c${i},BTC,1.${i}`);
    writeFileSync(join(d, "balances.csv"), `customer_id,asset,amount\n${rows.join("\n")}\n`);
    const out = join(d, "out");
    mkdirSync(out);
    // a stray file of an earlier run (no commitment.json: --out is not refused as holding a build)
    writeFileSync(join(out, "customers.csv"), "old customers\n");
    const args = [
      "liabilities",
      "build",
      "--input",
      join(d, "balances.csv"),
      "--assets",
      join(d, "assets.csv"),
    ];
    return { d, out, args: [...args, "--out", out] };
  };
  // nothing of the failed build left: no temporary file in --out, no work directory beside it
  const untouched = (d: string, out: string) => {
    expect(readdirSync(out)).toEqual(["customers.csv"]);
    expect(readFileSync(join(out, "customers.csv"), "utf8")).toBe("old customers\n");
    expect(readdirSync(d).sort()).toEqual(["assets.csv", "balances.csv", "out"]);
  };

  it("EFBIG past 1 KiB (the work files): exit 1 naming them, --out as it was", async () => {
    const { d, out, args } = setup();
    const cut = await runCli(args, { fileSizeKb: 1 });
    expect(cut.exitCode, cut.stderr).toBe(1);
    expect(cut.stderr).toMatch(/--out: cannot write its work files in .*\.out\.build-\w+: EFBIG/);
    expect(cut.stdout).toBe("");
    untouched(d, out);
  });

  it("EFBIG past 80 KiB (tree.bin: ~96 KiB; no work file is over 72), then control: exit 1 naming tree.bin; without the limit all four files", async () => {
    const { d, out, args } = setup();
    const cut = await runCli(args, { fileSizeKb: 80 });
    expect(cut.exitCode, cut.stderr).toBe(1);
    expect(cut.stderr).toContain(`--out: cannot write ${join(out, "tree.bin")}: EFBIG`);
    untouched(d, out);
    const ok = await runCli(args);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual([
      "commitment.json",
      "customers.csv",
      "customers.idx",
      "tree.bin",
    ]);
    expect(statSync(join(out, "tree.bin")).size).toBeGreaterThan(80 * 1024);
    expect(readdirSync(d).sort()).toEqual(["assets.csv", "balances.csv", "out"]);
  });
});
