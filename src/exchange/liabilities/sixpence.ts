/**
 * Silver Sixpence's tree levels (silversixpence-crypto/merkletree-verify, `tree-level1.csv` …
 * `tree-level14.csv` at d4ec2fc; the auditor behind the 2022 reviews of Binance, KuCoin and Crypto.com):
 * one line per inner node, `hash,level,left,right`, level 1 the leaves' parents; every level given as one
 * file (`cat tree-level*.csv`), the lines in any order.
 *
 *  - node: sha256 of the two children's bytes (MerkleTreeVerify.java `sha256hex(left + right)`); an odd last
 *    node is carried up unchanged until it pairs (its README: "moved up");
 *  - the leaves are the exchange's own hashes of a customer's id, salt, audit id and balances, whose form the
 *    auditor leaves to each exchange: the customer gives theirs (`--leaf HEX`), found among the lowest given
 *    level's children (level 1 when every level is given) and walked to the top;
 *  - the top node is the root, which `--root` gives (the file's own is its word).
 * No node carries a sum: inclusion only.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes, hexToBytes } from "@noble/hashes/utils.js";
import type { InclusionOptions } from "./check.js";
import { compareRoot, step, verifierOf } from "./check.js";
import { FileReader } from "./read.js";

interface Row {
  line: number;
  hash: string;
  level: number;
  left: string;
  right: string;
}
interface Doc {
  rows: Row[];
}

const ROW = /^([0-9a-f]{64}),([1-9]\d{0,2}),([0-9a-f]{64}),([0-9a-f]{64})\r?$/;

function read(text: string, o: InclusionOptions): Doc {
  const rd = new FileReader(o.file);
  const rows: Row[] = [];
  for (const [k, raw] of text
    .replace(/^\uFEFF/, "")
    .split("\n")
    .entries()) {
    if (raw.trim() === "") continue;
    const m = ROW.exec(raw);
    if (!m)
      throw rd.error(
        `line ${k + 1}: not "hash,level,left,right" (64 lower-case hex digits each, the level a whole number)`,
      );
    rows.push({ line: k + 1, hash: m[1]!, level: Number(m[2]), left: m[3]!, right: m[4]! });
  }
  if (rows.length === 0) throw rd.error("no node");
  return { rows };
}

/** The tree's shape: parent of each child hash, the top row; or why it cannot be told (levels missing). */
function shape(rows: Row[]) {
  const low = Math.min(...rows.map((r) => r.level));
  const byHash = new Map(rows.map((r) => [r.hash, r]));
  const parent = new Map<string, Row>();
  const twice: [Row, Row][] = [];
  const missing: Row[] = [];
  for (const r of rows)
    for (const c of [r.left, r.right]) {
      const p = parent.get(c);
      if (p && p !== r) twice.push([p, r]);
      parent.set(c, r);
      if (r.level > low && (byHash.get(c)?.level ?? r.level) >= r.level) missing.push(r);
    }
  const tops = rows.filter((r) => !parent.has(r.hash));
  return { byHash, parent, twice, missing, tops };
}

/** Every node recomputed; the levels whole (each node a child of one node above, one top). */
const nodesStep = step<Doc>("document", (ctx, s) => {
  const { rows } = ctx.doc;
  let bad = 0;
  for (const r of rows) {
    const h = bytesToHex(sha256(concatBytes(hexToBytes(r.left), hexToBytes(r.right))));
    if (h !== r.hash && bad++ < 20)
      s.fail(
        "path",
        `level ${r.level}: sha256(left ‖ right) is ${h}, the line says ${r.hash}`,
        `line ${r.line}`,
      );
  }
  const sh = shape(rows);
  for (const [a, b] of sh.twice.slice(0, 20))
    s.fail("document", `one node is a child of two nodes (lines ${a.line} and ${b.line})`, `line ${b.line}`);
  const missing = sh.missing.filter((r) => ![r.left, r.right].every((c) => sh.byHash.has(c)));
  if (missing.length || sh.tops.length !== 1)
    s.cannot(
      "document",
      `the levels given are not a whole tree (${sh.tops.length} nodes with no parent${missing.length ? `; line ${missing[0]!.line}'s children are not among the lines` : ""}): give every level, as one file (cat tree-level*.csv)`,
    );
  else if (!s.failed()) {
    const low = Math.min(...rows.map((r) => r.level));
    const high = Math.max(...rows.map((r) => r.level));
    s.ok("document", `${rows.length} nodes, levels ${low} to ${high}, each recomputed, one top`);
    if (low > 1)
      s.claim(
        "document",
        `levels below ${low} are not given: a "leaf" here is a level-${low - 1} node; your own leaf's path to it is not checked`,
      );
  }
});

/** The customer's leaf (--leaf) among level 1's children, walked to the top; the top against --root. */
const pathStep = step<Doc>("root", (ctx, s) => {
  const sh = shape(ctx.doc.rows);
  const top = sh.tops.length === 1 ? sh.tops[0]! : undefined;
  const leaf = ctx.options.leaf?.toLowerCase();
  const low = Math.min(...ctx.doc.rows.map((r) => r.level));
  if (leaf === undefined)
    s.cannot("leaf", "whether your leaf is in the tree: give it (--leaf HEX, as your exchange gives it)");
  else if (leaf.length !== 64) s.fail("leaf", `--leaf ${leaf}: the leaves are 64 hex digits`);
  else {
    let cur = sh.parent.get(leaf);
    if (cur?.level !== low) s.fail("leaf", `your leaf ${leaf} is no child of a level-${low} node`);
    else {
      const steps = [cur];
      for (let p = sh.parent.get(cur.hash); p && steps.length < 256; p = sh.parent.get(p.hash)) steps.push(p);
      cur = steps.at(-1)!;
      if (cur === top)
        s.ok(
          "leaf",
          `your leaf is under line ${steps[0]!.line}; ${steps.length} nodes up to the top`,
          `line ${steps[0]!.line}`,
        );
      else
        s.cannot(
          "leaf",
          `your leaf's nodes end at line ${cur.line}, not at a single top: levels are missing`,
        );
    }
  }
  if (!top) return;
  ctx.reached = top.hash;
  ctx.rootAt = `level ${top.level} (line ${top.line})`;
  compareRoot(s, top.hash, null, ctx.options.root, ctx.rootAt);
});

export const verify = verifierOf<Doc>({
  name: "sixpence-levels",
  sums: "inclusion-only",
  read,
  steps: [nodesStep, pathStep],
});
