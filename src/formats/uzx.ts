/** UZX's customer inclusion proof (a Bitget fork), and Bitget's 2022 layout: bare numbers, scale kept. */

import { BITGET_MARKS } from "./bitget.js";
import { exchangeFormat } from "./inclusion.js";

export const UZX = exchangeFormat({
  name: "uzx",
  title: "UZX customer inclusion proof (merkel_tree_uzx.json), and Bitget's 2022 layout: bare amounts",
  checks: [
    "the leaf and every level as Bitget's, the amounts spelled as Java's BigDecimal.toString (the scale kept, 0E-16, 1.000000000E-7)",
    "the sums carried up the path against the root's totals; no negative amount on the path",
    "every hash's length: 64-bit hashes are a failure",
  ],
  cannot: [
    "that the root is the one published for everyone, unless --root gives it",
    "other leaves than the path's",
  ],
  catches: ["64-bit hashes and negative subtotals, which the fork's verifier accepts"],
  marks: BITGET_MARKS,
  also: (t) => /"balances"\s*:\s*\{\s*"[^"]*"\s*:\s*-?\d/.test(t),
  verifier: () => import("../exchange/liabilities/bitget.js").then((m) => m.verifyUzx),
});
