/**
 * OKX's Merkle-sum liabilities proofs (2022-23): v1, a customer's leaf and the path of siblings to the root in
 * one file; v2, the customer's leaves (a balance split over several) beside the full tree, every node of it.
 *
 *  - leaf (v1), user hash (v2): sha256(nonce ‖ {"BTC":"…","ETH":"…","USDT":"…"}), Go's JSON of the balances;
 *  - v2 leaf i: sha256(userHash ‖ BTC_i ‖ ETH_i ‖ USDT_i);
 *  - node: sha256(L ‖ R ‖ ΣBTC ‖ ΣETH ‖ ΣUSDT ‖ height), sums cut to 8 places without trailing zeros, height
 *    the node's own (leaves are 1); an odd node is paired with a copy of itself holding zero.
 */
import { UsageError } from "../../errors/index.js";
import type { Balance, InclusionFormat, InclusionOptions } from "./check.js";
import {
  checkSibling,
  compareTotals,
  isHex,
  leafStep,
  pathVerifier,
  refuseNegative,
  refuseShortHash,
  rootStep,
  sha256Hex,
  step,
  verifierOf,
  walkEnded,
} from "./check.js";
import { addDec, compareDec, type Dec, plainDec, strippedDec, truncateDec, ZERO } from "./decimal.js";
import { type Amount, amountsOf, FileReader, isObj, type Sums } from "./read.js";

/** Go's JSON of the balances, keys as the file orders them, values quoted. */
const balancesJson = (a: Amount[]): string =>
  `{${a.map((x) => `${JSON.stringify(x.asset)}:${JSON.stringify(x.text)}`).join(",")}}`;

const sumText = (d: Dec): string => strippedDec(truncateDec(d, 8));

/**
 * Why OKX's nodes do not bind their totals: each sum is text cut of its trailing zeros, written after the
 * other with no separator nor fixed width, and the height after them.
 */
const AMBIGUOUS =
  'its node hashes L ‖ R ‖ ΣBTC ‖ ΣETH ‖ ΣUSDT ‖ height as text, each sum without trailing zeros and with no separator, so "2.5" ‖ "25000" and "2.52" ‖ "5000" hash alike: digits move between one coin\'s total and the next (or the height) under the same hash';

const nodeHash = (l: string, r: string, assets: string[], sums: Sums, height: number): string =>
  sha256Hex(`${l}${r}${assets.map((a) => sumText(sums.get(a) ?? ZERO)).join("")}${height}`);

const toBalances = (a: Amount[]): Balance[] => a.map((x) => ({ asset: x.asset, amount: x.text }));

const addInto = (sums: Sums, a: Iterable<[string, Dec]>): void => {
  for (const [asset, d] of a) sums.set(asset, addDec(sums.get(asset) ?? ZERO, d));
};

interface V1 {
  self: { nonce: string; hash: string; balances: Amount[] };
  nodes: { at: string; hash: string; type: number; height: number; balances: Amount[] }[];
}

const V1_WHAT = "OKX's v1 proof (merkle_proof_file.json, 2022-23)";
/** every member a node of OKX v1 has (the path's nodes carry `nonce` too, empty) */
const V1_NODE = ["auditId", "balances", "hash", "height", "nonce", "type"];

/** OKX v1: `{"self":{nonce,hash,balances,type,height},"path":[{hash,balances,type,height}…, root]}`. */
function readV1(text: string, o: InclusionOptions): V1 {
  const rd = new FileReader(o.file);
  const doc = rd.json(text);
  if (!isObj(doc)) throw rd.error(`not an OKX v1 proof (an object with self and path)`);
  rd.members(doc, ["self", "path"], "", V1_WHAT);
  const self = rd.field(doc, "self", "", "object");
  rd.members(self, V1_NODE, "self", V1_WHAT);
  const path = rd.field(doc, "path", "", "array");
  if (path.length < 1) throw rd.error(`path is empty (it ends with the root)`);
  const nodes = path.map((n, i) => {
    if (!isObj(n)) throw rd.error(`path[${i}] must be an object`);
    const at = `path[${i}]`;
    rd.members(n, V1_NODE, at, V1_WHAT);
    return {
      at,
      hash: rd.field(n, "hash", at, "string"),
      type: rd.int(n, "type", at),
      height: rd.int(n, "height", at),
      balances: rd.amounts(n.balances, `${at}.balances`),
    };
  });
  return {
    self: {
      balances: rd.amounts(self.balances, "self.balances"),
      nonce: rd.field(self, "nonce", "self", "string"),
      hash: rd.field(self, "hash", "self", "string"),
    },
    nodes,
  };
}

const V1_LEAF = "level 1 (self)";

/** The leaf: sha256(nonce ‖ the balances as Go's JSON) against the file's. */
const leafV1 = leafStep<V1>(({ self }) => ({
  at: V1_LEAF,
  balances: self.balances,
  claimed: self.hash,
  computed: sha256Hex(`${self.nonce}${balancesJson(self.balances)}`),
  formula: "sha256(nonce ‖ balances)",
}));

/** Every level: the sibling's place, height and width, its sums added, the node hashed with its height. */
const pathV1 = step<V1>("path", (ctx, s) => {
  const { self, nodes } = ctx.doc;
  const assets = self.balances.map((a) => a.asset);
  const root = nodes.at(-1)!;
  ctx.rootAt = `level ${nodes.length} (root)`;
  if (root.type !== 3) s.fail("path", `the last node has type ${root.type}, not 3 (the root)`, root.at);
  let cur = sha256Hex(`${self.nonce}${balancesJson(self.balances)}`);
  const sums: Sums = new Map(amountsOf(self.balances));
  for (const [i, n] of nodes.slice(0, -1).entries()) {
    const at = `level ${i + 1} (${n.at})`;
    if (n.height !== i + 1) s.fail("path", `sibling of height ${n.height} where ${i + 1} belongs`, at);
    refuseShortHash(s, n.hash, at);
    if (!isHex(n.hash, 64)) s.fail("hash", `hash ${JSON.stringify(n.hash)} is not 64 hex digits`, at);
    refuseNegative(s, amountsOf(n.balances), at, "the sibling");
    if (n.type === 4 && (n.hash !== cur || n.balances.some((b) => b.value.units !== 0n)))
      s.fail("path", `a padding sibling must copy the node it pads (${cur}) with zero balances`, at);
    addInto(sums, amountsOf(n.balances));
    const height = i + 2;
    refuseNegative(s, sums, `level ${height}`, "the path's node");
    cur =
      n.type === 1
        ? nodeHash(n.hash, cur, assets, sums, height)
        : nodeHash(cur, n.hash, assets, sums, height);
    if (n.type !== 1 && n.type !== 2 && n.type !== 4)
      s.fail("path", `sibling of type ${n.type}: neither left (1), right (2) nor padding (4)`, at);
  }
  if (root.height !== nodes.length)
    s.fail("path", `the root has height ${root.height}; the path has ${nodes.length} levels`, ctx.rootAt);
  walkEnded(ctx, cur, root, { rootAt: ctx.rootAt, sums, walked: `${nodes.length - 1} siblings` });
});

export const verifyV1 = pathVerifier<V1>({
  name: "okx-v1",
  sums: "total",
  read: readV1,
  balances: (d) => toBalances(d.self.balances),
  leaf: leafV1,
  path: pathV1,
  ambiguous: AMBIGUOUS,
});

interface TreeNode {
  hash: string;
  height: number;
  balances: Amount[];
  line: number;
}

/** The full tree file: `hash,height,{"BTC":"…","ETH":"…","USDT":"…"}` a line, root first. */
function readTree(text: string, rd: FileReader): TreeNode[] {
  const out: TreeNode[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    if (!raw.trim()) continue;
    const m = /^([^,]*),(\d+),(\{.*\})\s*$/.exec(raw);
    if (!m) throw new UsageError(`${rd.file} line ${i + 1}: not "hash,height,{balances}"`);
    out.push({
      hash: m[1] as string,
      height: Number(m[2]),
      balances: rd.amounts(new FileReader(`${rd.file} line ${i + 1}`).json(m[3] as string), `line ${i + 1}`),
      line: i + 1,
    });
  }
  if (!out.length) throw rd.error(`no tree lines`);
  return out;
}

interface V2 {
  userHash: string;
  nonce: string;
  total: Amount[];
  leaves: { hash: string; balances: Amount[] }[];
}

/** OKX v2's user info file: `{hash, nonce, totalBalances, nodes:[{hash, balances}]}`. */
function readV2(text: string, o: InclusionOptions): V2 {
  const rd = new FileReader(o.file);
  const doc = rd.json(text);
  if (!isObj(doc)) throw rd.error(`not an OKX v2 user info file`);
  const what = "OKX's v2 user info file (user_info_file.json)";
  rd.members(doc, ["hash", "nonce", "totalBalances", "nodes"], "", what);
  return {
    userHash: rd.field(doc, "hash", "", "string"),
    nonce: rd.field(doc, "nonce", "", "string"),
    total: rd.amounts(doc.totalBalances, "totalBalances"),
    leaves: rd.field(doc, "nodes", "", "array").map((n, i) => {
      if (!isObj(n)) throw rd.error(`nodes[${i}] must be an object`);
      rd.members(n, ["hash", "balances"], `nodes[${i}]`, what);
      return {
        hash: rd.field(n, "hash", `nodes[${i}]`, "string"),
        balances: rd.amounts(n.balances, `nodes[${i}].balances`),
      };
    }),
  };
}

const userHashOf = (d: V2): string => sha256Hex(`${d.nonce}${balancesJson(d.total)}`);

/** The user hash, each of the customer's leaves from it, and the leaves adding up to the total. */
const leavesV2 = step<V2>("leaf", ({ doc }, s) => {
  const { total, leaves, userHash } = doc;
  const assets = total.map((a) => a.asset);
  refuseNegative(s, amountsOf(total), "user", "the customer's total");
  const h = userHashOf(doc);
  if (h === userHash.toLowerCase()) s.ok("leaf", `sha256(nonce ‖ totalBalances) = ${h}`, "user");
  else s.fail("leaf", `sha256(nonce ‖ totalBalances) is ${h}, the file says ${userHash}`, "user");
  const split: Sums = new Map();
  for (const [i, l] of leaves.entries()) {
    const at = `nodes[${i}]`;
    refuseNegative(s, amountsOf(l.balances), at, "the customer's leaf");
    addInto(split, amountsOf(l.balances));
    const want = sha256Hex(
      `${h}${assets.map((a) => l.balances.find((b) => b.asset === a)?.text ?? "0").join("")}`,
    );
    if (want === l.hash.toLowerCase()) s.ok("leaf", `leaf ${i + 1} = sha256(userHash ‖ its balances)`, at);
    else s.fail("leaf", `sha256(userHash ‖ balances) is ${want}, the file says ${l.hash}`, at);
  }
  if (compareTotals(s, split, total, "user", "the customer's leaves"))
    s.ok("sums", `the ${leaves.length} leaves add up to totalBalances`, "user");
});

/**
 * The full tree (--tree, or the second file): every inner node rebuilt from its children, not only the
 * user's; the customer's leaves found among its leaves with their balances.
 */
const treeV2 = step<V2>("tree", (ctx, s) => {
  const o = ctx.options;
  const { total, leaves } = ctx.doc;
  const assets = total.map((a) => a.asset);
  if (!o.tree) {
    s.cannot(
      "tree",
      "the full tree file was not given (--tree FILE, or a second file): the leaves cannot be followed to a root",
    );
    return;
  }
  const tree = readTree(o.tree.text, new FileReader(o.tree.file));
  const top = Math.max(...tree.map((n) => n.height));
  const levels: TreeNode[][] = [];
  for (let h = 1; h <= top; h++) levels[h] = tree.filter((n) => n.height === h).reverse(); // left to right
  const where = (n: TreeNode) => `height ${n.height} (${o.tree!.file} line ${n.line})`;
  for (const n of tree) {
    checkSibling(s, n, where(n), "the node");
  }
  let broken = 0;
  for (let h = 1; h < top; h++) {
    const row = levels[h] ?? [];
    const up = levels[h + 1] ?? [];
    // an odd level ends (rightmost, so listed first) with a copy of its last node holding zero
    const padded = up.length === row.length / 2 + 1 && up.length % 2 === 0;
    if (row.length % 2 || (up.length !== row.length / 2 && !padded)) {
      s.fail(
        "tree",
        `height ${h} has ${row.length} nodes and height ${h + 1} has ${up.length}`,
        `height ${h}`,
      );
      broken++;
      continue;
    }
    if (padded) {
      const [last, pad] = [up.at(-2)!, up.at(-1)!];
      if (pad.hash !== last.hash || pad.balances.some((b) => b.value.units !== 0n)) {
        broken++;
        s.fail("tree", `the padding node must copy ${last.hash} with zero balances`, where(pad));
      }
    }
    for (let k = 0; k < row.length / 2; k++) {
      const [l, r, p] = [row[2 * k]!, row[2 * k + 1]!, up[k]!];
      const sums: Sums = new Map();
      addInto(sums, amountsOf(l.balances));
      addInto(sums, amountsOf(r.balances));
      const want = nodeHash(l.hash, r.hash, assets, sums, h + 1);
      if (want !== p.hash.toLowerCase()) {
        broken++;
        s.fail("tree", `the children's hash is ${want}, the line says ${p.hash}`, where(p));
      }
      for (const a of assets) {
        const got = sumText(sums.get(a) ?? ZERO);
        const said = p.balances.find((b) => b.asset === a)?.value ?? ZERO;
        if (got !== sumText(said)) {
          broken++;
          s.fail("sums", `${a}: the children sum to ${got}, the line says ${plainDec(said)}`, where(p));
        }
      }
    }
  }
  const roots = levels[top] ?? [];
  const root = roots[0]!;
  if (roots.length !== 1) s.fail("tree", `${roots.length} nodes at the top height ${top}`, `height ${top}`);
  if (!broken)
    s.ok("tree", `all ${tree.length - (levels[1]?.length ?? 0)} inner nodes rebuild from their children`);
  const bottom = levels[1] ?? [];
  for (const [i, l] of leaves.entries()) {
    const found = bottom.find(
      (n) =>
        n.hash.toLowerCase() === l.hash.toLowerCase() &&
        assets.every(
          (a) =>
            compareDec(
              n.balances.find((b) => b.asset === a)?.value ?? ZERO,
              l.balances.find((b) => b.asset === a)?.value ?? ZERO,
            ) === 0,
        ),
    );
    if (found)
      s.ok("leaf", `leaf ${i + 1} is in the tree with its balances`, `nodes[${i}] = ${where(found)}`);
    else s.fail("leaf", `leaf ${l.hash} is not among the tree's leaves with these balances`, `nodes[${i}]`);
  }
  // the root step compares a tree that rebuilds; one that does not reaches no root
  Object.assign(ctx, { reached: broken ? null : root.hash, fileRoot: root.hash, rootAt: where(root) });
  if (broken && o.root !== undefined)
    s.fail("root", "the tree does not rebuild, so it reaches no root", where(root));
});

const V2_FORMAT: InclusionFormat<V2> = {
  name: "okx-v2",
  // the tree binds only totals; with the full tree every node is rebuilt from the leaves
  sums: (o) => (o.tree ? "full-tree" : "total"),
  read: readV2,
  balances: (d) => toBalances(d.total),
  steps: [leavesV2, treeV2, rootStep],
  // its leaves (userHash ‖ BTC_i ‖ ETH_i ‖ USDT_i) and nodes concatenate amounts alike
  ambiguous: AMBIGUOUS,
};

/** OKX v2: the user info file and the full tree (--tree, or the second file). */
export const verifyV2 = verifierOf(V2_FORMAT);
