/** Silver Sixpence's Merkle tree levels (the auditor's tool behind the 2022 reviews of Binance, KuCoin, Crypto.com). */
import { exchangeFormat } from "./inclusion.js";

export const SIXPENCE = exchangeFormat({
  name: "sixpence-levels",
  title:
    "Silver Sixpence (the auditor of the 2022 reviews of Binance, KuCoin, Crypto.com) full tree levels (tree-level*.csv: hash,level,left,right; silversixpence-crypto/merkletree-verify d4ec2fc; no sums)",
  checks: [
    "every node: sha256(left ‖ right) over the bytes, as the auditor's MerkleTreeVerify.java",
    "the levels whole: each node a child of one node above (an odd node carried up), one top",
    "your leaf (--leaf HEX) among level 1's children, walked to the top; the top against --root",
  ],
  cannot: [
    "any total or balance: no node carries a sum, the leaves are the exchange's own hashes (inclusion only)",
    "your leaf's contents: each exchange hashed its customers' id, salt, audit id and balances its own way",
    "that the top is the root published for everyone, unless --root gives it",
  ],
  catches: ["a node whose hash is not its children's, or a node under two parents, named with its line"],
  also: (t) => /^\uFEFF?[0-9a-f]{64},\d+,[0-9a-f]{64},[0-9a-f]{64}\r?\n/.test(t),
  verifier: () => import("../exchange/liabilities/sixpence.js").then((m) => m.verify),
});
