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
import { UsageError } from "../../errors/index.js";
import {
  type Amount,
  amountsOf,
  compareRoot,
  compareTotals,
  field,
  finish,
  type InclusionCheck,
  type InclusionOptions,
  isObj,
  readAmounts,
  readJson,
  refuseNegative,
  refuseShortHash,
  Steps,
  type Sums,
  sha256Hex,
  sortedByKey,
} from "./check.js";
import { addDec, type Dec, strippedDec, ZERO } from "./decimal.js";

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

export function verify(text: string, o: InclusionOptions): InclusionCheck {
  const doc = readJson(text, o.file);
  if (!isObj(doc)) throw new UsageError(`${o.file}: not a MEXC proof (an object with pathList and self)`);
  const selfObj = field(doc, "self", "", o.file, "object");
  const read = (n: unknown, at: string): Node => {
    if (!isObj(n)) throw new UsageError(`${o.file}: ${at} must be an object`);
    const level = Number(field(n, "level", at, o.file, "number"));
    const type = Number(field(n, "type", at, o.file, "number"));
    if (!Number.isSafeInteger(level) || level < 0 || level > 256)
      throw new UsageError(`${o.file}: ${at}.level must be a whole number 0…256`);
    return {
      at,
      level,
      type,
      hash: field(n, "hash", at, o.file, "string"),
      balances: readAmounts(n.balances, `${at}.balances`, o.file),
    };
  };
  const self = read(selfObj, "self");
  const proofId = field(selfObj, "proofId", "self", o.file, "string");
  const accountId = field(selfObj, "accountId", "self", o.file, "string");
  const path = field(doc, "pathList", "", o.file, "array").map((n, i) => read(n, `pathList[${i}]`));
  if (!path.length) throw new UsageError(`${o.file}: pathList is empty (it ends with the root)`);
  const root = path.at(-1)!;

  const s = new Steps();
  const leafAt = "level 0 (self)";
  refuseNegative(s, amountsOf(self.balances), leafAt, "the customer's leaf");
  refuseShortHash(s, self.hash, leafAt);
  const leaf = sha256Hex(`${proofId},${accountId},${kv(amountsOf(self.balances))}`).slice(0, 32);
  if (leaf === self.hash.toLowerCase())
    s.ok("leaf", `sha256(proofId, accountId, balances) = ${leaf}`, leafAt);
  else s.fail("leaf", `sha256(proofId, accountId, balances) is ${leaf}, the file says ${self.hash}`, leafAt);

  const byLevel = new Map<number, Node>();
  for (const n of path) {
    if (byLevel.has(n.level)) s.fail("path", `level ${n.level} appears twice in the path`, n.at);
    byLevel.set(n.level, n);
  }
  if (root.type !== 3) s.fail("path", `the last entry has type ${root.type}, not 3 (the root)`, root.at);
  let cur = leaf;
  let sums: Sums = new Map(amountsOf(self.balances));
  let curLeft = self.type !== 2;
  for (let level = 0; level < root.level; level++) {
    const sib = byLevel.get(level);
    const at = `level ${level}${sib ? ` (${sib.at})` : ""}`;
    const empty = !sib || sib.hash === "";
    if (sib && !empty) {
      refuseShortHash(s, sib.hash, at);
      refuseNegative(s, amountsOf(sib.balances), at, "the sibling");
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
  const rootAt = `level ${root.level} (root)`;
  refuseShortHash(s, root.hash, rootAt);
  refuseNegative(s, amountsOf(root.balances), rootAt, "the root");
  if (compareTotals(s, sums, root.balances, rootAt, "the root's"))
    s.ok("sums", `the path's sums equal the root's ${root.balances.length} totals`, rootAt);
  if (cur === root.hash.toLowerCase()) s.ok("path", `${root.level} levels reach ${cur}`, rootAt);
  compareRoot(s, cur, root.hash, o.root, rootAt);
  return finish(
    "mexc",
    s,
    cur,
    o.root,
    self.balances.map((a) => ({ asset: a.asset, amount: strippedDec(a.value) })),
  );
}
