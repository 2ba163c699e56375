/** BlocPalX's published tree file: every customer's line with its balances, the root and the totals. */
import { exchangeFormat } from "./inclusion.js";

export const BLOCPALX = exchangeFormat({
  name: "blocpalx",
  title:
    "BlocPalX full tree file (audit_files/…_merkletree.txt: every customer's line and balances, the root, the totals; Blocpal-Inc/proof-of-reserves bbf11a1 … f8a2d5f)",
  checks: [
    "every line's balances (none negative) and their exact sums against the header's totals",
    "the tree rebuilt from every line — leaf sha256(sentence hash, balances), pairs sha256(left ‖ right), an odd node carried up — against the file's root and --root",
    'your line: sha256 of your proof sentence (--credential "SENTENCE"), its balances your sentence\'s',
  ],
  cannot: [
    "that the root is the one BlocPalX published for everyone, unless --root gives it",
    "whose the other lines are, or the reward codes, which are not hashed",
  ],
  catches: [
    "BlocPalX's page sums the balances in floating point (toFixed(8)); chaingw sums them exactly and compares with the header's totals",
    "negative balances, which its page adds up without a word",
  ],
  also: (t) => /^\uFEFF?BlocPalX proof of reserves merkle tree file\r?\n/.test(t),
  verifier: () => import("../exchange/liabilities/blocpalx.js").then((m) => m.verify),
});
