/**
 * chaingw's own liabilities files: the published commitment (`liabilities build`) and a customer's inclusion
 * proof (`liabilities proof`; several as JSON Lines). Detected by the top-level `format` member (of the first
 * line for JSON Lines); `load()` brings the liabilities reader and verifier (liabilities/verify.ts) as the
 * `LiabilitiesModule` of chaingw-liabilities-module.ts.
 */

import { formatMember } from "./sniff.js";
import type { LiabilitiesModule, ProofFormat } from "./types.js";

/** the `format` member of each file (liabilities/format.ts PROOF_FORMAT and COMMITMENT_FORMAT) */
export const LIABILITIES_PROOF_MEMBER = "chaingw-liabilities-proof";
export const LIABILITIES_COMMITMENT_MEMBER = "chaingw-liabilities";

/** Both files go through the one module: a commitment given as the proof is refused by the proof's reader. */
const load = () => import("./chaingw-liabilities-module.js").then((m) => m.LIABILITIES_MODULE);

export const CHAINGW_LIABILITIES_PROOF: ProofFormat<LiabilitiesModule> = {
  name: "chaingw-liabilities-proof",
  kind: "liabilities",
  title: `chaingw's customer inclusion proof ("${LIABILITIES_PROOF_MEMBER}", liabilities proof)`,
  checks: [
    "the leaf from the customer's id, secret and amounts; every level of the Merkle-sum path up to the root",
    "the root and the totals against the published commitment (--commitment)",
    "that the proof is the customer's (--customer ID)",
  ],
  cannot: [
    "that the commitment is the one published for every customer",
    "that other customers' leaves are not negative or left out: only this path is in the file",
  ],
  detect: (t) => formatMember(t) === LIABILITIES_PROOF_MEMBER,
  load,
};

export const CHAINGW_LIABILITIES: ProofFormat<LiabilitiesModule> = {
  name: "chaingw-liabilities",
  kind: "liabilities",
  title: `chaingw's liabilities commitment ("${LIABILITIES_COMMITMENT_MEMBER}", liabilities build)`,
  checks: ["its form: the root, the height, the totals per asset (exact, within 128 bits)"],
  cannot: ["any customer's inclusion: a proof file, checked against it, does that"],
  detect: (t) => formatMember(t) === LIABILITIES_COMMITMENT_MEMBER,
  load,
};
