/**
 * The Poseidon hash of the Binance family's zk proof-of-solvency tools: bnb-chain's fork of gnark-crypto
 * (ecc/bn254/fr/poseidon, pinned by HTX's verifier and Binance's first code at v0.7.1-0.20230203031630-7c643ad11891;
 * Gate's pins gatechain/gnark-crypto v0.7.1, which hashes alike):
 * circomlib's Poseidon over BN254's scalar field (x^5, 8 full rounds, circomlib's partial rounds per width,
 * the round constants and MDS of the Grain LFSR, as @noble/curves' grainGenConstants makes them), inputs
 * absorbed 12 at a time into state[1..12] with state[0] carried, and the output **state[1]** (the fork's
 * "Fix poseidon output" commit, 7c643ad1; before it, 6e0195f2 of Nov 2022, the output was state[0]: `out`).
 * Checked against the fork's own test vectors (test/exchange-liabilities).
 */
import { Field, FpInvertBatch } from "@noble/curves/abstract/modular.js";
import { poseidon } from "@noble/curves/abstract/poseidon.js";

/** BN254's scalar field (gnark's fr) */
export const FR = 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001n;
const Fp = Field(FR);
/** circomlib's partial rounds for widths 2…17 */
const PARTIAL = [56, 57, 56, 60, 60, 63, 64, 63, 60, 66, 60, 65, 70, 60, 64, 68];
const perms = new Map<number, (s: bigint[]) => bigint[]>();

/**
 * The round constants and MDS matrix of width `t`, from the Grain LFSR exactly as @noble/curves'
 * `grainGenConstants` makes them (the reference: test/poseidon-grain.test.ts compares every width 2…17), with
 * the bits kept in a byte array and each 254-bit element built from its hex digits once, not a BigInt shift a
 * bit: noble's took 156 ms of a 0.45 s Binance user proof (two widths), this ~10 ms.
 */
export function grainConstants(
  t: number,
  roundsFull: number,
  roundsPartial: number,
): { roundConstants: bigint[][]; mds: bigint[][] } {
  const BITS = Fp.BITS;
  // the LFSR's bits a block at a time (the last 80 carried to the front of the next): bit n+80 is the sum of
  // bits n+62, n+51, n+38, n+23, n+13 and n
  const BLOCK = 1 << 15;
  const raw = new Uint8Array(80 + BLOCK);
  let at = 0;
  const write = (value: number, n: number) => {
    for (let i = n - 1; i >= 0; i--) raw[at++] = Math.floor(value / 2 ** i) % 2;
  };
  // field prime (1, 2 bits), S-box x^a (0, 4 bits), field size, width, full and partial rounds; the rest 1
  write(1, 2);
  write(0, 4);
  write(BITS, 12);
  write(t, 12);
  write(roundsFull, 10);
  write(roundsPartial, 10);
  raw.fill(1, at, 80);
  const refill = () => {
    for (let i = 0; i < BLOCK; i++)
      raw[i + 80] =
        (raw[i + 62] as number) ^
        (raw[i + 51] as number) ^
        (raw[i + 38] as number) ^
        (raw[i + 23] as number) ^
        (raw[i + 13] as number) ^
        (raw[i] as number);
  };
  refill();
  // the first 160 bits are dropped; then of each pair, the second is kept when the first is 1
  let r = 80 + 160;
  const bit = (): number => {
    for (;;) {
      if (r >= 80 + BLOCK) {
        raw.copyWithin(0, BLOCK, BLOCK + 80);
        refill();
        r = 80;
      }
      const b1 = raw[r] as number;
      const b2 = raw[r + 1] as number;
      r += 2;
      if (b1) return b2;
    }
  };
  // an element's BITS bits, most significant first, gathered 30 at a time into a Number (the first
  // BITS mod 30), each part shifted into the BigInt once
  const lead = BITS % 30 || 30;
  const element = (): bigint => {
    let x = 0n;
    let part = 0;
    let left = lead;
    for (let i = 0; i < BITS; i++) {
      part = part * 2 + bit();
      if (--left === 0) {
        x = (x << 30n) | BigInt(part);
        part = 0;
        left = 30;
      }
    }
    return x;
  };
  const sample = (n: number, reject: boolean): bigint[] => {
    const out: bigint[] = [];
    while (out.length < n) {
      const x = element();
      if (reject && x >= Fp.ORDER) continue;
      out.push(Fp.create(x));
    }
    return out;
  };
  const roundConstants: bigint[][] = [];
  for (let r = 0; r < roundsFull + roundsPartial; r++) roundConstants.push(sample(t, true));
  const xs = sample(t, false);
  const ys = sample(t, false);
  const mds = xs.map((x) =>
    FpInvertBatch(
      Fp,
      ys.map((y) => {
        const xy = Fp.add(x, y);
        if (Fp.is0(xy)) throw new Error("Poseidon MDS: x + y is zero");
        return xy;
      }),
      true,
    ),
  );
  return { roundConstants, mds };
}

function permute(state: bigint[]): bigint[] {
  const t = state.length;
  let p = perms.get(t);
  if (!p) {
    const roundsPartial = PARTIAL[t - 2] as number;
    const c = grainConstants(t, 8, roundsPartial);
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
