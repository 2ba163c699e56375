/**
 * chaingw's own liabilities proofs as the `LiabilitiesModule` `liabilities verify` runs: the commitment
 * (--commitment) and the proofs read whole before the customer is asked, then every proof checked by the
 * verifier's steps (liabilities/verify.ts). Loaded on use.
 */
import { UsageError } from "../errors/index.js";
import { parseCommitment } from "../liabilities/commitment.js";
import { checkProofs, parseProofs } from "../liabilities/verify.js";
import { quoted } from "../util/text.js";
import { EXCHANGE_FLAGS } from "./inclusion.js";
import type { LiabilitiesModule } from "./types.js";

export const LIABILITIES_MODULE: LiabilitiesModule = {
  async verify(text, input) {
    if (input.commitment === undefined) {
      const stray = (Object.keys(EXCHANGE_FLAGS) as (keyof typeof EXCHANGE_FLAGS)[]).find(
        (k) => input[k] !== undefined,
      );
      if (stray)
        throw new UsageError(
          `${EXCHANGE_FLAGS[stray]}: the file is not an exchange's inclusion proof chaingw knows (--proof-format NAME forces one)`,
        );
      throw new UsageError(
        "--commitment <file>: required for chaingw's own proofs (the published commitment.json); the file is not an exchange's inclusion proof chaingw knows either (docs/exchange-proofs.md)",
      );
    }
    const commitmentText = input.readFile(input.commitment, "--commitment");
    // both files read whole before the customer is asked: a file that is not one is refused first
    const commitment = parseCommitment(commitmentText, input.commitment);
    const proofs = parseProofs(text, input.file);
    let customer = input.customer;
    if (customer === undefined && input.ask) {
      customer = (await input.ask()).trim();
      if (customer === "")
        throw new UsageError("--customer: no id given (your customer id, as your account shows it)");
    }
    const verdicts = checkProofs(proofs, commitment, { customer });
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
