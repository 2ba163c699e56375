/** Bitget's customer inclusion proof (merkel_tree_bg.json), 2025 layout: quoted amounts. */
import { exchangeFormat } from "./inclusion.js";

/** the members that identify the Bitget family's files (Bitget, UZX) */
export const BITGET_MARKS = [
  "self.merkelLeaf",
  "self.encryptUid",
  "self.nonce",
  "self.level",
  "path[].merkelLeaf",
  "path[].level",
] as const;

export const BITGET = exchangeFormat({
  name: "bitget",
  title: "Bitget customer inclusion proof (merkel_tree_bg.json, quoted amounts, 2023-)",
  checks: [
    "the leaf: sha256(encryptUid, nonce, balances) with the keys in Java HashMap's order, cut to 16 hex as Bitget does; the amounts spelled as Bitget's code did at the file's date — fastjson's default (unquoted, scale kept; to Sep 2025) or its JSONUtils (quoted, zeros stripped; 779bf2f) — the one that reproduces your leaf, named",
    "every level: sha256(left right, the sums, the level), the sums carried up; the root's totals",
    "no negative amount on the path (siblings and the sums), levels n…1 in order",
    "every hash's length: Bitget's 64-bit hashes are a failure (a colliding subtree can be searched for)",
  ],
  cannot: [
    "that the root is the one Bitget published for everyone, unless --root gives it",
    "other leaves than the path's",
  ],
  catches: [
    "Bitget's verifier accepts negative subtotals (the real Nov 2025 path has negative USDC at levels 17 and 14)",
    "Bitget's hashes are 64 bits; its verifier does not object",
    "Bitget's verifier compares with the root inside the same file",
  ],
  marks: BITGET_MARKS,
  also: (t) => /"balances"\s*:\s*\{\s*"[^"]*"\s*:\s*"/.test(t),
  verifier: () => import("../exchange/liabilities/bitget.js").then((m) => m.verifyBitget),
});
