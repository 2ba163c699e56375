/** SwissBorg's proof of liabilities: the customer's userLiab file with the audit's roots file and credential. */
import { exchangeFormat } from "./inclusion.js";

/** the members of the audit's roots file (auditRoots_N.json), named when it is given alone */
export const SWISSBORG_ROOTS_MARKS = [
  "audit.commitment.digest",
  "audit.partitions[].commitment.liability",
  "audit.partitions[].currency",
];

export const SWISSBORG = exchangeFormat({
  name: "swissborg",
  title:
    "SwissBorg customer liabilities (userLiab_N.json with auditRoots_N.json; SwissBorg/proof-of-liabilities 284c982 … 7ad8737)",
  checks: [
    "each of your leaves from your credential (--credential): the HMAC-SHA256 nonce chain (audit, currency, leaf index) and sha256(leaf, nonce, user id, liability), against the file's",
    "every level sha256(inner, left sum, right sum, left hash, right hash) — each child's own sum — and the sums, none negative, to the currency's root in the audit's roots file (the second file)",
    "the audit commitment over every currency's root and total, against --root (the commitment SwissBorg published)",
  ],
  cannot: [
    "your leaves without your credential: their hashes are then the file's word (cannot say)",
    "that the commitment is the one published for everyone, unless --root gives it",
    "other customers' leaves",
  ],
  catches: [
    "SwissBorg's verifier takes the audit roots from the same server as the proof; chaingw needs the published commitment (--root)",
  ],
  marks: ["audit_id", "user_id", "liabilities[].audit_partition_id", "liabilities[].proof.witnesses"],
  verifier: () => import("../exchange/liabilities/swissborg.js").then((m) => m.verify),
});
