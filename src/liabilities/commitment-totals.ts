/**
 * Whether a commitment's totals are its root's (issue 55, item 2: totals a root does not bind are never taken
 * as what is owed). A v2 commitment's root hashes its totals (`forestRoot`: `commitmentFaults` recomputes it
 * from the file alone). A v1 commitment's root is SHA-256(0x01 ‖ left record ‖ right record), each record a
 * hash and every asset's sum: its totals are bound only through the root's two children, which are in the
 * build's `tree.bin`, not in commitment.json — a forger edits the totals (5,000 PEPE owed written 0), recomputes
 * the unkeyed digest, and the root every customer checks is unchanged. So `solvency` reads the root's two
 * children from the tree.bin beside the commitment (`liabilities build --out DIR` writes both): they must hash
 * to the root and sum to the totals; no tree beside it, the totals are not relied on (cannot say).
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Commitment } from "./commitment.js";
import { AMOUNT_BYTES, CONSTRUCTION, getAmount, hex, parentOf } from "./format.js";
import { BuildStore, TREE_FILE } from "./store.js";

/** Why the totals cannot be relied on (`cannotSay`) or do not hold (`fails`); {} when the root binds them. */
export interface TotalsBinding {
  fails?: string;
  cannotSay?: string;
}

/** The commitment read from `file`: its totals against its root (v1: through the tree.bin beside it). */
export function commitmentTotals(c: Commitment, file: string): TotalsBinding {
  if (c.construction !== CONSTRUCTION) return {};
  const tree = join(dirname(file), TREE_FILE);
  const beside = `the tree.bin beside it (${tree})`;
  if (!existsSync(tree))
    return {
      cannotSay: `the commitment's totals are bound to its root ${c.root.slice(0, 16)}… only through the root's two children, which are in its build's tree.bin, and there is none beside it (${tree}): its totals could be edited under the same root, so they are not relied on; give the commitment.json of the build's folder (liabilities build --out DIR)`,
    };
  let store: BuildStore;
  try {
    store = new BuildStore(dirname(file));
  } catch (e) {
    return { cannotSay: `${beside} cannot be read (${(e as Error).message}): the totals are not relied on` };
  }
  try {
    const A = c.assets.length;
    if (store.version !== 1 || store.assets !== A || store.height !== c.height || store.height < 1)
      return {
        cannotSay: `${beside} is not this commitment's tree (version ${store.version}, ${store.assets} assets, height ${store.height}): the totals are not relied on`,
      };
    const top = parentOf(store.node(c.height - 1, 0), store.node(c.height - 1, 1), A);
    if (top === undefined || hex(top.subarray(0, 32)) !== c.root)
      return {
        cannotSay: `the top of ${beside} does not hash to the commitment's root ${c.root.slice(0, 16)}…: it is another build's tree, and the totals are not relied on`,
      };
    const off = c.assets.flatMap((a, k) => {
      const sum = getAmount(top, 32 + k * AMOUNT_BYTES);
      const stated = c.totals[k]?.base_units;
      return stated === sum.toString()
        ? []
        : [`${a.asset}: the root's children sum to ${sum} base units, the commitment says ${stated}`];
    });
    return off.length
      ? {
          fails: `the commitment's totals are not its root's (${off.join("; ")}): they were edited under the same root`,
        }
      : {};
  } finally {
    store.close();
  }
}
