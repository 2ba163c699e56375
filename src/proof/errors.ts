/**
 * Input a proof command was handed that it cannot judge at all: an address of no supported chain, a
 * signature that is not base64 or of no known form, a proof document that breaks its schema. The CLI maps it
 * to exit 2 (usage), apart from a signature that was read and simply does not verify, which is a result.
 */
export class ProofInputError extends Error {
  override name = "ProofInputError";
  constructor(
    /** What was wrong: "address", "signature", a JSON path such as "outputs[3].amount_sats", or "line N". */
    readonly field: string,
    /** The reason alone, without the field; `message` holds both. */
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}
