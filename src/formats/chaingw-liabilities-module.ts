/**
 * chaingw's own liabilities proofs as the `LiabilitiesModule` `liabilities verify` runs: the commitment
 * (--commitment) and the proofs read whole before the customer is asked, then every proof checked by the
 * verifier's steps (liabilities/verify.ts). Loaded on use.
 */
import { UsageError } from "../errors/index.js";
import { parseCommitment } from "../liabilities/commitment.js";
import { isForest } from "../liabilities/format.js";
import type { ProofDocument } from "../liabilities/proof.js";
import { checkProofs, parseProofs } from "../liabilities/verify.js";
import { rootFrame } from "../liabilities/verify-table.js";
import { quoted } from "../util/text.js";
import { EXCHANGE_FLAGS } from "./inclusion.js";
import type { LiabilitiesModule } from "./types.js";

/** `--root`: 64 hex digits, 0x optional, read as lowercase (else exit 2 naming it). */
function rootOf(text: string): string {
  const h = text.trim().toLowerCase().replace(/^0x/, "");
  if (!/^[0-9a-f]{64}$/.test(h))
    throw new UsageError(`--root ${JSON.stringify(text)}: not a root (64 hex digits, the tree's top hash)`);
  return h;
}

export const LIABILITIES_MODULE: LiabilitiesModule = {
  async verify(text, input) {
    const root = input.root === undefined ? undefined : rootOf(input.root);
    if (input.commitment === undefined) {
      const stray = (Object.keys(EXCHANGE_FLAGS) as (keyof typeof EXCHANGE_FLAGS)[]).find(
        (k) => k !== "root" && input[k] !== undefined,
      );
      if (stray)
        throw new UsageError(
          `${EXCHANGE_FLAGS[stray]}: the file is not an exchange's inclusion proof chaingw knows (--proof-format NAME forces one)`,
        );
      if (root === undefined)
        throw new UsageError(
          "--commitment <file> or --root <hex>: chaingw's own proofs are checked against the published commitment.json, or the root the exchange announced; the file is not an exchange's inclusion proof chaingw knows either (docs/exchange-proofs.md)",
        );
    }
    // both files read whole before the customer is asked: a file that is not one is refused first
    const proofs = parseProofs(text, input.file);
    const forest = proofs.find((p) => isForest(p.construction));
    if (input.commitment === undefined && forest)
      throw new UsageError(
        `--root alone: a ${forest.construction} proof is checked against each asset's tree root and total, which the commitment lists: give --commitment`,
      );
    const commitment =
      input.commitment === undefined
        ? rootFrame(proofs[0] as ProofDocument, root as string)
        : parseCommitment(input.readFile(input.commitment, "--commitment"), input.commitment);
    let customer = input.customer;
    if (customer === undefined && input.ask) {
      customer = (await input.ask()).trim();
      if (customer === "")
        throw new UsageError("--customer: no id given (your customer id, as your account shows it)");
    }
    const verdicts = checkProofs(proofs, commitment, {
      customer,
      ...(root === undefined ? {} : { root }),
      ...(input.commitment === undefined ? { rootOnly: true } : {}),
    });
    return {
      kind: "chaingw",
      verdict: verdicts.every((v) => v.verdict === "holds") ? "holds" : "fails",
      verdicts,
      notes:
        customer === undefined
          ? [
              `chaingw: no --customer given: this shows whose proof holds (${verdicts.map((v) => quoted(v.customer)).join(", ")}), not that it is yours`,
            ]
          : [],
    };
  },
};
