/**
 * The two address checksums an auditor's list needs, written for lists of thousands: bech32 / bech32m
 * (BIP173 / BIP350) and base58check. They work on character codes and small typed arrays; a generic
 * codec (such as @scure/base, which TRON addresses use and which the tests use as the oracle for these)
 * allocates per character and costs 3-5 µs an address, which for 10,000 addresses is more than the node
 * needs for the scan itself. Nothing here knows networks; callers judge prefixes.
 */
import * as crypto from "node:crypto";

/** SHA-256 twice; the one-shot crypto.hash (Node >= 20.12) is about twice as fast as createHash for 21 bytes */
const sha256d: (b: Uint8Array) => Uint8Array =
  typeof crypto.hash === "function"
    ? (b) => crypto.hash("sha256", crypto.hash("sha256", b, "buffer"), "buffer")
    : (b) => crypto.createHash("sha256").update(crypto.createHash("sha256").update(b).digest()).digest();

const BECH32_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
/** char code → 5-bit value, -1 outside the (lower-case) charset */
const BECH32_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < BECH32_CHARSET.length; i++) BECH32_VALUE[BECH32_CHARSET.charCodeAt(i)] = i;
const GEN = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
/** the generator terms for each value of the 5 bits shifted out: one lookup per step instead of five tests */
const GEN_BY_TOP = new Int32Array(32);
for (let top = 0; top < 32; top++)
  for (let i = 0; i < 5; i++)
    if ((top >>> i) & 1) GEN_BY_TOP[top] = (GEN_BY_TOP[top] as number) ^ (GEN[i] as number);
const BECH32_CONST = 1;
const BECH32M_CONST = 0x2bc830a3;

export interface Bech32Decoded {
  variant: "bech32" | "bech32m";
  hrp: string;
  /** 5-bit words in the data part, without the 6 checksum words */
  words: number;
  /** the first data word (a segwit address's witness version); -1 without data */
  first: number;
  /**
   * the byte length of the words after the first converted to bytes, strict as BIP173's convertbits (at
   * most 4 padding bits, all zero); undefined when that padding is wrong. A witness check needs only the
   * program's length, so no bytes are made.
   */
  restBytes: number | undefined;
}

/**
 * Checks a lower-case bech32/bech32m string of at most `limit` characters; undefined when the
 * characters, the separator or the checksum are wrong (the same verdicts as BIP173's reference decoder).
 * The checksum steps are written out in the loops: a list of 10,000 addresses runs this cold, and the
 * inlined form costs 5 ms where a helper call per character cost 8.
 */
export function bech32Decode(s: string, limit = 90): Bech32Decoded | undefined {
  if (s.length > limit) return undefined;
  const sep = s.lastIndexOf("1");
  const n = s.length - sep - 1;
  if (sep < 1 || n < 6) return undefined;
  let chk = 1;
  for (let i = 0; i < sep; i++) {
    const c = s.charCodeAt(i);
    if (c < 33 || c > 126 || (c >= 65 && c <= 90)) return undefined;
    chk = (((chk & 0x1ffffff) << 5) ^ (c >>> 5) ^ (GEN_BY_TOP[chk >>> 25] as number)) | 0;
  }
  chk = (((chk & 0x1ffffff) << 5) ^ (GEN_BY_TOP[chk >>> 25] as number)) | 0;
  for (let i = 0; i < sep; i++)
    chk = (((chk & 0x1ffffff) << 5) ^ (s.charCodeAt(i) & 31) ^ (GEN_BY_TOP[chk >>> 25] as number)) | 0;
  let first = -1;
  let last = 0;
  for (let i = sep + 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const v = c < 128 ? (BECH32_VALUE[c] as number) : -1;
    if (v < 0) return undefined;
    chk = (((chk & 0x1ffffff) << 5) ^ v ^ (GEN_BY_TOP[chk >>> 25] as number)) | 0;
    if (i === sep + 1) first = v;
    if (i === s.length - 7) last = v;
  }
  const variant = chk === BECH32_CONST ? "bech32" : chk === BECH32M_CONST ? "bech32m" : undefined;
  if (!variant) return undefined;
  const words = n - 6;
  const bits = Math.max(0, words - 1) * 5;
  const pad = bits % 8;
  const restBytes = pad >= 5 || (pad > 0 && (last & ((1 << pad) - 1)) !== 0) ? undefined : bits >>> 3;
  return { variant, hrp: s.slice(0, sep), words, first: words > 0 ? first : -1, restBytes };
}

const BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const BASE58_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE58_ALPHABET.length; i++) BASE58_VALUE[BASE58_ALPHABET.charCodeAt(i)] = i;

/**
 * Base58 text → bytes (leading "1"s are leading zero bytes); undefined outside the alphabet. Digits are
 * taken three at a time (58^3 < 2^18), so the byte array is swept a third as often.
 */
export function base58Decode(s: string): Uint8Array | undefined {
  let zeros = 0;
  while (zeros < s.length && s.charCodeAt(zeros) === 49) zeros++;
  // log(58)/log(256) ≈ 0.7322: the bytes the digits can need
  const size = (((s.length - zeros) * 733) / 1000 + 1) >>> 0;
  const b = new Uint8Array(size);
  let used = 0;
  let i = zeros;
  while (i < s.length) {
    // the first group takes the remainder so that every later one has three digits
    const take = i === zeros ? (s.length - zeros) % 3 || 3 : 3;
    let carry = 0;
    let mul = 1;
    for (let d = 0; d < take; d++, i++) {
      const c = s.charCodeAt(i);
      const v = c < 128 ? (BASE58_VALUE[c] as number) : -1;
      if (v < 0) return undefined;
      carry = carry * 58 + v;
      mul *= 58;
    }
    let j = 0;
    for (let k = size - 1; k >= 0 && (carry !== 0 || j < used); k--, j++) {
      carry += mul * (b[k] as number);
      b[k] = carry & 0xff;
      carry >>>= 8;
    }
    used = j;
  }
  let skip = 0;
  while (skip < size && b[skip] === 0) skip++;
  const out = new Uint8Array(zeros + size - skip);
  out.set(b.subarray(skip), zeros);
  return out;
}

export type Base58CheckResult =
  | { ok: true; payload: Uint8Array }
  | { ok: false; why: "alphabet" | "checksum" };

/** Base58check: the payload without its 4-byte double-SHA256 checksum. */
export function base58CheckDecode(s: string): Base58CheckResult {
  const raw = base58Decode(s);
  if (!raw) return { ok: false, why: "alphabet" };
  if (raw.length < 4) return { ok: false, why: "checksum" };
  const payload = raw.subarray(0, raw.length - 4);
  const h = sha256d(payload);
  for (let i = 0; i < 4; i++) if (h[i] !== raw[payload.length + i]) return { ok: false, why: "checksum" };
  return { ok: true, payload };
}

/**
 * The witness program of a lower-case bech32/bech32m string that {@link bech32Decode} accepted with
 * `restBytes` defined: the data words after the version word, less the checksum, regrouped from 5 to 8 bits.
 * The checks stay in bech32Decode; this only unpacks, for the few addresses whose bytes are needed (message
 * signatures), never for the scanned lists.
 */
export function bech32Program(s: string): Uint8Array {
  const sep = s.lastIndexOf("1");
  const end = s.length - 6;
  const out = new Uint8Array(((end - sep - 2) * 5) >>> 3);
  let acc = 0;
  let bits = 0;
  let j = 0;
  for (let i = sep + 2; i < end; i++) {
    // at most 7 bits wait between bytes, so 12 bits of accumulator suffice
    acc = ((acc << 5) | (BECH32_VALUE[s.charCodeAt(i)] as number)) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[j++] = (acc >>> bits) & 0xff;
    }
  }
  return out;
}
