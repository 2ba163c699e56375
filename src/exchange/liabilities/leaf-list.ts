/**
 * The leaf list of the auditors' Merkle tree tool (Armanino's, now The Network Firm's:
 * thenetworkfirm/proof-of-reserves-merkle-tree-tool, `output_merkle_tree.txt`), as Bitso published it
 * (bitsoex/proof-of-solvency-verification `example-merkle-tree.tsv`) and Gate did in 2020-22: a line
 * `Level<TAB>Hash`, then one line `L,i<TAB>leaf` per customer, L the tree's number of layers, i the leaf's
 * index, the leaf 16 hex digits (the first 64 bits of a SHA-256 of the customer's id and balances).
 *
 *  - the tree: merkletreejs with its defaults over the leaves' bytes — each pair `sha256(left ‖ right)`, an
 *    odd last node carried up unhashed — to one 32-byte root, published apart (the tool's
 *    `output_merkle_root.txt`): `--root HEX`, without which the root rebuilt is compared with nothing;
 *  - the customer's leaf (`--leaf HEX`, as the exchange's page or its own tool gives it) found in the list.
 *
 * It proves inclusion only: no node carries a sum, so the root binds no total and no balance can be seen,
 * negative or not (said in every verdict: `sums: "inclusion-only"`).
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes, hexToBytes } from "@noble/hashes/utils.js";
import type { InclusionOptions } from "./check.js";
import { compareRoot, step, verifierOf } from "./check.js";
import { FileReader } from "./read.js";

interface Doc {
  leaves: { line: number; hash: string }[];
  /** the layers the file says the tree has (every line's L) */
  level: number;
}

const HEADER = /^\uFEFF?Level\tHash\r?$/;
const ROW = /^(\d+),(\d+)\t([0-9a-f]{16})\r?$/;

function read(text: string, o: InclusionOptions): Doc {
  const rd = new FileReader(o.file);
  const lines = text.split("\n");
  if (!HEADER.test(lines[0] ?? ""))
    throw rd.error(
      'line 1: not the leaf list of the auditors\' Merkle tree tool (it begins "Level<TAB>Hash")',
    );
  // the tool ends every line with its newline: nothing may follow the last one
  while (lines.length > 1 && lines.at(-1) === "") lines.pop();
  const leaves: Doc["leaves"] = [];
  let level: number | undefined;
  for (const [k, raw] of lines.slice(1).entries()) {
    const line = k + 2;
    const m = ROW.exec(raw);
    if (!m)
      throw rd.error(
        `line ${line}: ${JSON.stringify(raw.slice(0, 60))} is not "L,i<TAB>leaf" (the tree's layers, the leaf's index from 0, 16 lower-case hex digits)`,
      );
    const [, l, i, hash] = m as unknown as [string, string, string, string];
    if (Number(i) !== leaves.length)
      throw rd.error(
        `line ${line}: leaf index ${i} where ${leaves.length} belongs (the tool numbers them in order)`,
      );
    if (level !== undefined && Number(l) !== level)
      throw rd.error(`line ${line}: layers ${l}, the lines before say ${level}`);
    level = Number(l);
    leaves.push({ line, hash });
  }
  if (leaves.length === 0 || level === undefined) throw rd.error("the list has no leaves");
  return { leaves, level };
}

/** merkletreejs's layers over the leaves (its defaults): each pair hashed, an odd last node carried up as it is. */
export function leafListRoot(leaves: readonly Uint8Array[]): { root: Uint8Array; layers: number } {
  let layer = [...leaves];
  let layers = 1;
  while (layer.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < layer.length; i += 2)
      next.push(i + 1 < layer.length ? sha256(concatBytes(layer[i]!, layer[i + 1]!)) : layer[i]!);
    layer = next;
    layers++;
  }
  return { root: layer[0]!, layers };
}

/** The list itself: the layers it says against the tree its leaves make, no leaf listed twice. */
const listStep = step<Doc>("document", ({ doc: d }, s) => {
  const layers = leafListRoot(d.leaves.map((l) => hexToBytes(l.hash))).layers;
  if (layers !== d.level)
    s.fail(
      "document",
      `every line says ${d.level} layers; ${d.leaves.length} leaves make a tree of ${layers}`,
      "line 2",
    );
  const first = new Map<string, number>();
  for (const l of d.leaves) {
    const at = first.get(l.hash);
    if (at !== undefined)
      s.fail(
        "leaves",
        `leaf ${l.hash} again (line ${at}): a leaf hashes its customer's own id, so one entry stands for two`,
        `line ${l.line}`,
      );
    else first.set(l.hash, l.line);
  }
  if (!s.failed())
    s.ok(
      "document",
      `${d.leaves.length} leaves, ${d.level} layers: the tool's list (cli.js, d250500 to a824ed2)`,
    );
  s.claim(
    "leaves",
    "each leaf is the first 64 bits of a SHA-256 of its customer's id and balances: no balance can be read from it, negative or not",
  );
});

/** The customer's leaf (--leaf) in the list. */
const leafStep = step<Doc>("leaf", ({ doc: d, options: o }, s) => {
  if (o.leaf === undefined) {
    s.cannot(
      "leaf",
      "whether your leaf is in the list: give it (--leaf HEX, the 16 hex digits your exchange's page or its tool gives you)",
    );
    return;
  }
  const want = o.leaf.toLowerCase();
  if (want.length !== 16) {
    s.fail("leaf", `--leaf ${want}: this list's leaves are 16 hex digits`);
    return;
  }
  const at = d.leaves.find((l) => l.hash === want);
  if (at) s.ok("leaf", `your leaf ${want} is leaf ${d.leaves.indexOf(at)}`, `line ${at.line}`);
  else s.fail("leaf", `your leaf ${want} is not in the list (${d.leaves.length} leaves)`);
});

/** The tree rebuilt from every leaf, its root against --root. */
const rootStep = step<Doc>("root", (ctx, s) => {
  const { root } = leafListRoot(ctx.doc.leaves.map((l) => hexToBytes(l.hash)));
  const hex = bytesToHex(root);
  ctx.reached = hex;
  ctx.rootAt = `layer ${ctx.doc.level} (root)`;
  ctx.rootSource = ctx.options.root === undefined ? "none" : "given";
  s.ok("path", `the tree rebuilt from the ${ctx.doc.leaves.length} leaves has the root ${hex}`, ctx.rootAt);
  if (ctx.options.root === undefined)
    s.cannot(
      "root",
      `the list holds no root: give the one published apart (--root HEX; the tool's output_merkle_root.txt) — ${hex} is only what these leaves make`,
      ctx.rootAt,
    );
  else compareRoot(s, hex, null, ctx.options.root, ctx.rootAt);
});

export const verify = verifierOf<Doc>({
  name: "tnf-leaf-list",
  sums: "inclusion-only",
  read,
  steps: [listStep, leafStep, rootStep],
});
