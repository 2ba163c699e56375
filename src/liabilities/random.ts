/**
 * Where a build's randomness comes from. Builds use the CSPRNG ({@link cryptoRandom}); {@link seededRandom}
 * exists only to reproduce the published test vector (docs/liabilities.md) and is reachable from no command.
 */
import { randomFillSync } from "node:crypto";
import { sha256 } from "@noble/hashes/sha2.js";

/** Fills `out` with random bytes. */
export type RandomSource = (out: Uint8Array) => void;

/** node:crypto's CSPRNG, drawn 64 KiB at a time. */
export function cryptoRandom(): RandomSource {
  const pool = new Uint8Array(1 << 16);
  let at = pool.length;
  return (out) => {
    if (out.length > pool.length) {
      randomFillSync(out);
      return;
    }
    if (at + out.length > pool.length) {
      randomFillSync(pool);
      at = 0;
    }
    out.set(pool.subarray(at, at + out.length));
    at += out.length;
  };
}

/**
 * FOR THE TEST VECTOR ONLY: SHA-256(seed ‖ u32be counter) blocks, one after another. Predictable by
 * design, so secrets drawn from it protect nothing.
 */
export function seededRandom(seed: string): RandomSource {
  const s = new TextEncoder().encode(seed);
  let counter = 0;
  let block = new Uint8Array(0);
  let at = 0;
  return (out) => {
    for (let i = 0; i < out.length; i++) {
      if (at === block.length) {
        const input = new Uint8Array(s.length + 4);
        input.set(s);
        new DataView(input.buffer).setUint32(s.length, counter++);
        block = sha256(input);
        at = 0;
      }
      out[i] = block[at++];
    }
  };
}

/** A uniform integer in [0, x] for 0 ≤ x < 2^128: 32 random bytes reduced mod x + 1 (bias below 2^-128). */
export function upTo(random: RandomSource, x: bigint): bigint {
  const b = new Uint8Array(32);
  random(b);
  return BigInt(`0x${Buffer.from(b).toString("hex")}`) % (x + 1n);
}
