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
import type { InclusionOptions } from "./check.js";
import { checkSibling, pathVerifier, refuseNegative, sha256Hex, step } from "./check.js";
import { addDec, strippedDec, ZERO } from "./decimal.js";
import { type Amount, amountsOf, FileReader, isObj, type Sums, sortedByKey } from "./read.js";

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

interface Doc {
  rootHash: string;
  rootBalances: Amount[];
  nonce: string;
  mine: Amount[];
  path: (Sibling | null)[];
}

function read(text: string, o: InclusionOptions): Doc {
  const rd = new FileReader(o.file);
  const doc = rd.json(text);
  if (!isObj(doc)) throw rd.error(`not a CoinEx proof (an object with root, self and path)`);
  const what = "CoinEx's proof (merkle_proof_file.json)";
  rd.members(doc, ["root", "self", "path"], "", what);
  const rootObj = rd.field(doc, "root", "", "object");
  rd.members(rootObj, ["hash", "balances"], "root", what);
  const selfObj = rd.field(doc, "self", "", "object");
  rd.members(selfObj, ["nonce", "balances"], "self", what);
  const path = rd.field(doc, "path", "", "array").map((n, i): Sibling | null => {
    const at = `path[${i}]`;
    if (!isObj(n)) throw rd.error(`${at} must be an object`);
    if (!Object.keys(n).length) return null;
    rd.members(n, ["hash", "pos", "balances"], at, what);
    const pos = rd.field(n, "pos", at, "string");
    if (pos !== "left" && pos !== "right") throw rd.error(`${at}.pos must be "left" or "right"`);
    return {
      at,
      hash: rd.field(n, "hash", at, "string"),
      left: pos === "left",
      balances: rd.amounts(n.balances, `${at}.balances`),
    };
  });
  return {
    rootHash: rd.field(rootObj, "hash", "root", "string"),
    rootBalances: rd.amounts(rootObj.balances, "root.balances"),
    nonce: rd.field(selfObj, "nonce", "self", "string"),
    mine: rd.amounts(selfObj.balances, "self.balances"),
    path,
  };
}

const leafOf = (d: Doc) => sha256Hex(`${d.nonce}${goJson(new Map(amountsOf(d.mine)))}`);

/** The leaf: sha256(nonce ‖ balances), a claim: the file gives no leaf hash, the path decides. */
const leafStep = step<Doc>("leaf", ({ doc }, s) => {
  refuseNegative(s, amountsOf(doc.mine), "level 0 (self)", "the customer's leaf");
  s.claim(
    "leaf",
    `sha256(nonce ‖ balances) = ${leafOf(doc)} (the file gives no leaf hash to compare; the path decides)`,
    "level 0 (self)",
  );
});

/** Every sibling's width and sums, the path walked (a missing sibling hashed as h ‖ sums), every subtotal. */
const pathStep = step<Doc>("path", (ctx, s) => {
  const { path, mine, rootHash, rootBalances } = ctx.doc;
  for (const [i, sib] of path.entries()) {
    if (!sib) continue;
    const at = `level ${i + 1} (${sib.at})`;
    checkSibling(s, sib, at);
  }
  const own = walk(leafOf(ctx.doc), new Map(amountsOf(mine)), path, "none");
  // the sums at every level, for negative subtotals
  let sums: Sums = new Map(amountsOf(mine));
  for (const [i, sib] of path.entries()) {
    if (!sib) continue;
    const next: Sums = new Map(sums);
    for (const [k, d] of amountsOf(sib.balances)) next.set(k, addDec(next.get(k) ?? ZERO, d));
    sums = next;
    refuseNegative(s, sums, `level ${i + 1}`, "the path's node");
  }
  Object.assign(ctx, {
    reached: own.h,
    fileRoot: rootHash,
    rootAt: `level ${path.length} (root)`,
    sums: own.sums,
    rootTotals: rootBalances,
  });
});

/**
 * The root reached by the rule the published files are built with; else, with a missing sibling, by CoinEx's
 * committed verifier's rule (h ‖ h ‖ sums), said which.
 */
const reachCoinex = step<Doc>("path", (ctx, s) => {
  const { path, mine, rootHash } = ctx.doc;
  const theirs = () => walk(leafOf(ctx.doc), new Map(amountsOf(mine)), path, "self").h;
  const own = ctx.reached!;
  if (own === rootHash.toLowerCase()) {
    s.ok("path", `${path.length} levels reach ${own} (a missing sibling hashed as h ‖ sums)`, ctx.rootAt);
    if (path.some((p) => p === null) && theirs() !== own)
      s.claim(
        "path",
        "CoinEx's committed verifier hashes a missing sibling as h ‖ h ‖ sums, which does not reach this root: its own tool would reject this file",
        ctx.rootAt,
      );
  } else if (path.some((p) => p === null)) {
    const h = theirs();
    if (h === rootHash.toLowerCase()) {
      ctx.reached = h;
      s.ok(
        "path",
        `${path.length} levels reach ${h} with a missing sibling hashed as h ‖ h ‖ sums`,
        ctx.rootAt,
      );
    }
  }
});

export const verify = pathVerifier<Doc>({
  name: "coinex",
  sums: "total",
  read,
  balances: (d) => d.mine.map((a) => ({ asset: a.asset, amount: strippedDec(a.value) })),
  leaf: leafStep,
  path: pathStep,
  reach: reachCoinex,
});
