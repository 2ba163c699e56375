/** Bitunix's customer inclusion proof (a Bitget-like tree with full SHA-256 and per-asset precisions). */
import { exchangeFormat } from "./inclusion.js";

/** the members that identify its files */
export const BITUNIX_MARKS = [
  "self.merkleLeaf",
  "self.encryptUid",
  "self.precisions",
  "path[].merkleLeaf",
  "path[].height",
] as const;

export const BITUNIX = exchangeFormat({
  name: "bitunix",
  title: "Bitunix customer inclusion proof (merkle_tree_bitunix.json)",
  checks: [
    "the leaf: sha256(encryptUid, nonce, balances), keys in Java HashMap's order",
    "every level: sha256(left right, the sums at each asset's precision, the height); the root's totals",
    "no negative amount on the path, no hash below 128 bits",
  ],
  cannot: [
    "that the root is the one Bitunix published for everyone, unless --root gives it",
    "other leaves than the path's",
  ],
  catches: [
    "negative subtotals, which Bitunix's verifier accepts",
    "the root compared only with the file's own",
  ],
  marks: BITUNIX_MARKS,
  verifier: () => import("../exchange/liabilities/bitget.js").then((m) => m.verifyBitunix),
});
