/**
 * `liabilities verify` on the customer inclusion proofs exchanges publish, through the real bin: each real
 * file in test/fixtures/exchange/liabilities/ (SOURCES.md there names its repository, commit and path) reaches
 * its root, and next to it tampered copies — a balance raised on the path, a negative sibling, a root from
 * another file via --root, a hash cut short — fail with the level named (exit 1).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";

const FIX = join(__dirname, "fixtures", "exchange", "liabilities");
const fixture = (name: string) => join(FIX, name);
const text = (name: string) => readFileSync(fixture(name), "utf8");
const dir = mkdtempSync(join(tmpdir(), "chaingw-exliab-"));
let n = 0;
/** a tampered copy of a fixture, written to a temp file */
const tampered = (name: string, edit: (t: string) => string): string => {
  const t = text(name);
  const out = edit(t);
  expect(out).not.toBe(t);
  const file = join(dir, `${n++}-${name}`);
  writeFileSync(file, out);
  return file;
};
const verify = async (...args: string[]) => {
  const r = await runCli(["liabilities", "verify", ...args]);
  return { ...r, json: r.stdout.trim().startsWith("{") ? JSON.parse(r.stdout) : undefined };
};
type Finding = { status: string; step: string; at?: string; text: string };
const failures = (j: { findings: Finding[] }) => j.findings.filter((f) => f.status === "fails");

const OKX_V1 = "okx-v1-merkle_proof_file.json";
const OKX_V1_ROOT = "ac6b39d2a0aa8112bd1aadff5e7d4b5c2b91cd54d595262ba4367f5d2db4160d";
const OKX_V2 = "okx-v2-user_info_file.json";
const OKX_V2_TREE = "okx-v2-full-liabilities-merkle-tree.txt";
const OKX_V2_ROOT = "9e98ebde32ef22ded88a5fb2d5e53d76ed57cb9c6b2c966f250721defe6ab041";

describe("OKX v1: the real Nov 2022 path (auditId 499930592, ~95k BTC at the root)", () => {
  it("reaches its root; the root is said to be the file's own; the balances printed", async () => {
    const r = await verify(fixture(OKX_V1));
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("format     okx-v1");
    expect(r.stdout).toContain("balances   1.000069 BTC, 0.99908176 ETH, 19398.33550812 USDT");
    expect(r.stdout).toContain("23 siblings reach " + OKX_V1_ROOT);
    expect(r.stdout).toContain("the root came from the file itself");
    expect(r.stdout).toMatch(/^holds: root ac6b39d2.* \(the file's own root\)$/m);
  });

  it("--json: verdict, format, root, balances, findings; --root the published root holds", async () => {
    const r = await verify(fixture(OKX_V1), "--root", OKX_V1_ROOT, "--json");
    expect(r.exitCode).toBe(0);
    expect(r.json).toMatchObject({
      verdict: "holds",
      format: "okx-v1",
      root: OKX_V1_ROOT,
      root_source: "given",
      balances: [
        { asset: "BTC", amount: "1.000069" },
        { asset: "ETH", amount: "0.99908176" },
        { asset: "USDT", amount: "19398.33550812" },
      ],
    });
    expect(r.json.findings).toContainEqual(expect.objectContaining({ status: "ok", step: "root" }));
  });

  it("a root from another file via --root: does not hold, naming the root level", async () => {
    const r = await verify(fixture(OKX_V1), "--root", OKX_V2_ROOT, "--json");
    expect(r.exitCode).toBe(1);
    expect(failures(r.json)).toEqual([
      expect.objectContaining({
        step: "root",
        at: "level 24 (root)",
        text: expect.stringContaining(OKX_V2_ROOT),
      }),
    ]);
  });

  it("a balance raised on the path (level 9's sibling), root totals raised to match: the hashes break", async () => {
    const f = tampered(OKX_V1, (t) =>
      t
        .replace('"BTC":"0.22766732"', '"BTC":"1.22766732"')
        .replace('"BTC":"95088.55505656"', '"BTC":"95089.55505656"'),
    );
    const r = await verify(f, "--json");
    expect(r.exitCode).toBe(1);
    expect(failures(r.json).map((x: Finding) => x.step)).toContain("root");
    expect(r.json.verdict).toBe("fails");
  });

  it("a negative sibling: refused with its level, even when every hash is recomputed to match", async () => {
    // the forger's file: a sibling at height 2 holds −5 USDT; its own hash is whatever it says, so only the
    // sums and the node hashes above it change; the root of such a file is the forger's to choose
    const f = tampered(OKX_V1, (t) => t.replace('"USDT":"0.00403715"', '"USDT":"-5.00403715"'));
    const r = await verify(f, "--json");
    expect(r.exitCode).toBe(1);
    const neg = failures(r.json).filter((x: Finding) => x.step === "balances");
    expect(neg[0]).toMatchObject({ at: "level 2 (path[1])", text: expect.stringContaining("negative USDT") });
  });

  it("a hash cut to 64 bits: refused with its level", async () => {
    const f = tampered(OKX_V1, (t) =>
      t.replace(
        '"hash":"747aa1c09adcd812ff6e7e560b74afe79ef9189465a26ffeca430091671b9e17"',
        '"hash":"747aa1c09adcd812"',
      ),
    );
    const r = await verify(f, "--json");
    expect(r.exitCode).toBe(1);
    expect(failures(r.json)).toContainEqual(
      expect.objectContaining({
        step: "hash",
        at: "level 2 (path[1])",
        text: expect.stringContaining("64 bits"),
      }),
    );
  });

  it("the customer's balance raised: the leaf is named", async () => {
    const f = tampered(OKX_V1, (t) => t.replace('"BTC":"1.000069"', '"BTC":"2.000069"'));
    const r = await verify(f, "--json");
    expect(r.exitCode).toBe(1);
    expect(failures(r.json)[0]).toMatchObject({ step: "leaf", at: "level 1 (self)" });
  });
});

describe("OKX v2: user info beside the full tree", () => {
  it("every inner node rebuilds, both leaves found, as a second file or --tree", async () => {
    for (const args of [
      [fixture(OKX_V2), fixture(OKX_V2_TREE)],
      [fixture(OKX_V2), "--tree", fixture(OKX_V2_TREE), "--root", OKX_V2_ROOT],
    ]) {
      const r = await verify(...args);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain("all 25 inner nodes rebuild from their children");
      expect(r.stdout).toContain("balances   0.00005 BTC, 0 ETH, 0 USDT");
    }
  });

  it("without the tree: cannot say (exit 3), the customer's own leaves still checked", async () => {
    const r = await verify(fixture(OKX_V2), "--json");
    expect(r.exitCode).toBe(3);
    expect(r.json.verdict).toBe("cannot-say");
    expect(r.json.findings.filter((f: Finding) => f.step === "leaf" && f.status === "ok")).toHaveLength(3);
  });

  it("a forged root with the right leaves (what OKX's own validator accepts): the line is named", async () => {
    const f = tampered(OKX_V2_TREE, (t) =>
      t.replace(`${OKX_V2_ROOT},6,{"BTC":"0.00005"`, `${OKX_V1_ROOT},6,{"BTC":"0.00005"`),
    );
    const r = await verify(fixture(OKX_V2), f, "--json");
    expect(r.exitCode).toBe(1);
    expect(failures(r.json)[0]).toMatchObject({
      step: "tree",
      at: expect.stringMatching(/^height 6 \(.* line 1\)$/),
    });
  });

  it("a negative node in the tree, sums kept consistent: refused with its line", async () => {
    const f = tampered(OKX_V2_TREE, (t) =>
      t.replace(
        '4cfca39a04515bf7ff26f9fa1efb66d333c260dcf52bdf1ee3081ea6a88a785c,1,{"BTC":"0","ETH":"0","USDT":"0.00008117"}',
        '4cfca39a04515bf7ff26f9fa1efb66d333c260dcf52bdf1ee3081ea6a88a785c,1,{"BTC":"0","ETH":"0","USDT":"-0.00008117"}',
      ),
    );
    const r = await verify(fixture(OKX_V2), f, "--json");
    expect(r.exitCode).toBe(1);
    expect(failures(r.json)[0]).toMatchObject({
      step: "balances",
      at: expect.stringMatching(/^height 1 \(.* line 29\)$/),
    });
  });
});

describe("the dispatch", () => {
  it("--proof-format forces a format; an unknown name lists the liabilities formats (exit 2)", async () => {
    const r = await verify(fixture(OKX_V1), "--proof-format", "okx-v1");
    expect(r.exitCode).toBe(0);
    const bad = await verify(fixture(OKX_V1), "--proof-format", "nope");
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("okx-v1");
  });

  it("chaingw's own proofs still need --commitment; an exchange file refuses one", async () => {
    const f = join(dir, "own.json");
    writeFileSync(f, JSON.stringify({ format: "chaingw-liabilities-proof" }));
    const own = await verify(f);
    expect(own.exitCode).toBe(2);
    expect(own.stderr).toContain("--commitment");
    const r = await verify(fixture(OKX_V1), "--commitment", f);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("no commitment file");
  });
});
