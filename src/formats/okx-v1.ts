/** OKX's customer inclusion proof, v1 (Nov 2022 – Mar 2023): a leaf and its path in one file. */
import { exchangeFormat } from "./inclusion.js";

/** the members that identify its files */
export const OKX_V1_MARKS = [
  "self.nonce",
  "self.hash",
  "self.balances",
  "self.height",
  "path[].hash",
  "path[].height",
  "path[].type",
  "path[].balances",
] as const;

export const OKX_V1 = exchangeFormat({
  name: "okx-v1",
  title: "OKX customer inclusion proof, v1 (merkle_proof_file.json, 2022-23)",
  checks: [
    "the leaf: sha256(nonce ‖ the balances as Go's JSON) against self.hash",
    "every level: sha256(left ‖ right ‖ the sums ‖ height), the sums carried up the path",
    "the sums at the top against the root's totals, the hash against the root (--root, else the file's)",
    "no negative amount on any node of the path, no hash below 128 bits, heights 1…n in order",
  ],
  cannot: [
    "that the root is the one OKX published for everyone, unless --root gives it",
    "that no other leaf of the tree is negative: only the path is in the file",
    "that the nonce is this customer's alone (the leaf holds no account id)",
  ],
  catches: [
    "OKX's own verifier compares the path with the root inside the same file",
    "a negative sibling sum is accepted by OKX's verifier; chaingw refuses it with its level",
  ],
  marks: OKX_V1_MARKS,
  verifier: () => import("../exchange/liabilities/okx.js").then((m) => m.verifyV1),
});
