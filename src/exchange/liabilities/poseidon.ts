/**
 * The Poseidon hash of the Binance family's zk proof-of-solvency tools: bnb-chain's fork of gnark-crypto
 * (ecc/bn254/fr/poseidon, pinned by HTX's verifier and Binance's first code at v0.7.1-0.20230203031630-7c643ad11891;
 * Gate's pins gatechain/gnark-crypto v0.7.1, which hashes alike):
 * circomlib's Poseidon over BN254's scalar field (x^5, 8 full rounds, circomlib's partial rounds per width,
 * the round constants and MDS of the Grain LFSR, which @noble/curves' grainGenConstants reproduces), inputs
 * absorbed 12 at a time into state[1..12] with state[0] carried, and the output **state[1]** (the fork's
 * "Fix poseidon output" commit, 7c643ad1; before it, 6e0195f2 of Nov 2022, the output was state[0]: `out`).
 * Checked against the fork's own test vectors (test/exchange-liabilities).
 */
import { Field } from "@noble/curves/abstract/modular.js";
import { grainGenConstants, poseidon } from "@noble/curves/abstract/poseidon.js";

/** BN254's scalar field (gnark's fr) */
export const FR = 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001n;
const Fp = Field(FR);
/** circomlib's partial rounds for widths 2…17 */
const PARTIAL = [56, 57, 56, 60, 60, 63, 64, 63, 60, 66, 60, 65, 70, 60, 64, 68];
const perms = new Map<number, (s: bigint[]) => bigint[]>();

function permute(state: bigint[]): bigint[] {
  const t = state.length;
  let p = perms.get(t);
  if (!p) {
    const roundsPartial = PARTIAL[t - 2] as number;
    const c = grainGenConstants({ Fp, t, roundsFull: 8, roundsPartial });
    p = poseidon({ Fp, t, roundsFull: 8, roundsPartial, sboxPower: 5, ...c });
    perms.set(t, p);
  }
  return p(state);
}

/** The fork's absorption, kept as a prefix: the state after every whole block of `rate` inputs. */
export class PoseidonChain {
  private state: bigint[];
  private blocks = 0;
  constructor(
    private readonly inputs: readonly bigint[],
    private readonly rate = 12,
    /** the state element returned: 1 since the fork's "Fix poseidon output" (7c643ad1), 0 before it */
    private readonly out = 1,
  ) {
    this.state = new Array<bigint>(rate + 1).fill(0n);
  }

  /** Poseidon of the first `n` inputs (n ≥ 1): the whole blocks absorbed once and kept, then the rest. */
  hashPrefix(n: number): bigint {
    const whole = n > this.rate ? Math.floor(n / this.rate) : 0;
    if (whole < this.blocks) {
      this.state = new Array<bigint>(this.rate + 1).fill(0n);
      this.blocks = 0;
    }
    while (this.blocks < whole) {
      const s = [...this.state];
      for (let j = 0; j < this.rate; j++) s[1 + j] = this.inputs[this.blocks * this.rate + j] ?? 0n;
      this.state = permute(s);
      this.blocks++;
    }
    const start = whole * this.rate;
    if (start >= n) return this.state[this.out] as bigint;
    const s = this.state.slice(0, n - start + 1);
    for (let j = 0; j < n - start; j++) s[1 + j] = this.inputs[start + j] ?? 0n;
    return permute(s)[this.out] as bigint;
  }
}

/** Poseidon of field elements, as the fork's `Poseidon(...)` (and `PoseidonBytes` once bytes are read). */
export const poseidonHash = (inputs: readonly bigint[], rate = 12, out = 1): bigint =>
  new PoseidonChain(inputs, rate, out).hashPrefix(inputs.length);
