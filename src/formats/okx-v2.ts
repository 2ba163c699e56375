/** OKX's customer inclusion proof, v2 (from Mar 2023): the user info file beside the full tree. */
import { exchangeFormat } from "./inclusion.js";

/** the members that identify its files */
export const OKX_V2_MARKS = ["hash", "nonce", "totalBalances", "nodes[].hash", "nodes[].balances"] as const;

export const OKX_V2 = exchangeFormat({
  name: "okx-v2",
  title: "OKX customer inclusion proof, v2 (user_info_file.json with the full tree file, 2023)",
  checks: [
    "the user hash: sha256(nonce ‖ totalBalances as Go's JSON)",
    "each of the customer's leaves: sha256(userHash ‖ its balances), and that they add up to totalBalances",
    "the full tree (--tree FILE or the second file): every inner node rebuilt from its children, hash and sums",
    "the customer's leaves among the tree's leaves with the same balances; the padding nodes copies holding zero",
    "no negative amount anywhere in the tree, no hash below 128 bits",
  ],
  cannot: [
    "that the tree file is the one OKX published for everyone, unless --root gives its root",
    "without the tree file, anything past the customer's own leaves (said as cannot say)",
  ],
  catches: [
    "OKX's v2 validator never rebuilds inner nodes: it sums the height-1 lines and looks for the leaves, so a tree with the right leaves and any root passes it",
  ],
  marks: OKX_V2_MARKS,
  verifier: () => import("../exchange/liabilities/okx.js").then((m) => m.verifyV2),
});
