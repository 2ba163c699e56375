/** The leaf list of the auditors' Merkle tree tool (Armanino / The Network Firm), as Bitso and Gate publish it. */
import { exchangeFormat } from "./inclusion.js";

export const LEAF_LIST = exchangeFormat({
  name: "tnf-leaf-list",
  title:
    "Armanino / The Network Firm (the auditors' Merkle tree tool; Bitso, Gate 2020-22) full leaf list (output_merkle_tree.txt: 64-bit leaves, no sums)",
  checks: [
    "the list: Level<TAB>Hash, then L,i<TAB>leaf with the leaves numbered in order and L the layers their tree has; no leaf listed twice",
    "the tree rebuilt from every leaf as the tool builds it (merkletreejs: sha256(left ‖ right), an odd node carried up) and its root against --root",
    "your leaf (--leaf HEX) in the list",
  ],
  cannot: [
    "any total or balance: the leaves are hashes and no node carries a sum, so the root binds no total (said in every verdict)",
    "the root, unless --root gives the one published apart: the list holds none",
    "your balances in your leaf: the leaf is computed from your id and balances by the exchange's own rule",
  ],
  catches: [
    "the tool's verifier and Bitso's print the root they rebuild and compare it with nothing; chaingw needs the published root (--root)",
    "a leaf listed twice (one customer's entry standing for two) fails",
  ],
  also: (t) => /^\uFEFF?Level\tHash\r?\n/.test(t),
  verifier: () => import("../exchange/liabilities/leaf-list.js").then((m) => m.verify),
});
