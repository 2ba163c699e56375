/**
 * MEXC's Merkle-sum proof (`{pathList[{level,type,hash,balances}], self{level,type,hash,balances,proofId,
 * accountId}}`).
 *
 *  - leaf: sha256(proofId "," accountId "," K1:v1,K2:v2…)[:32], keys sorted, amounts without trailing zeros;
 *  - node: sha256(L "," R "," BTC:…,ETH:…,USDC:…,USDT:…)[:32] (128 bits), sums of both children (BTC, ETH,
 *    USDC and USDT present as 0 once a right child exists), keys sorted;
 *  - the sibling of the node at level i is the path's entry of level i; a level missing from the path, or an
 *    entry whose hash is "", is an empty sibling (hash "", no balances); the root is the highest level.
 */
import type { InclusionOptions } from "./check.js";
import { checkSibling, leafStep, pathVerifier, refuseNegative, sha256Hex, step, walkEnded } from "./check.js";
import { addDec, type Dec, strippedDec, ZERO } from "./decimal.js";
import { type Amount, amountsOf, FileReader, isObj, type Sums, sortedByKey } from "./read.js";

const FILLED = ["BTC", "USDT", "ETH", "USDC"];
const kv = (m: Iterable<[string, Dec]>): string =>
  sortedByKey(m)
    .map(([k, d]) => `${k}:${strippedDec(d)}`)
    .join(",");

interface Node {
  at: string;
  level: number;
  type: number;
  hash: string;
  balances: Amount[];
}

interface Doc {
  self: Node;
  proofId: string;
  accountId: string;
  path: Node[];
}

const WHAT = "MEXC's proof (merkle_proof.json)";
/** MEXC's versions, told apart by the member holding a node's amounts */
const VERSION = {
  balance: "the Dec 2022 version (amounts under balance)",
  balances: "the version of Jan 2023 on (amounts under balances)",
};

function read(text: string, o: InclusionOptions): Doc {
  const rd = new FileReader(o.file);
  const doc = rd.json(text);
  if (!isObj(doc)) throw rd.error(`not a MEXC proof (an object with pathList and self)`);
  rd.members(doc, ["pathList", "self"], "", WHAT);
  const selfObj = rd.field(doc, "self", "", "object");
  // the version: MEXC's validator of Dec 2022 read each node's amounts under `balance`, from Jan 2023 `balances`
  const key = "balance" in selfObj && !("balances" in selfObj) ? "balance" : "balances";
  const members = ["level", "type", "hash", key];
  const node = (n: unknown, at: string): Node => {
    if (!isObj(n)) throw rd.error(`${at} must be an object`);
    rd.members(
      n,
      at === "self" ? [...members, "proofId", "accountId"] : members,
      at,
      `${WHAT}, ${VERSION[key]}`,
    );
    const level = Number(rd.field(n, "level", at, "number"));
    const type = Number(rd.field(n, "type", at, "number"));
    if (!Number.isSafeInteger(level) || level < 0 || level > 256)
      throw rd.error(`${at}.level must be a whole number 0…256`);
    return {
      at,
      level,
      type,
      hash: rd.field(n, "hash", at, "string"),
      balances: rd.amounts(n[key], `${at}.${key}`),
    };
  };
  const path = rd.field(doc, "pathList", "", "array").map((n, i) => node(n, `pathList[${i}]`));
  if (!path.length) throw rd.error(`pathList is empty (it ends with the root)`);
  return {
    self: node(selfObj, "self"),
    proofId: rd.field(selfObj, "proofId", "self", "string"),
    accountId: rd.field(selfObj, "accountId", "self", "string"),
    path,
  };
}

const LEAF_AT = "level 0 (self)";
const leafOf = (d: Doc) =>
  sha256Hex(`${d.proofId},${d.accountId},${kv(amountsOf(d.self.balances))}`).slice(0, 32);

/** The leaf: sha256(proofId, accountId, balances) cut to 128 bits, against the file's. */
const leaf = leafStep<Doc>((d) => ({
  at: LEAF_AT,
  balances: d.self.balances,
  claimed: d.self.hash,
  computed: leafOf(d),
  formula: "sha256(proofId, accountId, balances)",
}));

/** Every level up to the root's: the sibling of that level (or an empty one), the sums, the node's hash. */
const pathStep = step<Doc>("path", (ctx, s) => {
  const { self, path } = ctx.doc;
  const root = path.at(-1)!;
  const byLevel = new Map<number, Node>();
  for (const n of path) {
    if (byLevel.has(n.level)) s.fail("path", `level ${n.level} appears twice in the path`, n.at);
    byLevel.set(n.level, n);
  }
  if (root.type !== 3) s.fail("path", `the last entry has type ${root.type}, not 3 (the root)`, root.at);
  let cur = leafOf(ctx.doc);
  let sums: Sums = new Map(amountsOf(self.balances));
  let curLeft = self.type !== 2;
  for (let level = 0; level < root.level; level++) {
    const sib = byLevel.get(level);
    const at = `level ${level}${sib ? ` (${sib.at})` : ""}`;
    const empty = !sib || sib.hash === "";
    if (sib && !empty) {
      checkSibling(s, sib, at);
    }
    if (sib && empty && sib.balances.some((b) => b.value.units !== 0n))
      s.fail("path", 'an empty sibling (hash "") holding balances', at);
    const sibSums: Sums = new Map(empty ? [] : amountsOf(sib!.balances));
    const [l, r] = curLeft ? [cur, empty ? "" : sib!.hash] : [empty ? "" : sib!.hash, cur];
    const [lSums, rSums] = curLeft ? [sums, sibSums] : [sibSums, sums];
    const next: Sums = new Map();
    const merge = (m: Sums) => {
      for (const [k, d] of m) next.set(k, addDec(next.get(k) ?? ZERO, d));
    };
    merge(lSums);
    if (r !== "") {
      for (const k of FILLED) if (!next.has(k)) next.set(k, ZERO);
      merge(rSums);
    }
    sums = next;
    cur = sha256Hex(`${l},${r},${kv(sums)}`).slice(0, 32);
    refuseNegative(s, sums, `level ${level + 1}`, "the path's node");
    const up = byLevel.get(level + 1);
    curLeft = up?.type !== 1;
  }
  walkEnded(ctx, cur, root, { rootAt: `level ${root.level} (root)`, sums, walked: `${root.level} levels` });
});

export const verify = pathVerifier<Doc>({
  name: "mexc",
  sums: "total",
  read,
  balances: (d) => d.self.balances.map((a) => ({ asset: a.asset, amount: strippedDec(a.value) })),
  leaf,
  path: pathStep,
});
