/**
 * The liabilities construction (docs/liabilities.md states it for re-implementers): a Merkle-sum tree over
 * SHA-256 whose nodes are records `hash (32 bytes) ‖ one u128 big-endian sum per asset`. A leaf's hash is
 * SHA-256(0x00 ‖ HMAC-SHA256(secret, id) ‖ u32be part ‖ u32be parts ‖ amounts); an inner node's hash is
 * SHA-256(0x01 ‖ left record ‖ right record), so it commits to both children's hashes and both children's
 * sums separately, and its own sums are left + right, checked against overflow.
 */
import { hash } from "node:crypto";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";

export const COMMITMENT_FORMAT = "chaingw-liabilities";
export const PROOF_FORMAT = "chaingw-liabilities-proof";
export const FORMAT_VERSION = 1;
/**
 * v1's tree, its root the tree's top hash: it binds each total by its asset's position, not its name or
 * decimals (read, never built: a relabelled asset table keeps the root)
 */
export const CONSTRUCTION = "merkle-sum-sha256/v1";
/** one Merkle-sum tree per asset over its holders' leaves only (docs/liabilities.md): sparse; read, never built */
export const CONSTRUCTION_V2 = "merkle-sum-sha256/v2";
/** v1's tree, the root announced over the asset table and the tree's top hash ({@link assetTableRoot}) */
export const CONSTRUCTION_V1_1 = "merkle-sum-sha256/v1.1";
/** v2's trees, the root announced over the asset table and the forest root ({@link assetTableRoot}) */
export const CONSTRUCTION_V2_1 = "merkle-sum-sha256/v2.1";
export type Construction =
  | typeof CONSTRUCTION
  | typeof CONSTRUCTION_V2
  | typeof CONSTRUCTION_V1_1
  | typeof CONSTRUCTION_V2_1;
export const CONSTRUCTIONS: readonly Construction[] = [
  CONSTRUCTION,
  CONSTRUCTION_V2,
  CONSTRUCTION_V1_1,
  CONSTRUCTION_V2_1,
];
/** a tree per asset (v2, v2.1), else one tree whose records carry every asset's sum (v1, v1.1) */
export const isForest = (c: Construction): c is typeof CONSTRUCTION_V2 | typeof CONSTRUCTION_V2_1 =>
  c === CONSTRUCTION_V2 || c === CONSTRUCTION_V2_1;
/** the announced root hashes the asset table (v1.1, v2.1): each total is bound to its asset's name and decimals */
export const bindsAssets = (c: Construction): boolean => c === CONSTRUCTION_V1_1 || c === CONSTRUCTION_V2_1;
/** the prefix of the announced root over the asset table (leaves 0x00, nodes 0x01, v2's forest 0x02) */
export const TABLE_PREFIX = 0x03;
/** a v2 record: hash ‖ one u128 sum */
export const RECORD_V2 = 32 + 16;
export const ROOT_PREFIX = 0x02;
/** bytes of one amount: unsigned, big-endian */
export const AMOUNT_BYTES = 16;
export const MAX_AMOUNT = (1n << 128n) - 1n;
export const LEAF_PREFIX = 0x00;
export const NODE_PREFIX = 0x01;
/** at most this many parts per customer (`--split`) */
export const MAX_SPLIT = 16;

/** The bytes of one node record for `assets` assets. */
export const recordBytes = (assets: number): number => 32 + assets * AMOUNT_BYTES;

/** HMAC-SHA256(secret, UTF-8 id): the tag a leaf carries instead of the id. */
export const tagOf = (secret: Uint8Array, id: Uint8Array): Uint8Array => hmac(sha256, secret, id);

/**
 * SHA-256 natively, one shot: node:crypto's hash() is ~2× createHash().update().digest() per call (measured
 * on this VM), and the build makes millions of calls over short messages.
 */
export const sha256Native = (data: Uint8Array): Buffer => hash("sha256", data, "buffer");

const IPAD = new Uint8Array(64);
const OPAD = new Uint8Array(96);

/** HMAC-SHA256 with a key of at most 64 bytes, as two native one-shot hashes (~1.5× createHmac's speed). */
export function hmacNative(key: Uint8Array, message: Uint8Array): Buffer {
  for (let i = 0; i < 64; i++) {
    const k = i < key.length ? key[i] : 0;
    IPAD[i] = k ^ 0x36;
    OPAD[i] = k ^ 0x5c;
  }
  const inner = Buffer.allocUnsafe(64 + message.length);
  inner.set(IPAD, 0);
  inner.set(message, 64);
  OPAD.set(sha256Native(inner), 64);
  return sha256Native(OPAD);
}

/** Writes the 16-byte big-endian form of `v` (0 ≤ v < 2^128) at `out[at..]`. */
export function putAmount(out: Uint8Array, at: number, v: bigint): void {
  if (v <= 0x1fffffffffffffn) {
    // the common case, without BigInt arithmetic: 9 zero bytes, then 7 bytes of a safe integer
    let n = Number(v);
    for (let i = AMOUNT_BYTES - 1; i >= 9; i--) {
      out[at + i] = n % 256;
      n = Math.floor(n / 256);
    }
    out.fill(0, at, at + 9);
    return;
  }
  const h = v.toString(16).padStart(32, "0");
  for (let i = 0; i < AMOUNT_BYTES; i++) out[at + i] = Number.parseInt(h.slice(2 * i, 2 * i + 2), 16);
}

/** The amount stored big-endian at `buf[at..at+16]`. */
export function getAmount(buf: Uint8Array, at: number): bigint {
  let high = 0;
  for (let i = 0; i < 9; i++) high |= buf[at + i];
  if (high === 0 && buf[at + 9] < 0x20) {
    // below 2^53: exact as a Number
    let n = 0;
    for (let i = 9; i < AMOUNT_BYTES; i++) n = n * 256 + buf[at + i];
    return BigInt(n);
  }
  let hex = "";
  for (let i = 0; i < AMOUNT_BYTES; i++) hex += buf[at + i].toString(16).padStart(2, "0");
  return BigInt(`0x${hex}`);
}

/** out[o..o+16] = a[ao..] + b[bo..] (big-endian u128); false when the sum overflows 128 bits. */
export function addAmount(
  out: Uint8Array,
  o: number,
  a: Uint8Array,
  ao: number,
  b: Uint8Array,
  bo: number,
): boolean {
  let carry = 0;
  for (let i = AMOUNT_BYTES - 1; i >= 0; i--) {
    const s = a[ao + i] + b[bo + i] + carry;
    out[o + i] = s & 0xff;
    carry = s >> 8;
  }
  return carry === 0;
}

/** The leaf hash input: 0x00 ‖ tag ‖ u32be part ‖ u32be parts ‖ amounts (A × 16 bytes). */
export function leafInput(tag: Uint8Array, part: number, parts: number, amounts: Uint8Array): Uint8Array {
  const b = new Uint8Array(1 + 32 + 8 + amounts.length);
  b[0] = LEAF_PREFIX;
  b.set(tag, 1);
  const v = new DataView(b.buffer);
  v.setUint32(33, part);
  v.setUint32(37, parts);
  b.set(amounts, 41);
  return b;
}

/** A v2 leaf's hash input: 0x00 ‖ tag ‖ u32be asset ‖ u32be part ‖ u32be parts ‖ u128 amount. */
export function leafInputV2(tag: Uint8Array, asset: number, part: number, parts: number, amount: Uint8Array) {
  const b = new Uint8Array(1 + 32 + 12 + AMOUNT_BYTES);
  b[0] = LEAF_PREFIX;
  b.set(tag, 1);
  const v = new DataView(b.buffer);
  v.setUint32(33, asset);
  v.setUint32(37, part);
  v.setUint32(41, parts);
  b.set(amount, 45);
  return b;
}

/**
 * A v2 commitment's root over its trees: SHA-256(0x02 ‖ per asset in order: u32be height ‖ the tree's root
 * hash ‖ u128 its sum).
 */
export function forestRoot(trees: { height: number; root: Uint8Array; total: bigint }[]): Uint8Array {
  const b = new Uint8Array(1 + trees.length * (4 + 32 + AMOUNT_BYTES));
  b[0] = ROOT_PREFIX;
  const v = new DataView(b.buffer);
  trees.forEach((t, a) => {
    const at = 1 + a * (4 + 32 + AMOUNT_BYTES);
    v.setUint32(at, t.height);
    b.set(t.root.subarray(0, 32), at + 4);
    putAmount(b, at + 36, t.total);
  });
  return sha256Native(b);
}

/**
 * v1.1 and v2.1's announced root: SHA-256(0x03 ‖ u32be A ‖ per asset in order: u8 the name's byte length ‖ the
 * name (ASCII) ‖ u8 its decimals ‖ `inner`, 32 bytes: v1.1's tree top hash, v2.1's forest root). Every name is
 * length-prefixed and the count leads, so no two tables encode alike; the root binds each total (by position,
 * under `inner`) to its asset's exact name and decimals.
 */
export function assetTableRoot(
  assets: readonly { asset: string; decimals: number }[],
  inner: Uint8Array,
): Uint8Array {
  const names = assets.map((a) => Buffer.from(a.asset, "utf8"));
  const b = new Uint8Array(1 + 4 + names.reduce((n, x) => n + 2 + x.length, 0) + 32);
  b[0] = TABLE_PREFIX;
  new DataView(b.buffer).setUint32(1, assets.length);
  let at = 5;
  names.forEach((x, a) => {
    const d = assets[a].decimals;
    if (x.length < 1 || x.length > 255 || !Number.isInteger(d) || d < 0 || d > 255)
      throw new Error("an asset name of 1 to 255 bytes, decimals 0 to 255");
    b[at++] = x.length;
    b.set(x, at);
    at += x.length;
    b[at++] = d;
  });
  b.set(inner.subarray(0, 32), at);
  return sha256Native(b);
}

export const leafHash = (tag: Uint8Array, part: number, parts: number, amounts: Uint8Array): Uint8Array =>
  sha256(leafInput(tag, part, parts, amounts));

/**
 * The parent of two records: its hash over 0x01 ‖ left ‖ right, its sums left + right. Returns undefined when
 * a sum overflows 128 bits.
 */
export function parentOf(left: Uint8Array, right: Uint8Array, assets: number): Uint8Array | undefined {
  const r = recordBytes(assets);
  const input = new Uint8Array(1 + 2 * r);
  input[0] = NODE_PREFIX;
  input.set(left, 1);
  input.set(right, 1 + r);
  const out = new Uint8Array(r);
  out.set(sha256(input), 0);
  for (let a = 0; a < assets; a++) {
    const at = 32 + a * AMOUNT_BYTES;
    if (!addAmount(out, at, left, at, right, at)) return undefined;
  }
  return out;
}

/** FNV-1a (32 bits) over bytes: the customers index's hash of an id (not a security property). */
export function fnv1a(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i];
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export const hex = (b: Uint8Array): string =>
  Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
