/** MEXC's customer inclusion proof (merkle_proof.json: pathList and self). */
import { exchangeFormat } from "./inclusion.js";

/** the members that identify its files */
export const MEXC_MARKS = [
  "self.proofId",
  "self.accountId",
  "self.hash",
  "pathList[].hash",
  "pathList[].level",
] as const;

export const MEXC = exchangeFormat({
  name: "mexc",
  title: "MEXC customer inclusion proof (merkle_proof.json)",
  checks: [
    "the leaf: sha256(proofId, accountId, sorted K:v balances) cut to 32 hex (128 bits)",
    'every level: sha256(L, R, the sorted sums), a missing level or a hash "" an empty sibling (which must hold nothing)',
    "the sums at the top against the root's totals (MEXC's verifier compares only the hash); no negative amount on the path",
  ],
  cannot: [
    "that the root is the one MEXC published for everyone, unless --root gives it",
    "other leaves than the path's",
  ],
  catches: [
    "MEXC's verifier never compares the path's sums with the root's totals, and accepts negative amounts",
    "it compares with the root inside the same file",
  ],
  marks: MEXC_MARKS,
  verifier: () => import("../exchange/liabilities/mexc.js").then((m) => m.verify),
});
