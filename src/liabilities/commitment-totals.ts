/**
 * Whether a commitment's totals are its root's (issue 55, item 2: totals a root does not bind are never taken
 * as what is owed), as a typed finding (judge/words.ts `TotalsFinding`, worded there). A v2 commitment's root
 * hashes its totals (`forestRoot`), recomputed here from the file alone. A v1 commitment's root is
 * SHA-256(0x01 ‖ left record ‖ right record), each record a hash and every asset's sum: its totals are bound
 * only through the root's two children. `liabilities build` writes them into commitment.json (`children`), so
 * they are checked from the file alone: they must hash to the root and sum to the totals. A v1 commitment built
 * before that carries none: `solvency` reads them from the tree.bin beside it (`liabilities build --out DIR`
 * writes both); neither, the totals are not relied on (cannot say) — a forger edits the totals (5,000 PEPE owed
 * written 0), recomputes the unkeyed digest, and the root every customer checks is unchanged.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { TotalsFinding } from "../judge/words.js";
import { announcedRoot, type Commitment, forestRootOf } from "./commitment.js";
import {
  AMOUNT_BYTES,
  bindsAssets,
  CONSTRUCTION,
  CONSTRUCTION_V2,
  getAmount,
  isForest,
  parentOf,
  putAmount,
  recordBytes,
} from "./format.js";
import { BuildStore, TREE_FILE } from "./store.js";

/** The root's sums (a record: hash ‖ every asset's sum) against the totals the commitment states. */
function againstTotals(c: Commitment, top: Uint8Array, by: "children" | "tree"): TotalsFinding {
  const off = c.assets.flatMap((a, k) => {
    const sum = getAmount(top, 32 + k * AMOUNT_BYTES).toString();
    // the reader gives one total per asset; one missing is not taken as zero
    const stated = c.totals[k]?.base_units;
    return stated === sum ? [] : [{ asset: a.asset, root_sum: sum, stated: stated ?? "none" }];
  });
  return off.length ? { code: "totals-off-root", by, off } : { code: "totals-bound", by };
}

/**
 * From the commitment alone: v2's forest root, or v1's children against the root and totals; undefined for a
 * v1 commitment that carries no children (its totals are bound only through its tree.bin, or a customer's path).
 */
export function rootBindsTotals(c: Commitment): TotalsFinding | undefined {
  if (isForest(c.construction)) {
    const computed = forestRootOf(c);
    return computed === c.root
      ? { code: "totals-bound", by: "forest" }
      : { code: "forest-off-root", root: c.root, computed };
  }
  if (!c.children) return undefined;
  const A = c.assets.length;
  const [left, right] = c.children.map((ch) => {
    const r = new Uint8Array(recordBytes(A));
    r.set(Buffer.from(ch.hash, "hex"), 0);
    ch.sums.forEach((s, a) => {
      putAmount(r, 32 + a * AMOUNT_BYTES, BigInt(s));
    });
    return r;
  });
  const top = parentOf(left, right, A);
  if (top === undefined) return { code: "children-off-root", root: c.root, computed: null };
  const computed = announcedRoot(c, top);
  if (computed !== c.root) return { code: "children-off-root", root: c.root, computed };
  return againstTotals(c, top, "children");
}

/**
 * The commitment read from `file`: its totals against its root — from the file alone (`rootBindsTotals`), else
 * (a v1 commitment without children) through the tree.bin beside it.
 */
export function commitmentTotals(c: Commitment, file: string): TotalsFinding {
  const f = totalsOf(c, file);
  return f.code === "totals-bound" ? namesBound(c, f) : f;
}

/**
 * Totals the root binds, by their assets' names too? v1.1 and v2.1's root hashes the asset table; v1 and v2's
 * binds each total by its position only, so a table relabelled under the same root (LTC's total written as
 * PEPE's, 8 decimals written 18) keeps the root: what is owed of each asset is not relied on.
 */
function namesBound(c: Commitment, f: TotalsFinding): TotalsFinding {
  return bindsAssets(c.construction)
    ? f
    : {
        code: "names-unbound",
        construction: isForest(c.construction) ? CONSTRUCTION_V2 : CONSTRUCTION,
        assets: c.assets.map((a) => ({ asset: a.asset, decimals: a.decimals })),
      };
}

function totalsOf(c: Commitment, file: string): TotalsFinding {
  const alone = rootBindsTotals(c);
  if (alone) return alone;
  const tree = join(dirname(file), TREE_FILE);
  if (!existsSync(tree)) return { code: "totals-unbound", root: c.root, tree };
  let store: BuildStore;
  try {
    store = new BuildStore(dirname(file));
  } catch (e) {
    return { code: "tree-unreadable", tree, error: (e as Error).message };
  }
  try {
    const A = c.assets.length;
    if (store.version !== 1 || store.assets !== A || store.height !== c.height || store.height < 1)
      return {
        code: "tree-other",
        tree,
        root: c.root,
        header: { version: store.version, assets: store.assets, height: store.height },
      };
    const top = parentOf(store.node(c.height - 1, 0), store.node(c.height - 1, 1), A);
    if (top === undefined || announcedRoot(c, top) !== c.root)
      return { code: "tree-other", tree, root: c.root, header: null };
    return againstTotals(c, top, "tree");
  } finally {
    store.close();
  }
}
