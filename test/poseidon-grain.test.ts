/**
 * The Poseidon constants chaingw makes for the zk user proofs (src/exchange/liabilities/poseidon.ts, its own
 * Grain LFSR sampler: start-up is a feature) are @noble/curves' `grainGenConstants`, the reference, for every
 * width the proofs use (2…17 inputs and state[0]: circomlib's partial rounds per width).
 */
import { Field } from "@noble/curves/abstract/modular.js";
import { grainGenConstants } from "@noble/curves/abstract/poseidon.js";
import { describe, expect, it } from "vitest";
import { FR, grainConstants } from "../src/exchange/liabilities/poseidon.js";

const PARTIAL = [56, 57, 56, 60, 60, 63, 64, 63, 60, 66, 60, 65, 70, 60, 64, 68];

describe("Poseidon's Grain constants", () => {
  it("are noble's grainGenConstants for every width 2…17", () => {
    const Fp = Field(FR);
    for (let t = 2; t <= 17; t++) {
      const roundsPartial = PARTIAL[t - 2] as number;
      const mine = grainConstants(t, 8, roundsPartial);
      const ref = grainGenConstants({ Fp, t, roundsFull: 8, roundsPartial });
      expect(mine.roundConstants, `width ${t}`).toEqual(ref.roundConstants);
      expect(mine.mds, `width ${t}`).toEqual(ref.mds);
    }
  });
});
