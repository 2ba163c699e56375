/**
 * CoinEx's Merkle-sum proof (`{root{balances,hash}, self{balances,nonce}, path[{balances,hash,pos}|{}]}`).
 *
 *  - leaf: sha256(nonce ‖ JSON(balances)), Go's JSON of a map of decimals: keys sorted, amounts quoted
 *    without trailing zeros, no spaces;
 *  - each level: the sibling's balances added, then sha256(sibling ‖ h ‖ JSON(sums)) when the sibling is on the
 *    left, sha256(h ‖ sibling ‖ JSON(sums)) on the right; `{}` is no sibling: sha256(h ‖ JSON(sums)).
 *
 * CoinEx's committed verifier hashes `h ‖ h ‖ JSON(sums)` for a missing sibling, which does not reproduce its
 * own example file; chaingw follows the rule the published files are built with, and says when a file
 * reaches its root only by the verifier's rule instead.
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
import { addDec, strippedDec, ZERO } from "./decimal.js";

const goJson = (m: Sums): string =>
  `{${sortedByKey(m)
    .map(([k, d]) => `${JSON.stringify(k)}:${JSON.stringify(strippedDec(d))}`)
    .join(",")}}`;

interface Sibling {
  at: string;
  hash: string;
  left: boolean;
  balances: Amount[];
}

/** The path walked with one empty-sibling rule: the hash and sums at the top. */
function walk(leaf: string, mine: Sums, path: (Sibling | null)[], emptyRule: "none" | "self") {
  let h = leaf;
  let sums: Sums = new Map(mine);
  for (const sib of path) {
    if (sib) {
      const next: Sums = new Map(sums);
      for (const [k, d] of amountsOf(sib.balances)) next.set(k, addDec(next.get(k) ?? ZERO, d));
      sums = next;
    }
    const j = goJson(sums);
    h = sha256Hex(
      sib
        ? sib.left
          ? `${sib.hash}${h}${j}`
          : `${h}${sib.hash}${j}`
        : `${h}${emptyRule === "self" ? h : ""}${j}`,
    );
  }
  return { h, sums };
}

export function verify(text: string, o: InclusionOptions): InclusionCheck {
  const doc = readJson(text, o.file);
  if (!isObj(doc)) throw new UsageError(`${o.file}: not a CoinEx proof (an object with root, self and path)`);
  const rootObj = field(doc, "root", "", o.file, "object");
  const selfObj = field(doc, "self", "", o.file, "object");
  const rootHash = field(rootObj, "hash", "root", o.file, "string");
  const rootBalances = readAmounts(rootObj.balances, "root.balances", o.file);
  const nonce = field(selfObj, "nonce", "self", o.file, "string");
  const mine = readAmounts(selfObj.balances, "self.balances", o.file);
  const path = field(doc, "path", "", o.file, "array").map((n, i): Sibling | null => {
    const at = `path[${i}]`;
    if (!isObj(n)) throw new UsageError(`${o.file}: ${at} must be an object`);
    if (!Object.keys(n).length) return null;
    const pos = field(n, "pos", at, o.file, "string");
    if (pos !== "left" && pos !== "right")
      throw new UsageError(`${o.file}: ${at}.pos must be "left" or "right"`);
    return {
      at,
      hash: field(n, "hash", at, o.file, "string"),
      left: pos === "left",
      balances: readAmounts(n.balances, `${at}.balances`, o.file),
    };
  });

  const s = new Steps();
  refuseNegative(s, amountsOf(mine), "level 0 (self)", "the customer's leaf");
  const leaf = sha256Hex(`${nonce}${goJson(new Map(amountsOf(mine)))}`);
  s.claim(
    "leaf",
    `sha256(nonce ‖ balances) = ${leaf} (the file gives no leaf hash to compare; the path decides)`,
    "level 0 (self)",
  );
  for (const [i, sib] of path.entries()) {
    if (!sib) continue;
    const at = `level ${i + 1} (${sib.at})`;
    refuseShortHash(s, sib.hash, at);
    refuseNegative(s, amountsOf(sib.balances), at, "the sibling");
  }
  const own = walk(leaf, new Map(amountsOf(mine)), path, "none");
  // the sums at every level, for negative subtotals
  let sums: Sums = new Map(amountsOf(mine));
  for (const [i, sib] of path.entries()) {
    if (!sib) continue;
    const next: Sums = new Map(sums);
    for (const [k, d] of amountsOf(sib.balances)) next.set(k, addDec(next.get(k) ?? ZERO, d));
    sums = next;
    refuseNegative(s, sums, `level ${i + 1}`, "the path's node");
  }
  const rootAt = `level ${path.length} (root)`;
  refuseShortHash(s, rootHash, rootAt);
  refuseNegative(s, amountsOf(rootBalances), rootAt, "the root");
  if (compareTotals(s, own.sums, rootBalances, rootAt, "the root's"))
    s.ok("sums", `the path's sums equal the root's ${rootBalances.length} totals`, rootAt);
  let reached = own.h;
  if (own.h === rootHash.toLowerCase()) {
    s.ok("path", `${path.length} levels reach ${own.h} (a missing sibling hashed as h ‖ sums)`, rootAt);
    if (path.some((p) => p === null) && walk(leaf, new Map(amountsOf(mine)), path, "self").h !== own.h)
      s.claim(
        "path",
        "CoinEx's committed verifier hashes a missing sibling as h ‖ h ‖ sums, which does not reach this root: its own tool would reject this file",
        rootAt,
      );
  } else if (path.some((p) => p === null)) {
    const theirs = walk(leaf, new Map(amountsOf(mine)), path, "self");
    if (theirs.h === rootHash.toLowerCase()) {
      reached = theirs.h;
      s.ok(
        "path",
        `${path.length} levels reach ${theirs.h} with a missing sibling hashed as h ‖ h ‖ sums`,
        rootAt,
      );
    }
  }
  compareRoot(s, reached, rootHash, o.root, rootAt);
  return finish(
    "coinex",
    s,
    reached,
    o.root,
    mine.map((a) => ({ asset: a.asset, amount: strippedDec(a.value) })),
  );
}
