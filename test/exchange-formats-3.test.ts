/**
 * Issue 58: the publishers round three — each real published file (test/fixtures/exchange/, SOURCES.md
 * there) through the real bin, holding with its root, and a changed copy not holding; the publisher named
 * right by detection on every file. The hashes the publishers' own verifiers compute are recomputed here
 * independently (node:crypto, BigInt), not through chaingw's code.
 */
import { createHash, createHmac } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FORMATS, recognisedAs } from "../src/formats/registry.js";
import { runCli } from "./helpers/cli.js";
import { failures, fixture, tamperer, text, verify } from "./helpers/inclusion.js";

const { dir, tampered, next } = tamperer("chaingw-exfmt3-");
const sha256 = (b: string | Buffer) => createHash("sha256").update(b).digest();
const OWN = join(__dirname, "fixtures", "exchange", "ownership");

/** Every file under a directory, recursively. */
const filesUnder = (d: string): string[] =>
  readdirSync(d).flatMap((f) => {
    const p = join(d, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });

describe("detection never names the wrong publisher (issue 58 item 2)", () => {
  const files = [...filesUnder(join(__dirname, "fixtures")), ...filesUnder("/work/shared/por-samples")];

  it("every file through every descriptor of every kind, and the recognisers of files chaingw does not read: at most one says yes", () => {
    for (const file of files) {
      const t = readFileSync(file, "utf8");
      const claims = [
        ...FORMATS.filter((f) => f.detect(t)).map((f) => f.name),
        ...recognisedAs(t).map((w) => `not read: ${w.slice(0, 40)}`),
      ];
      expect({ file, claims: claims.length > 1 ? claims : "≤1" }).toEqual({ file, claims: "≤1" });
    }
  });

  it.each([
    ["ownership/poloniex_por_2024-08.csv", "poloniex"],
    ["ownership/poloniex_por_2026-04.csv", "poloniex"],
    ["ownership/huobi_por_2023-08.csv", "htx"],
    ["ownership/huobi_por_2024-07.csv", "htx"],
    ["ownership/huobi_por_2026-02.csv", "htx"],
    ["liabilities/tnf-output_merkle_tree.txt", "tnf-leaf-list"],
    ["liabilities/bitso-example-merkle-tree.tsv", "tnf-leaf-list"],
  ])("%s is %s's", (name, format) => {
    const t = readFileSync(join(__dirname, "fixtures", "exchange", name), "utf8");
    expect(FORMATS.filter((f) => f.detect(t)).map((f) => f.name)).toEqual([format]);
  });

  it("HTX's columns signed with neither publisher's text, or with both's: not a layout chaingw knows, the two compared (exit 2)", async () => {
    const polo = readFileSync(join(OWN, "poloniex_por_2024-08.csv"), "utf8");
    for (const [what, body] of [
      ["neither", polo.replaceAll(",poloniex,", ",acme,")],
      ["both", polo.replace(",poloniex,", ",huobi,")],
    ] as const) {
      const file = join(dir, `${next()}-${what}.csv`);
      writeFileSync(file, body);
      const r = await runCli(["reserves", "verify", file]);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain("not an address file of a layout chaingw knows");
      expect(r.stderr).toContain("the columns of htx and poloniex");
      expect(r.stderr).toContain(what === "neither" ? "neither's texts" : "both's texts");
      // named, it is read as that publisher's
      const forced = await runCli(["reserves", "verify", file, "--proof-format", "poloniex", "--json"]);
      expect(JSON.parse(forced.stdout).format).toBe("poloniex");
    }
  });
});

describe("Poloniex's address files (poloniex/tools-nodejs-address-verify)", () => {
  const run = async (file: string, ...args: string[]) => {
    const r = await runCli(["reserves", "verify", file, "--json", ...args]);
    return { ...r, json: JSON.parse(r.stdout) };
  };
  type Row = { line: number; coin: string; address: string; status: string; reason: string };

  it('2026-04: read as Poloniex\'s; rows signed "poloniex" or "Poloniex" are signed, EVM signatures with or without 0x; the four rows under a TRX row\'s signature fail', async () => {
    const r = await run(join(OWN, "poloniex_por_2026-04.csv"));
    expect(r.exitCode).toBe(1);
    expect(r.json.format).toBe("poloniex");
    const rows: Row[] = r.json.rows;
    const at = (line: number) => rows.find((x) => x.line === line)!;
    // 0x8fca… signed "poloniex" without 0x; 0x176f… "Poloniex" without 0x; TUgS… with 0x
    expect(at(67)).toMatchObject({ coin: "ETH", status: "signed" });
    expect(at(68)).toMatchObject({ coin: "ETH", status: "signed" });
    expect(at(45)).toMatchObject({ coin: "TRX", status: "signed" });
    const failed = rows.filter((x) => x.status === "failed");
    expect(failed.map((x) => [x.line, x.coin])).toEqual([
      [69, "ETH"],
      [80, "USDT-ERC20"],
      [87, "SHIB-ERC20"],
      [193, "BTC-ERC20"],
    ]);
    for (const f of failed) expect(f.address).toBe("0x29065a4c1f2f20d1e263930088890d6f49fe715a");
    expect(rows.some((x) => /none of the messages/.test(x.reason ?? ""))).toBe(false);
    // read as HTX's, the same rows sign none of HTX's texts: cannot say, never proven
    const asHtx = await run(join(OWN, "poloniex_por_2026-04.csv"), "--proof-format", "htx");
    expect(asHtx.json.rows.find((x: Row) => x.line === 67).status).toBe("cannot-say");
  });

  it("a variants total with no amount (2025-10's and 2026-02's BTC(ALL),-,) states none and is read; any other line without one is refused (exit 2)", async () => {
    const polo = readFileSync(join(OWN, "poloniex_por_2024-08.csv"), "utf8");
    const blank = join(dir, `${next()}-polo.csv`);
    writeFileSync(blank, polo.replace("TRX(ALL),-,120746767.91", "TRX(ALL),-,"));
    const r = await run(blank);
    expect(r.exitCode).toBe(1);
    expect(r.json.findings).toContainEqual(
      expect.objectContaining({
        step: "summary",
        at: "line 2",
        text: expect.stringContaining("TRX(ALL): none stated"),
      }),
    );
    const bad = join(dir, `${next()}-polo.csv`);
    writeFileSync(bad, polo.replace("TRX,63931974,120746767.91", "TRX,63931974,"));
    const b = await runCli(["reserves", "verify", bad]);
    expect(b.exitCode).toBe(2);
    expect(b.stderr).toContain("line 3");
  });

  it("2024-08: its TRX total agrees with its rows; one amount raised does not (exit 1, the summary line named)", async () => {
    const r = await run(join(OWN, "poloniex_por_2024-08.csv"));
    expect(r.json.format).toBe("poloniex");
    const summary = (j: { findings: { step: string; status: string; at?: string; text: string }[] }) =>
      j.findings.filter((f) => f.step === "summary" || /summary/.test(f.text));
    expect(summary(r.json).filter((f) => f.status === "fails")).toEqual([]);
    const file = join(dir, `${next()}-polo.csv`);
    writeFileSync(
      file,
      readFileSync(join(OWN, "poloniex_por_2024-08.csv"), "utf8").replace(
        "63931974,845558.90,",
        "63931974,845559.90,",
      ),
    );
    const t = await run(file);
    expect(t.exitCode).toBe(1);
    expect(
      failures(t.json)
        .map((f) => f.text)
        .join("\n"),
    ).toMatch(/120746767\.91.*120746768\.91|120746768\.91.*120746767\.91/);
  });
});

/** merkletreejs's defaults, by hand: each pair sha256(left ‖ right), an odd node carried up. */
function rootByHand(leaves: string[]): string {
  let layer: Buffer[] = leaves.map((h) => Buffer.from(h, "hex"));
  while (layer.length > 1) {
    const up: Buffer[] = [];
    for (let i = 0; i < layer.length; i += 2)
      up.push(i + 1 < layer.length ? sha256(Buffer.concat([layer[i]!, layer[i + 1]!])) : layer[i]!);
    layer = up;
  }
  return layer[0]!.toString("hex");
}
const leavesOf = (t: string) =>
  t
    .split(/\r?\n/)
    .slice(1)
    .filter((l) => l)
    .map((l) => l.split("\t")[1]!);

describe("the auditors' Merkle tree tool's leaf lists (The Network Firm, formerly Armanino; Bitso)", () => {
  const TNF = "tnf-output_merkle_tree.txt";
  const BITSO = "bitso-example-merkle-tree.tsv";
  const tnfRoot = text("tnf-output_merkle_root.txt").trim();

  it("the tool's own output holds with the root it wrote apart and the customer's leaf; without --root: cannot say", async () => {
    expect(rootByHand(leavesOf(text(TNF)))).toBe(tnfRoot);
    const r = await verify(fixture(TNF), "--root", tnfRoot, "--leaf", "ec7062f87011b218", "--json");
    expect(r.exitCode).toBe(0);
    expect(r.json).toMatchObject({
      format: "tnf-leaf-list",
      root: tnfRoot,
      root_source: "given",
      sum_binding: "inclusion-only",
    });
    const bare = await verify(fixture(TNF), "--json");
    expect(bare.exitCode).toBe(3);
    expect(bare.json.root_source).toBe("none");
    const human = await verify(fixture(TNF), "--root", tnfRoot, "--leaf", "ec7062f87011b218");
    expect(human.stdout).toContain("the auditors' Merkle tree tool");
    expect(human.stdout).toContain("it shows inclusion only, and the root bounds no total");
  });

  it("Bitso's file: the README's leaf is Bitso's rule over its account and balance, found in the list; the root by hand holds", async () => {
    // merkle-tree-calculate-leaf-hash.js's rule: sha256(account ‖ hex(sha256(balance)) per sorted currency), 16 hex
    const leaf = sha256(`d7ae2e6e-c36b-4b44-8b98-bdd59c4eebad${sha256("0.00000001").toString("hex")}`)
      .toString("hex")
      .slice(0, 16);
    expect(leaf).toBe("e17e7edf6faa1a6a");
    const root = rootByHand(leavesOf(text(BITSO)));
    const r = await verify(fixture(BITSO), "--root", root, "--leaf", leaf, "--json");
    expect(r.exitCode).toBe(0);
    expect(r.json.findings).toContainEqual(
      expect.objectContaining({ step: "leaf", at: "line 16", status: "ok" }),
    );
    // another customer's balance: the leaf it makes is not in the list
    const other = sha256(`d7ae2e6e-c36b-4b44-8b98-bdd59c4eebad${sha256("0.00000002").toString("hex")}`)
      .toString("hex")
      .slice(0, 16);
    const miss = await verify(fixture(BITSO), "--root", root, "--leaf", other, "--json");
    expect(miss.exitCode).toBe(1);
    expect(failures(miss.json)).toEqual([expect.objectContaining({ step: "leaf" })]);
  });

  it("changed copies: one leaf changed misses the root; a leaf listed twice fails; a line not of the form is refused with its line (exit 2)", async () => {
    const root = rootByHand(leavesOf(text(BITSO)));
    const changed = await verify(
      tampered(BITSO, (t) => t.replace("6,3\ta930ca02120c1a5d", "6,3\ta930ca02120c1a5e")),
      "--root",
      root,
      "--leaf",
      "e17e7edf6faa1a6a",
      "--json",
    );
    expect(changed.exitCode).toBe(1);
    expect(failures(changed.json)).toEqual([
      expect.objectContaining({ step: "root", text: expect.stringContaining("not the given root") }),
    ]);
    const twice = await verify(
      tampered(BITSO, (t) => t.replace("6,3\ta930ca02120c1a5d", "6,3\td5e084ca00681adf")),
      "--json",
    );
    expect(twice.exitCode).toBe(1);
    expect(failures(twice.json)).toContainEqual(
      expect.objectContaining({
        step: "leaves",
        at: "line 5",
        text: expect.stringContaining("again (line 2)"),
      }),
    );
    const bad = await verify(tampered(BITSO, (t) => t.replace("6,3\t", "6,4\t")));
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("line 5: leaf index 4 where 3 belongs");
    const flag = await verify(fixture(BITSO), "--leaf", "xyz");
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr).toContain("--leaf");
  });
});

describe("Bitget's hashing as its code did at each date (issue 58 item 3)", () => {
  const SEP = "bitget-2025-09-merkel_tree_bg.json";
  type Node = { balances: Record<string, string>; merkelLeaf: string; encryptUid: string; nonce: string };

  it("Sep 2025 (ce8c0b9): the leaf and root are fastjson's default spelling (unquoted, scale kept) — the leaf holds, named; the file does not, for its negative USDC", async () => {
    const doc = JSON.parse(text(SEP)) as { self: Node; path: Node[] };
    // by hand: BTC, ETH, USDT, USDC is Java HashMap's order of these keys; the amounts bare, as written
    const bare = `{${["BTC", "ETH", "USDT", "USDC"].map((k) => `"${k}":${doc.self.balances[k]}`).join(",")}}`;
    const leaf = sha256(`${doc.self.encryptUid},${doc.self.nonce},${bare}`).toString("hex").slice(0, 16);
    expect(leaf).toBe(doc.self.merkelLeaf);
    const root = doc.path.at(-1)!.merkelLeaf;
    const r = await verify(fixture(SEP), "--root", root, "--json");
    expect(r.exitCode).toBe(1);
    expect(r.json.root).toBe(root);
    const leafFinding = r.json.findings.find((f: { step: string }) => f.step === "leaf");
    expect(leafFinding).toMatchObject({ status: "ok" });
    expect(leafFinding.text).toContain("fastjson");
    expect(new Set(failures(r.json).map((f) => f.step))).toEqual(new Set(["balances", "hash"]));
    expect(
      failures(r.json)
        .filter((f) => f.step === "balances")
        .map((f) => f.at),
    ).toEqual(["level 15 (path[12])", "level 14"]);
  });

  it("Nov 2025 (86209a9) is still hashed as its JSONUtils writes (quoted, zeros stripped), named", async () => {
    const r = await verify(fixture("bitget-2025-11-merkel_tree_bg.json"), "--json");
    const leafFinding = r.json.findings.find((f: { step: string }) => f.step === "leaf");
    expect(leafFinding).toMatchObject({ status: "ok" });
    expect(leafFinding.text).toContain("779bf2f");
  });

  it("a changed copy: one sibling's amount raised, the path untouched otherwise, does not reach the root", async () => {
    const root = (JSON.parse(text(SEP)) as { path: Node[] }).path.at(-1)!.merkelLeaf;
    const r = await verify(
      tampered(SEP, (t) => t.replace('"USDT": "1484.52298053"', '"USDT": "1484.52298054"')),
      "--root",
      root,
      "--json",
    );
    expect(r.exitCode).toBe(1);
    expect(failures(r.json)).toContainEqual(
      expect.objectContaining({ step: "root", text: expect.stringContaining("not the given root") }),
    );
  });
});

describe("Flipster (teamprex/proof-of-reserves): both leaf rules, the one that held named", () => {
  type Doc = {
    leaf_index: number;
    assets: { currency: string; balance: string }[];
    root: string;
    proofs: string[];
  };
  /** Flipster's main.go by hand: the leaf, then sha256 of the pair, the side by the index's parity. */
  const byHand = (d: Doc, leafText: string) => {
    let h = sha256(leafText);
    let i = d.leaf_index;
    for (const p of d.proofs) {
      const sib = Buffer.from(p, "base64");
      h = sha256(i % 2 === 0 ? Buffer.concat([h, sib]) : Buffer.concat([sib, h]));
      i >>= 1;
    }
    return h.toString("hex");
  };

  it.each([
    ["flipster-2025-03-06-merkle_proof.json", "json", "before 11aac7b"],
    ["flipster-merkle_proof.json", "pipe", 'since 11aac7b "Fix hashing leaf element"'],
  ])("%s holds with its root under the %s rule, named", async (name, rule, named) => {
    const d = JSON.parse(text(name)) as Doc;
    const leafText =
      rule === "json"
        ? JSON.stringify(d.assets.map((a) => ({ currency: a.currency, balance: a.balance })))
        : d.assets.map((a) => `|${a.currency}:${a.balance}`).join("");
    expect(byHand(d, leafText)).toBe(d.root);
    const r = await verify(fixture(name), "--root", d.root, "--json");
    expect(r.exitCode).toBe(0);
    expect(r.json).toMatchObject({ format: "flipster", root: d.root, sum_binding: "inclusion-only" });
    expect(r.json.findings).toContainEqual(
      expect.objectContaining({ step: "leaf", status: "ok", text: expect.stringContaining(named) }),
    );
    const own = await verify(fixture(name));
    expect(own.exitCode).toBe(3);
  });

  it("a changed copy (one balance, the path untouched) reaches neither root: fails, both rules named; a negative balance fails", async () => {
    const d = JSON.parse(text("flipster-merkle_proof.json")) as Doc;
    const r = await verify(
      tampered("flipster-merkle_proof.json", (t) => t.replace('"124.123"', '"125.123"')),
      "--root",
      d.root,
      "--json",
    );
    expect(r.exitCode).toBe(1);
    expect(failures(r.json)).toContainEqual(
      expect.objectContaining({ step: "path", text: expect.stringContaining("neither leaf rule reaches") }),
    );
    const neg = await verify(
      tampered("flipster-merkle_proof.json", (t) => t.replace('"10.123"', '"-10.123"')),
      "--json",
    );
    expect(neg.exitCode).toBe(1);
    expect(failures(neg.json)).toContainEqual(expect.objectContaining({ step: "balances" }));
  });
});

describe("SwissBorg (SwissBorg/proof-of-liabilities): userLiab with auditRoots as the second file, --credential", () => {
  const U2 = fixture("swissborg-userLiab_2.json");
  const R2 = fixture("swissborg-auditRoots_2.json");
  const U6 = fixture("swissborg-userLiab_6.json");
  const R6 = fixture("swissborg-auditRoots_6.json");
  const C2 = "z2Ef6hx6QbRdixkL7c8rdBj";
  const C6 = "D2tVdEWt1MooLsMa6ryPGj";
  const commitment = (f: string) => JSON.parse(readFileSync(f, "utf8")).audit.commitment.digest as string;
  const hmac = (k: string, m: string) => createHmac("sha256", k).update(m).digest("hex");

  it("SBPOL20230111: the credential's nonce chain by hand is the file's proof.nonce; the file holds with the published commitment (each child's sum bound)", async () => {
    const u = JSON.parse(readFileSync(U6, "utf8"));
    const l = u.liabilities[0];
    const a = hmac(C6, `SB PoL - Audit nonce derivation,${u.audit_id}`);
    const t = hmac(a, `SB PoL - Currency Merkle tree nonce derivation,PLN`);
    expect(l.audit_partition_id).toBe(`${u.audit_id}-PLN`);
    expect(hmac(t, `SB PoL - Leaf nonce derivation,${l.proof.leaf_index}`)).toBe(l.proof.nonce);
    const r = await verify(U6, R6, "--credential", C6, "--root", commitment(R6), "--json");
    expect(r.exitCode).toBe(0);
    expect(r.json).toMatchObject({
      format: "swissborg",
      sum_binding: "per-child",
      root: commitment(R6),
      root_source: "given",
    });
    expect(r.json.balances).toEqual([
      { asset: "PLN", amount: "10" },
      { asset: "CHSB", amount: "44.81425" },
      { asset: "EUR", amount: "14558" },
    ]);
    expect(r.json.findings).toContainEqual(
      expect.objectContaining({
        step: "path",
        status: "ok",
        text: expect.stringContaining("the leaf's nonce (audits from SBPOL20221216)"),
      }),
    );
    expect(r.stdout + r.stderr).not.toContain(C6);
  });

  it("SBPOL20221209 (proof.nonce the leaf's hash) holds; without the credential, cannot say whose the leaves are; another credential fails", async () => {
    const r = await verify(U2, R2, "--credential", C2, "--root", commitment(R2), "--json");
    expect(r.exitCode).toBe(0);
    expect(r.json.findings).toContainEqual(
      expect.objectContaining({
        step: "path",
        text: expect.stringContaining("the leaf's hash (audits SBPOL20221207, SBPOL20221209)"),
      }),
    );
    const none = await verify(U2, R2, "--root", commitment(R2), "--json");
    expect(none.exitCode).toBe(3);
    expect(none.json.findings).toContainEqual(
      expect.objectContaining({
        step: "leaf",
        status: "cannot-say",
        text: expect.stringContaining("--credential TEXT"),
      }),
    );
    const other = await verify(U2, R2, "--credential", `${C2}x`, "--root", commitment(R2), "--json");
    expect(other.exitCode).toBe(1);
    expect(new Set(failures(other.json).map((f) => f.step))).toEqual(new Set(["leaf"]));
  });

  it("changed copies: the customer's first liability raised (path untouched) misses the root; a currency's root total raised misses the commitment; the roots file alone, or the liabilities without it, exit 2", async () => {
    const sib = await verify(
      tampered("swissborg-userLiab_6.json", (t) =>
        t.replace(/("liability": ")(\d)/, (_, a, d) => `${a}${Number(d) + 1}`),
      ),
      R6,
      "--credential",
      C6,
      "--root",
      commitment(R6),
      "--json",
    );
    expect(sib.exitCode).toBe(1);
    expect(failures(sib.json).length).toBeGreaterThan(0);
    const roots = await verify(
      U6,
      tampered("swissborg-auditRoots_6.json", (t) =>
        t.replace(/("liability": ")(\d)/, (_, a, d) => `${a}${Number(d) + 1}`),
      ),
      "--credential",
      C6,
      "--root",
      commitment(R6),
      "--json",
    );
    expect(roots.exitCode).toBe(1);
    expect(failures(roots.json)).toContainEqual(
      expect.objectContaining({ step: "root", text: expect.stringContaining("not the given root") }),
    );
    const alone = await verify(R6);
    expect(alone.exitCode).toBe(2);
    expect(alone.stderr).toContain("SwissBorg's audit roots file");
    const single = await verify(U6, "--credential", C6);
    expect(single.exitCode).toBe(2);
    expect(single.stderr).toContain("give auditRoots_N.json as the second file");
  });
});

describe("BlocPalX (Blocpal-Inc/proof-of-reserves): the full tree file, every line and its balances", () => {
  const TREE = "blocpalx-2023-06-27_merkletree.txt";
  const ROOT = "8aacaa6c4bd0950d7ec242418411c910cc330a78bcaa61b2980bcc0aeccf64f5";
  const LINE8 = "02bc53f6243bf2f18fb9eb2ea8b10b1315149e9474b3c4f506039c6500f59425";

  it("its root by hand (merkle-tools over sha256(hash,balances)); the file holds with it and a customer's sentence hash; the totals are the lines' exact sums", async () => {
    const rows = text(TREE)
      .split(/\r?\n/)
      .slice(5)
      .filter((l) => l);
    const leaves = rows.map((r) => sha256(r.split(",").slice(0, 2).join(",")).toString("hex"));
    expect(rootByHand(leaves)).toBe(ROOT);
    const r = await verify(fixture(TREE), "--root", ROOT, "--leaf", LINE8, "--json");
    expect(r.exitCode).toBe(0);
    expect(r.json).toMatchObject({ format: "blocpalx", root: ROOT, sum_binding: "full-tree" });
    expect(r.json.findings).toContainEqual(
      expect.objectContaining({ step: "sums", status: "ok", text: expect.stringContaining("9 totals") }),
    );
    expect(r.json.findings).toContainEqual(
      expect.objectContaining({ step: "leaf", status: "ok", at: "line 8" }),
    );
    const sentence = await verify(
      fixture(TREE),
      "--root",
      ROOT,
      "--credential",
      "[me@example.com] [x] [27 June 2023] [1.00000000 BTC]",
      "--json",
    );
    expect(sentence.exitCode).toBe(1);
    expect(failures(sentence.json)).toEqual([
      expect.objectContaining({ step: "leaf", text: expect.stringContaining("on no line") }),
    ]);
  });

  it("a changed copy (one line's amount, the rest untouched) misses the root and the header's total; a negative amount is named; the source file is named for what it is", async () => {
    const r = await verify(
      tampered(TREE, (t) => t.replace(",0.00003000 XRP,", ",0.00003001 XRP,")),
      "--root",
      ROOT,
      "--json",
    );
    expect(r.exitCode).toBe(1);
    expect(new Set(failures(r.json).map((f) => f.step))).toEqual(new Set(["sums", "root"]));
    const neg = await verify(
      tampered(TREE, (t) => t.replace(",0.00003000 XRP,", ",-0.00003000 XRP,")),
      "--json",
    );
    expect(failures(neg.json)).toContainEqual(expect.objectContaining({ step: "balances", at: "line 8" }));
    const src = await verify(fixture("blocpalx-2023-06-27-source.csv"));
    expect(src.exitCode).toBe(2);
    expect(src.stderr).toContain("BlocPalX's source file");
  });
});

describe("Silver Sixpence's tree levels (silversixpence-crypto/merkletree-verify)", () => {
  const LEVELS = "sixpence-tree-levels-9-14.csv";
  const rowsOf = (t: string) =>
    t
      .split("\n")
      .filter((l) => l)
      .map((l) => l.split(","));
  const top = () => rowsOf(text(LEVELS)).at(-1)![0]!;

  it("every node is sha256(left ‖ right) by hand (MerkleTreeVerify.java); the levels hold with their top as --root and a level-9 child as the leaf", async () => {
    for (const [h, , l, r] of rowsOf(text(LEVELS)))
      expect(sha256(Buffer.concat([Buffer.from(l!, "hex"), Buffer.from(r!, "hex")])).toString("hex")).toBe(h);
    const leaf = rowsOf(text(LEVELS))[0]![2]!;
    const r = await verify(fixture(LEVELS), "--root", top(), "--leaf", leaf, "--json");
    expect(r.exitCode).toBe(0);
    expect(r.json).toMatchObject({ format: "sixpence-levels", root: top(), sum_binding: "inclusion-only" });
    expect(r.json.findings).toContainEqual(
      expect.objectContaining({
        status: "claim",
        text: expect.stringContaining("levels below 9 are not given"),
      }),
    );
  });

  it("a changed copy (one child hash, the rest untouched) fails at its line; a level left out is cannot say; another leaf fails", async () => {
    const [, , l] = rowsOf(text(LEVELS))[3]!;
    const r = await verify(
      tampered(LEVELS, (t) => t.replace(`,${l},`, `,${l!.slice(0, -1)}${l!.endsWith("0") ? "1" : "0"},`)),
      "--root",
      top(),
      "--json",
    );
    expect(r.exitCode).toBe(1);
    expect(failures(r.json)).toContainEqual(expect.objectContaining({ step: "path", at: "line 4" }));
    const gap = await verify(
      tampered(LEVELS, (t) =>
        t
          .split("\n")
          .filter((x) => !/^[0-9a-f]{64},12,/.test(x))
          .join("\n"),
      ),
      "--root",
      top(),
      "--json",
    );
    expect(gap.exitCode).toBe(3);
    expect(gap.json.findings).toContainEqual(
      expect.objectContaining({ status: "cannot-say", text: expect.stringContaining("give every level") }),
    );
    const other = await verify(fixture(LEVELS), "--root", top(), "--leaf", "ab".repeat(32), "--json");
    expect(other.exitCode).toBe(1);
    expect(failures(other.json)).toEqual([expect.objectContaining({ step: "leaf" })]);
  });
});
