/**
 * The exchanges' formats issue 46 adds (Bybit, Hotcoin, Bitbase), detection that cannot overlap and explains
 * itself: each real published file (test/fixtures/exchange/liabilities/, SOURCES.md there) through the real
 * bin next to tampered copies that must fail with the reason named, and the checks each publisher's own
 * verifier makes recomputed here independently (node:crypto, BigInt), not through chaingw's code.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { claimants, formatsOf } from "../src/formats/registry.js";
import { runCli } from "./helpers/cli.js";
import { failures, fixture, tamperer, text, verify } from "./helpers/inclusion.js";

const { dir, tampered, next } = tamperer("chaingw-exfmt-");
const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

/** `a + b` of decimal texts, cut toward zero to `places` and printed with them (Java setScale(n, DOWN).toPlainString()). */
function addDown(a: string, b: string, places: number): string {
  const units = (t: string) => {
    const neg = t.startsWith("-");
    const [w, f = ""] = t.replace("-", "").split(".");
    const scaled = BigInt(`${w}${f.padEnd(18, "0").slice(0, 18)}`);
    return neg ? -scaled : scaled;
  };
  let sum = units(a) + units(b);
  sum /= 10n ** BigInt(18 - places);
  const neg = sum < 0n;
  const digits = (neg ? -sum : sum).toString().padStart(places + 1, "0");
  return `${neg ? "-" : ""}${digits.slice(0, -places)}.${digits.slice(-places)}`;
}

const BYBIT = [
  ["bybit-2024-05-40.json", "40 coins (Apr 2024)", 3],
  ["bybit-2024-08-40-v2.json", "40 coins v2", 14],
  ["bybit-2024-10-40-v3.json", "40 coins v3", 14],
  ["bybit-2025-01-40-v4.json", "40 coins v4", 14],
  ["bybit-2025-06-40-v5.json", "40 coins v5", 14],
] as const;

/** Bybit's validator (GenericMerkleTree.validate), recomputed: the leaf, every parent, the root's hash, totals and height. */
function bybitByHand(
  doc: {
    self: { userHash: string; hash: string; type: number; balance: Record<string, string> };
    path: { hash: string; type: number; height: number; balance: Record<string, string> }[];
  },
  places: Record<string, number> = {},
) {
  const coins = Object.keys(doc.self.balance);
  const leaf = sha256(doc.self.userHash + coins.map((c) => doc.self.balance[c]).join(""));
  let hash = leaf;
  let sums = { ...doc.self.balance };
  const path = doc.path;
  for (let i = 0; i < path.length - 1; i++) {
    const sib = path[i]!;
    sums = Object.fromEntries(coins.map((c) => [c, addDown(sums[c]!, sib.balance[c]!, places[c] ?? 8)]));
    const text = coins.map((c) => sums[c]).join("") + (i + 2);
    hash = sha256(sib.type === 1 ? sib.hash + hash + text : hash + sib.hash + text);
  }
  const root = path.at(-1)!;
  return {
    leafOk: leaf === doc.self.hash,
    rootOk: hash === root.hash,
    totalsOk: coins.every((c) => sums[c] === root.balance[c]),
    heightOk: root.height === path.length,
    root: root.hash,
  };
}

/**
 * Bybit's coin lists no published file shows, in the order of the validator's enums (bybit-exchange/merkle-proof:
 * the 4 coins of a473b34's Balance, their stablecoins' sums at 4 places; Asset20, AssetMnt20, Asset32 and
 * Asset50 of 3f0e2da), each with the places of its sums.
 */
const BYBIT_UNPUBLISHED: [string, string, Record<string, number>][] = [
  ["4 coins (Dec 2022)", "BTC ETH USDT USDC", { USDT: 4, USDC: 4 }],
  [
    "20 coins (Apr 2023)",
    "AGLA APT ATOM AVAX BIT BTC BUSD DAI DOGE DOT DYDX EOS ETH FTM LTC MATIC SOL USDC USDT XRP",
    {},
  ],
  [
    "20 coins, BIT → MNT",
    "AGLA APT ATOM AVAX MNT BTC BUSD DAI DOGE DOT DYDX EOS ETH FTM LTC MATIC SOL USDC USDT XRP",
    {},
  ],
  [
    "32 coins",
    "AGLA APT ATOM AVAX MNT BTC BUSD DAI DOGE DOT DYDX EOS ETH FTM LTC MATIC SOL USDC USDT XRP SHIB OP SAND LDO LINK COMP UNI MANA CRV BLUR SUSHI PEPE",
    {},
  ],
  [
    "50 coins (Jul 2026)",
    "AGLA APT ATOM AVAX MNT BTC DOGE DOT DYDX A ETH S LTC POL SOL USDC USDT XRP SHIB OP SAND LDO LINK COMP UNI MANA CRV BLUR SUSHI PEPE WLD BEAM AGI FET IMX RENDER GALA APEX SHRAP USDE GRAM XAUT HYPE STABLE ENA ARB ASTER ONDO AAVE USD1",
    {},
  ],
];

/**
 * A Bybit proof of `coins` built the way Bybit's validator checks it, hashed here (sha256 of text, Java's
 * setScale(n, DOWN) sums), not by chaingw: the customer's leaf, five siblings (the first the leaf's), the root.
 */
function bybitBuilt(coins: string[], places: Record<string, number>) {
  const amount = (k: number, c: string) => {
    const p = places[c] ?? 8;
    return `${(k * 7) % 13}.${String((k * 3779) % 10 ** p).padStart(p, "0")}`;
  };
  const balance = (k: number) => Object.fromEntries(coins.map((c, j) => [c, amount(k + j, c)]));
  const self = {
    auditId: "2022120104",
    balance: balance(1),
    type: 1,
    hash: "",
    height: 1,
    nonce: "8a0c2f7e-1d35-4b8e-9f60-2a4c5e7b9d11",
    userHash: sha256("a customer of the test"),
  };
  self.hash = sha256(self.userHash + coins.map((c) => self.balance[c]).join(""));
  const path: {
    auditId: string;
    balance: Record<string, string>;
    type: number;
    hash: string;
    height: number;
    nonce?: string;
  }[] = [];
  let hash = self.hash;
  let sums = { ...self.balance };
  for (let i = 0; i < 5; i++) {
    const sib = {
      auditId: self.auditId,
      balance: balance(10 * (i + 2)),
      type: i % 2 === 0 ? 2 : 1,
      hash: sha256(`sibling ${i}`),
      height: i + 1,
    };
    path.push(i === 0 ? { ...sib, nonce: "3f9e7a1c-5b2d-4c8e-a6f0-1e3d5c7b9a20" } : sib);
    sums = Object.fromEntries(coins.map((c) => [c, addDown(sums[c]!, sib.balance[c]!, places[c] ?? 8)]));
    const text = coins.map((c) => sums[c]).join("") + (i + 2);
    hash = sha256(sib.type === 1 ? sib.hash + hash + text : hash + sib.hash + text);
  }
  path.push({ auditId: self.auditId, balance: sums, type: 3, hash, height: 6 });
  const doc = { self, path };
  expect(bybitByHand(doc, places)).toMatchObject({
    leafOk: true,
    rootOk: true,
    totalsOk: true,
    heightOk: true,
  });
  return doc;
}

describe("Bybit: every published coin-list version (bybit-exchange/merkle-proof)", () => {
  it.each(BYBIT)(
    "%s: the leaf and %s path reach the root (as Bybit's validator recomputed here agrees)",
    async (name, label, siblings) => {
      const doc = JSON.parse(text(name));
      const byHand = bybitByHand(doc);
      expect(byHand).toMatchObject({ leafOk: true, rootOk: true, totalsOk: true, heightOk: true });
      // the root recomputed by hand stands for the one Bybit published: without --root, cannot say
      const r = await verify(fixture(name), "--root", byHand.root, "--json");
      expect(r.exitCode).toBe(0);
      expect(r.json).toMatchObject({
        verdict: "holds",
        format: "bybit",
        root: byHand.root,
        sum_binding: "total",
      });
      const own = await verify(fixture(name), "--json");
      expect(own.exitCode).toBe(3);
      expect(own.json.verdict).toBe("cannot-say");
      expect(r.json.findings).toContainEqual(
        expect.objectContaining({
          status: "ok",
          step: "path",
          text: expect.stringContaining(`${siblings} siblings (${label}`),
        }),
      );
      expect(r.json.balances).toHaveLength(40);
    },
  );

  it.each(BYBIT_UNPUBLISHED)(
    "%s: no published file (searched: the repository's history and pull requests, its forks, the code and issue corpora): a proof built as Bybit's validator checks it holds, named as that list; a sibling raised does not",
    async (label, coinText, places) => {
      const coins = coinText.split(" ");
      const file = join(dir, `${next()}-bybit-${coins.length}.json`);
      const doc = bybitBuilt(coins, places);
      writeFileSync(file, JSON.stringify(doc, null, 2));
      const root = doc.path.at(-1)!.hash;
      const r = await verify(file, "--root", root, "--json");
      expect(r.exitCode, r.stdout).toBe(0);
      expect(r.json.findings).toContainEqual(
        expect.objectContaining({ status: "ok", step: "path", text: expect.stringContaining(`(${label}`) }),
      );
      expect(r.json.balances).toHaveLength(coins.length);
      // a sibling's first coin raised by one unit, the root's total raised to match: the hashes do not
      const c0 = coins[0]!;
      const unit = `0.${"0".repeat((places[c0] ?? 8) - 1)}1`;
      doc.path[1]!.balance[c0] = addDown(doc.path[1]!.balance[c0]!, unit, places[c0] ?? 8);
      doc.path.at(-1)!.balance[c0] = addDown(doc.path.at(-1)!.balance[c0]!, unit, places[c0] ?? 8);
      const forged = join(dir, `${next()}-bybit-${coins.length}-raised.json`);
      writeFileSync(forged, JSON.stringify(doc, null, 2));
      const f = await verify(forged, "--root", root, "--json");
      expect(f.exitCode).toBe(1);
      expect(failures(f.json).map((x) => x.step)).toContain("root");
    },
  );

  it("OKX v1 no longer takes Bybit's files: the human report names Bybit; a root from another file fails", async () => {
    const r = await verify(
      fixture("bybit-2025-06-40-v5.json"),
      "--root",
      "8a9e4bb937aac2d92559791fa711ffa6a38c4861564b87ad8f1f42f5d0ac6c93",
    );
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain("format     bybit");
    expect(r.stdout).toMatch(/FAILS\s+root \[level 15 \(root\)\]: the path reaches c91d5de0/);
  });

  it("tampered: a sibling's amount raised (root totals raised to match), the customer's amount raised, a negative sibling", async () => {
    const name = "bybit-2025-06-40-v5.json";
    const doc = JSON.parse(text(name));
    // level 3's sibling +1 BTC, and the root's BTC total +1: the sums agree, the hashes do not
    doc.path[2].balance.BTC = addDown(doc.path[2].balance.BTC, "1", 8);
    doc.path.at(-1).balance.BTC = addDown(doc.path.at(-1).balance.BTC, "1", 8);
    const raised = join(dir, "bybit-raised.json");
    writeFileSync(raised, JSON.stringify(doc, null, 2));
    const r1 = await verify(raised, "--json");
    expect(r1.exitCode).toBe(1);
    expect(failures(r1.json)).toEqual([
      expect.objectContaining({
        step: "root",
        at: "level 15 (root)",
        text: expect.stringContaining("not the file's root"),
      }),
    ]);
    const mine = JSON.parse(text(name));
    const coin = Object.keys(mine.self.balance).find((c) => mine.self.balance[c] !== "0.00000000")!;
    mine.self.balance[coin] = addDown(mine.self.balance[coin], "1000", 8);
    const leafRaised = join(dir, "bybit-leaf.json");
    writeFileSync(leafRaised, JSON.stringify(mine, null, 2));
    const r2 = await verify(leafRaised, "--json");
    expect(r2.exitCode).toBe(1);
    expect(failures(r2.json)[0]).toMatchObject({ step: "leaf", at: "level 1 (self)" });
    const neg = JSON.parse(text(name));
    neg.path[4].balance.USDT = `-${neg.path[4].balance.USDT}`;
    const negFile = join(dir, "bybit-neg.json");
    writeFileSync(negFile, JSON.stringify(neg, null, 2));
    const r3 = await verify(negFile, "--json");
    expect(r3.exitCode).toBe(1);
    expect(failures(r3.json)).toContainEqual(
      expect.objectContaining({
        step: "balances",
        at: "level 5 (path[4])",
        text: expect.stringContaining("negative USDT"),
      }),
    );
  });

  it("coins renamed: a coin no list has is refused by name and line; the names are not hashed (v3's POL read as v2's MATIC holds, named as v2)", async () => {
    const unknown = await verify(tampered("bybit-2024-10-40-v3.json", (t) => t.replace('"POL"', '"POLY"')));
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(
      /bybit-2024-10-40-v3\.json:\d+: self\.balance\.POLY: no coin list of Bybit's has POLY/,
    );
    const older = await verify(
      tampered("bybit-2024-10-40-v3.json", (t) => t.replaceAll('"POL"', '"MATIC"')),
      "--root",
      JSON.parse(text("bybit-2024-10-40-v3.json")).path.at(-1).hash,
      "--json",
    );
    expect(older.exitCode).toBe(0);
    expect(older.json.findings).toContainEqual(
      expect.objectContaining({ status: "ok", step: "path", text: expect.stringContaining("(40 coins v2") }),
    );
    // two of the customer's coins swapped: the amounts land on each other's place, and the leaf no longer matches
    const doc = JSON.parse(text("bybit-2024-10-40-v3.json"));
    const bal = doc.self.balance as Record<string, string>;
    const [x, y] = Object.keys(bal)
      .filter((c, _, all) => bal[c] !== bal[all[0]!])
      .concat(Object.keys(bal)[0]!);
    [bal[x!], bal[y!]] = [bal[y!]!, bal[x!]!];
    const swappedFile = join(dir, "bybit-swapped.json");
    writeFileSync(swappedFile, JSON.stringify(doc, null, 2));
    const swapped = await verify(swappedFile, "--json");
    expect(swapped.exitCode).toBe(1);
    expect(failures(swapped.json)[0]).toMatchObject({ step: "leaf" });
  });
});

/** Hotcoin's verifier (MerkleProofVerifier.verify), recomputed: domain-separated hashes of JSON string arrays. */
function hotcoinByHand(proof: any, anchor: any) {
  const H = (domain: number, fields: string[]) =>
    createHash("sha256")
      .update(Buffer.from([domain]))
      .update(JSON.stringify(fields), "utf8")
      .digest("hex");
  const P = "HOTCOIN-POR-SUM";
  const coins: string[] = proof.assets.map((a: { coin: string }) => a.coin);
  const config = H(3, [
    P,
    ...proof.assets.flatMap((a: { coin: string; decimals: number }) => [a.coin, String(a.decimals)]),
  ]);
  const strip = (t: string) => (t.includes(".") ? t.replace(/0+$/, "").replace(/\.$/, "") : t);
  const add = (a: string, b: string) => {
    const places = Math.max((a.split(".")[1] ?? "").length, (b.split(".")[1] ?? "").length);
    const u = (t: string) => BigInt((t.split(".")[0] ?? "") + (t.split(".")[1] ?? "").padEnd(places, "0"));
    const d = (u(a) + u(b)).toString().padStart(places + 1, "0");
    return strip(places ? `${d.slice(0, -places)}.${d.slice(-places)}` : d);
  };
  const self = proof.self;
  const leaf = H(0, [
    P,
    self.snapshotId,
    config,
    self.accountId,
    self.nonce,
    ...coins.map((c) => self.balances[c]),
  ]);
  let cur = leaf;
  let sums: Record<string, string> = { ...self.balances };
  let index = self.leafIndex;
  let width = anchor.leafCount;
  let used = 0;
  while (width > 1) {
    const step = proof.path[used++];
    const right = index % 2 === 0;
    if (step.position !== (right ? "RIGHT" : "LEFT")) return { ok: false, at: used };
    sums = Object.fromEntries(coins.map((c) => [c, add(sums[c]!, step.balances[c])]));
    const amounts = coins.map((c) => sums[c]!);
    cur = right
      ? H(1, [P, config, cur, step.hash, ...amounts])
      : H(1, [P, config, step.hash, cur, ...amounts]);
    index = Math.floor(index / 2);
    width = Math.ceil(width / 2);
  }
  return {
    ok:
      used === proof.path.length &&
      cur === anchor.root &&
      coins.every((c) => sums[c] === anchor.userTotals[c]),
    leafOk: leaf === self.leafHash,
    root: cur,
  };
}

describe("Hotcoin: domain-separated JSON hashing, the root in the anchor file", () => {
  const PROOF = "hotcoin-sample-proof.json";
  const ANCHOR = "hotcoin-sample-anchor.json";
  const ROOT = "d52c3dc794f1f692595d55912a4576f576b9e173dd46a4411c4c7cf32428b1b1";

  it("the published sample holds against its anchor (Hotcoin's verifier recomputed here agrees); without it, cannot say", async () => {
    const byHand = hotcoinByHand(JSON.parse(text(PROOF)), JSON.parse(text(ANCHOR)));
    expect(byHand).toEqual({ ok: true, leafOk: true, root: ROOT });
    const r = await verify(fixture(PROOF), "--anchor", fixture(ANCHOR), "--json");
    expect(r.exitCode).toBe(0);
    expect(r.json).toMatchObject({ verdict: "holds", format: "hotcoin", root: ROOT, root_source: "anchor" });
    expect(r.json.findings).toContainEqual(expect.objectContaining({ status: "ok", step: "sums" }));
    const alone = await verify(fixture(PROOF));
    expect(alone.exitCode).toBe(3);
    expect(alone.stdout).toContain("Hotcoin's proof holds no root: its anchor file (--anchor FILE");
    expect(alone.stdout).toContain("(reached by the path; no root to compare it with)");
    const anchorAlone = await verify(fixture(ANCHOR));
    expect(anchorAlone.exitCode).toBe(2);
    expect(anchorAlone.stderr).toContain("it is Hotcoin's anchor file");
  });

  it("tampered: a sibling raised with the anchor's totals raised to match, a sibling's side flipped, an amount not canonical, another anchor", async () => {
    const raisedProof = tampered(PROOF, (t) => t.replace('"BTC": "9033.24489749"', '"BTC": "9034.24489749"'));
    const raisedAnchor = tampered(ANCHOR, (t) =>
      t.replace('"BTC": "1551965187.28112499"', '"BTC": "1551965188.28112499"'),
    );
    const r1 = await verify(raisedProof, "--anchor", raisedAnchor, "--json");
    expect(r1.exitCode).toBe(1);
    expect(failures(r1.json)).toEqual([
      expect.objectContaining({
        step: "root",
        at: "level 19 (root)",
        text: expect.stringContaining("not the anchor's root"),
      }),
    ]);
    const flipped = await verify(
      tampered(PROOF, (t) => t.replace('"position": "LEFT"', '"position": "RIGHT"')),
      "--anchor",
      fixture(ANCHOR),
      "--json",
    );
    expect(flipped.exitCode).toBe(1);
    expect(failures(flipped.json)[0]).toMatchObject({ step: "path", at: "level 2 (path[2])" });
    const zeros = await verify(
      tampered(PROOF, (t) => t.replace('"USDT": "5325552.147"', '"USDT": "5325552.1470"')),
      "--anchor",
      fixture(ANCHOR),
      "--json",
    );
    expect(zeros.exitCode).toBe(1);
    expect(failures(zeros.json)[0]).toMatchObject({
      step: "balances",
      text: expect.stringContaining("not written canonically"),
    });
    const other = await verify(
      fixture(PROOF),
      "--anchor",
      tampered(ANCHOR, (t) => t.replace(ROOT, "d".repeat(64))),
      "--json",
    );
    expect(other.exitCode).toBe(1);
    expect(failures(other.json)[0]).toMatchObject({
      step: "root",
      text: expect.stringContaining("not the anchor's root"),
    });
    const member = await verify(
      tampered(PROOF, (t) => t.replace('"leafIndex"', '"uid": "7",\r\n    "leafIndex"')),
      "--anchor",
      fixture(ANCHOR),
    );
    expect(member.exitCode).toBe(2);
    expect(member.stderr).toMatch(
      /hotcoin-sample-proof\.json:\d+: self\.uid: not a member of Hotcoin's proof/,
    );
  });
});

/** Bitbase's verifier (verifyProof), recomputed: the payload text, sha256 of hex concatenations. */
function bitbaseByHand(d: any) {
  const payload = `POR_V1|auditId=${d.auditId}|recordId=${d.recordId}|${["BTC", "ETH", "USDT", "USDC"].map((c) => `${c}=${d.balances[c]}`).join("|")}`;
  let cur = sha256(payload);
  const leafOk = cur === d.leafHash && payload === d.leafPayload;
  for (const p of d.proof) cur = sha256(p.position === "LEFT" ? p.hash + cur : cur + p.hash);
  return { leafOk, rootOk: cur === d.rootHash };
}

describe("Bitbase: a tree without sums — inclusion only", () => {
  const NAME = "bitbase-por-proof-example.json";
  const ROOT = "add3965d6c7bca2a54dd23f6c882322292476f55def700589ae7dcc706bdbecb";

  it("the published example reaches its root (as Bitbase's verifier recomputed here agrees), and does not hold: the customer's own ETH is negative; the verdict says the tree binds no total", async () => {
    expect(bitbaseByHand(JSON.parse(text(NAME)))).toEqual({ leafOk: true, rootOk: true });
    const r = await verify(fixture(NAME), "--root", ROOT, "--json");
    expect(r.exitCode).toBe(1);
    expect(failures(r.json)).toEqual([
      expect.objectContaining({
        step: "balances",
        at: "level 0 (leaf)",
        text: expect.stringContaining("negative ETH amount (-0.20000000)"),
      }),
    ]);
    expect(r.json.findings).toContainEqual(expect.objectContaining({ status: "ok", step: "root" }));
    expect(r.json.findings).toContainEqual(
      expect.objectContaining({
        status: "claim",
        step: "scheme",
        text: expect.stringContaining("the root bounds no total"),
      }),
    );
  });

  it("tampered: the ETH made positive (payload and leaf hash recomputed) misses the root; a payload that is not the balances'; an extra coin; another --root", async () => {
    const d = JSON.parse(text(NAME));
    d.balances.ETH = "0.20000000";
    d.leafPayload = d.leafPayload.replace("ETH=-0.20000000", "ETH=0.20000000");
    d.leafHash = sha256(d.leafPayload);
    const pos = join(dir, "bitbase-positive.json");
    writeFileSync(pos, JSON.stringify(d, null, 2));
    expect(bitbaseByHand(d)).toEqual({ leafOk: true, rootOk: false });
    const r1 = await verify(pos, "--json");
    expect(r1.exitCode).toBe(1);
    expect(failures(r1.json)).toEqual([
      expect.objectContaining({ step: "root", text: expect.stringContaining("not the file's root") }),
    ]);
    const payload = await verify(
      tampered(NAME, (t) => t.replace("BTC=0.10000000", "BTC=9.10000000")),
      "--json",
    );
    expect(payload.exitCode).toBe(1);
    expect(failures(payload.json)).toContainEqual(
      expect.objectContaining({ step: "leaf", at: "leafPayload" }),
    );
    const coin = await verify(
      tampered(NAME, (t) =>
        t.replace('"USDC": "0.00000000"', '"USDC": "0.00000000",\n    "DAI": "5.00000000"'),
      ),
    );
    expect(coin.exitCode).toBe(2);
    expect(coin.stderr).toMatch(
      /bitbase-por-proof-example\.json:\d+: balances\.DAI: not a member of Bitbase's proof/,
    );
    const other = await verify(fixture(NAME), "--root", "f".repeat(64), "--json");
    expect(other.exitCode).toBe(1);
    expect(failures(other.json)).toContainEqual(
      expect.objectContaining({ step: "root", text: expect.stringContaining("not the given root") }),
    );
  });
});

describe("detection explains itself", () => {
  it("a file no format reads: 'not a proof format chaingw knows', the closest format and what it lacks, never --commitment", async () => {
    const r = await verify(tampered("bybit-2024-05-40.json", (t) => t.replace('"userHash"', '"userHush"')));
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("not a proof format chaingw knows; the closest is bybit");
    expect(r.stderr).toContain("but also self.userHash, which this one lacks");
    expect(r.stderr).not.toContain("--commitment");
    const plain = join(dir, "plain.json");
    writeFileSync(plain, '{"hello": 1}');
    const p = await verify(plain);
    expect(p.exitCode).toBe(2);
    expect(p.stderr).toContain("not a proof format chaingw knows (it has none of the members");
    expect(p.stderr).not.toContain("--commitment");
  });

  it("Gate's Groth16 batch table is named for what it is, not sent to chaingw's own reader", async () => {
    const r = await verify("/work/shared/por-samples/gate/proof.csv");
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(
      "not a proof format chaingw knows: it is the Groth16 batch proof table (proof.csv)",
    );
    expect(r.stderr).not.toContain("--commitment");
  });

  it("OKX's zk-STARK v1 inclusion file (its real sample) is named with its version, not misread", async () => {
    const r = await verify("/work/shared/por-samples/okx/zkstark_v1_user_3_inclusion_proof.json");
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(
      "not a proof format chaingw knows: it is OKX's zk-STARK v1 inclusion proof (okx/proof-of-reserves 0277548",
    );
  });

  // no published file of these versions was found (docs/exchange-proofs.md): each is written here with the
  // members its publisher's code reads, and refused by name, never read as another format nor as zeros
  it.each([
    [
      "htx-v1.json",
      JSON.stringify({
        data: [
          { type: "root", hash: "aa", uhash: "", depth: 0, r: 0, balances: "BTC:1,ETH:2,TRX:3,USDT:4,HT:5" },
          {
            type: "node",
            hash: "bb",
            uhash: "u1",
            depth: 1,
            r: 1,
            balances: "BTC:0,ETH:1,TRX:1,USDT:2,HT:2",
          },
          {
            type: "self",
            hash: "cc",
            uhash: "u2",
            depth: 1,
            r: 0,
            balances: "BTC:1,ETH:1,TRX:2,USDT:2,HT:3",
          },
        ],
      }),
      "it is HTX's v1 Merkle-sum proof",
    ],
    [
      "okx-stark-v2.json",
      JSON.stringify({
        index: 3,
        account: { id: "ab", equity: [1], debt: [0] },
        sum_tree_siblings: ["00"],
        recursive_tree_siblings: [{ left_hashes: [], right_hashes: [] }],
      }),
      "it is OKX's zk-STARK v2 inclusion proof (okx/proof-of-reserves 9ecb01c",
    ],
  ])(
    "%s: refused by name as a version chaingw does not read (exit 2, nothing judged)",
    async (name, body, what) => {
      const file = join(dir, `${next()}-${name}`);
      writeFileSync(file, body);
      const r = await verify(file);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain(`not a proof format chaingw knows: ${what}`);
      expect(r.stderr).not.toContain("--commitment");
    },
  );

  it("chaingw's own file (a top-level format member) still goes to its reader, which asks for --commitment", async () => {
    const own = join(dir, "own.json");
    writeFileSync(own, '{"format": "chaingw-liabilities-proof-v1"}');
    const r = await verify(own);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("--commitment");
  });
});

/** Every file under a directory, recursively. */
const filesUnder = (d: string): string[] =>
  readdirSync(d).flatMap((f) => {
    const p = join(d, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });

describe("detection cannot overlap (issue 50 item 4)", () => {
  const files = [...filesUnder(join(__dirname, "fixtures")), ...filesUnder("/work/shared/por-samples")];
  /** where the published proof files are (every other fixture is claimed by at most one format) */
  const proofDirs = /fixtures\/exchange\/|por-samples\//;
  /** files there that are proofs of no format chaingw reads (notes, contracts, a verifier's config, batch tables) */
  const notProofs =
    /(\.md|\.sol|\.ts|Token\.json|token\.json|wallet\.json|ownerswallet\.json|binance\/config\.json|binance-config\.json|proof\.csv|output_merkle_root\.txt|auditRoots_\d+\.json|blocpalx-.*-source\.csv|full-liabilities-merkle-tree.*|hotcoin-sample-anchor\.json|zkstark_v1_.*|vector.*)$/i;

  /** what a developer whose new descriptor claims another format's file reads (docs/architecture.md, "A proof format") */
  const OVERLAP =
    "two formats claim this file: add to the new descriptor's `marks` (src/formats/<name>.ts) a member its own files have and the other format's files lack, so that each file has one reader";

  it("no file of test/fixtures/ or the shared samples is claimed by two formats; every proof file by exactly one", () => {
    const seen: string[] = [];
    for (const file of files) {
      const t = readFileSync(file, "utf8");
      const all = [...claimants(t, "reserves"), ...claimants(t, "liabilities")].map((f) => f.name);
      expect({ file, claimed: all.length > 1 ? all : "≤1" }, OVERLAP).toEqual({ file, claimed: "≤1" });
      if (proofDirs.test(file) && !notProofs.test(file)) {
        expect({ file, claimed: all.length }).toEqual({ file, claimed: 1 });
        seen.push(all[0]!);
      }
    }
    // every exchange liabilities format with a JSON fixture is among them
    for (const f of formatsOf("liabilities").filter((x) => x.marks))
      expect(seen, `no fixture of ${f.name}`).toContain(f.name);
  });
});

describe("the exchanges' address files read strictly too", () => {
  const HTX = join(__dirname, "fixtures", "exchange", "ownership", "huobi_por_2026-02.csv");
  const header = "coin,address,snapshot height,balance,message,signature";
  const edited = (to: string) => {
    const file = join(dir, `${next()}-huobi.csv`);
    const t = readFileSync(HTX, "utf8");
    expect(t).toContain(`\n${header}\n`);
    writeFileSync(file, t.replace(`\n${header}\n`, `\n${to}\n`));
    return file;
  };
  it("a column no layout has, or one field under two names, is refused with its line (exit 2, nothing checked)", async () => {
    const extra = await runCli(["reserves", "verify", edited(`${header},memo`)]);
    expect(extra.exitCode).toBe(2);
    expect(extra.stderr).toMatch(/line 40: column 7 "memo" is not a column of the exchanges' address files/);
    const twice = await runCli(["reserves", "verify", edited(header.replace("balance,", "balance,amount,"))]);
    expect(twice.exitCode).toBe(2);
    expect(twice.stderr).toContain(
      'line 40: columns 4 "balance" and 5 "amount" are one field (amount): give one',
    );
  });
});
