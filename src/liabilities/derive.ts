/**
 * A build's randomness, keyed: one 32-byte build key K is drawn from the build's random source (the CSPRNG;
 * the seeded source only for the test vector) and every other random value is derived from K and a name
 * that does not depend on the order the work is done in — the customer's id, a padding leaf's number.
 * So a build that streams (customers in hash buckets, in worker threads, in any order) and the in-memory
 * build make the same tree from the same K. K is never written anywhere: without it the derived values are
 * as unpredictable as fresh CSPRNG output (HMAC-SHA256 is a PRF).
 *
 *   customer seed  s = HMAC-SHA256(K, 0x00 ‖ id)          padding seed  s = HMAC-SHA256(K, 0x01 ‖ u64be p)
 *   stream(s)      = SHA-256(s ‖ u32be 0) ‖ SHA-256(s ‖ u32be 1) ‖ …, consumed in order:
 *     customer: secret (32 bytes); per asset with a non-zero amount and k > 1, k−1 cut points of 32 bytes
 *               each (reduced mod x+1, as upTo); then k place keys of 16 bytes (part 0 first)
 *     padding:  the 32-byte tag r of the padding leaf, then its 16-byte place key
 *
 * The shuffle: the L leaves (customers' parts and padding) sorted by place key (big-endian, unsigned) give
 * the leaf order — a uniform random permutation, found by sorting in buckets of the key's top bits without
 * holding every leaf (two keys collide with probability below 2^-60 even at 2^31 leaves; a tie keeps
 * the order the entries arrived in).
 */
import { hmacNative, sha256Native } from "./format.js";
import type { RandomSource } from "./random.js";

export const KEY_BYTES = 16;

/** The counter-mode stream of a seed: SHA-256(seed ‖ u32be counter) blocks, one after another. */
export function seedStream(seed: Uint8Array): RandomSource {
  const input = Buffer.alloc(seed.length + 4);
  input.set(seed, 0);
  let counter = 0;
  let block: Buffer = Buffer.alloc(0);
  let at = 0;
  return (out) => {
    for (let i = 0; i < out.length; ) {
      if (at === block.length) {
        input.writeUInt32BE(counter++, seed.length);
        block = sha256Native(input);
        at = 0;
      }
      const n = Math.min(out.length - i, block.length - at);
      out.set(block.subarray(at, at + n), i);
      i += n;
      at += n;
    }
  };
}

/** A customer's seed: HMAC-SHA256(K, 0x00 ‖ UTF-8 id). */
export function customerSeed(key: Uint8Array, id: Uint8Array): Buffer {
  const m = Buffer.allocUnsafe(1 + id.length);
  m[0] = 0;
  m.set(id, 1);
  return hmacNative(key, m);
}

const PAD = Buffer.alloc(9);
PAD[0] = 1;

/** Padding leaf p's seed: HMAC-SHA256(K, 0x01 ‖ u64be p). */
export function paddingSeed(key: Uint8Array, p: number): Buffer {
  PAD.writeUInt32BE(Math.floor(p / 2 ** 32), 1);
  PAD.writeUInt32BE(p % 2 ** 32, 5);
  return hmacNative(key, PAD);
}

const PAD2 = Buffer.alloc(13);
PAD2[0] = 2;

/** v2: padding leaf p of asset a's tree: its seed HMAC-SHA256(K, 0x02 ‖ u32be a ‖ u64be p). */
export function paddingSeedV2(key: Uint8Array, a: number, p: number): Buffer {
  PAD2.writeUInt32BE(a, 1);
  PAD2.writeUInt32BE(Math.floor(p / 2 ** 32), 5);
  PAD2.writeUInt32BE(p % 2 ** 32, 9);
  return hmacNative(key, PAD2);
}

/** Compares two place keys (16 bytes each) at `a[ao..]` and `b[bo..]`: big-endian, unsigned. */
export function compareKeys(a: Uint8Array, ao: number, b: Uint8Array, bo: number): number {
  for (let i = 0; i < KEY_BYTES; i++) {
    const d = a[ao + i] - b[bo + i];
    if (d) return d;
  }
  return 0;
}
