/** Flipster's customer proof (teamprex/proof-of-reserves): a plain Merkle path with no sums, two leaf rules. */
import { exchangeFormat } from "./inclusion.js";

export const FLIPSTER = exchangeFormat({
  name: "flipster",
  title: "Flipster customer proof (merkle_proof.json: leaf_index, assets, root, proofs; no sums)",
  checks: [
    "the leaf under both rules of Flipster's verifier — Go's json.Marshal of the assets (before 11aac7b) and \"|BTC:1|ETH:2\" (since) — and which one reaches the root, named",
    "every level sha256(left ‖ right), the side from leaf_index's parity, to the file's root and --root",
    "the customer's balances: a negative amount is refused",
  ],
  cannot: [
    "any total: no node carries a sum, so the root binds no total (said in every verdict)",
    "whose leaf it is: the leaf hashes no customer id, so two customers with the same balances share one",
    "that the root is the one Flipster published for everyone, unless --root gives it",
  ],
  catches: [
    "Flipster's verifier compares with the root inside the same file",
    "its verifier accepts a negative balance in the customer's leaf",
  ],
  marks: ["leaf_index", "assets[].currency", "assets[].balance", "root", "proofs"],
  verifier: () => import("../exchange/liabilities/flipster.js").then((m) => m.verify),
});
