/** CoinEx's customer inclusion proof (merkle_proof_file.json: root, self, path with pos). */
import { exchangeFormat } from "./inclusion.js";

/** the members that identify its files */
export const COINEX_MARKS = [
  "root.hash",
  "root.balances",
  "self.nonce",
  "self.balances",
  "path[].pos",
] as const;

export const COINEX = exchangeFormat({
  name: "coinex",
  title: "CoinEx customer inclusion proof (merkle_proof_file.json)",
  checks: [
    "the leaf sha256(nonce ‖ balances as Go's JSON) and every level sha256(left ‖ right ‖ the sums), {} a missing sibling",
    "the sums at the top against the root's totals; no negative amount on the path, no hash below 128 bits",
  ],
  cannot: [
    "that the root is the one CoinEx published for everyone, unless --root gives it",
    "the leaf against a hash of its own (the file gives none: the path decides); other leaves than the path's",
    "that the nonce is this customer's alone (the leaf holds no account id)",
  ],
  catches: [
    "CoinEx's committed verifier hashes a missing sibling as h ‖ h ‖ sums and so rejects its own example; chaingw reaches the root and says so",
    "negative amounts, which CoinEx's verifier accepts; the root compared only with the file's own",
  ],
  marks: COINEX_MARKS,
  verifier: () => import("../exchange/liabilities/coinex.js").then((m) => m.verify),
});
