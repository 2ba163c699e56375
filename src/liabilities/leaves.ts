/**
 * One customer's leaves (and a padding leaf), the same in the in-memory and the streamed build: the
 * customer's secret and tag, each balance split at random across k parts, each part's leaf record and place
 * key, all derived from the build key (derive.ts) and the id — so the order customers come in changes
 * nothing.
 */
import { customerSeed, KEY_BYTES, paddingSeed, paddingSeedV2, seedStream } from "./derive.js";
import {
  AMOUNT_BYTES,
  getAmount,
  hmacNative,
  LEAF_PREFIX,
  putAmount,
  RECORD_V2,
  recordBytes,
  sha256Native,
} from "./format.js";
import type { RandomSource } from "./random.js";
import { upTo } from "./random.js";

export class LeafMaker {
  readonly R: number;
  /** the last customer's (or padding leaf's) place keys, KEY_BYTES each, part 0 first */
  readonly keys: Uint8Array;
  /** the last customer's (or padding leaf's) leaf records, R bytes each, part 0 first */
  readonly records: Uint8Array;
  /** the last customer's secret */
  readonly secret = new Uint8Array(32);
  private readonly input: Uint8Array;
  private readonly view: DataView;
  private readonly cuts: bigint[];

  constructor(
    readonly assets: number,
    readonly k: number,
    private readonly key: Uint8Array,
  ) {
    this.R = recordBytes(assets);
    this.keys = new Uint8Array(k * KEY_BYTES);
    this.records = new Uint8Array(k * this.R);
    this.input = new Uint8Array(1 + 32 + 8 + assets * AMOUNT_BYTES);
    this.input[0] = LEAF_PREFIX;
    this.view = new DataView(this.input.buffer);
    this.cuts = new Array(k);
  }

  /** Customer `id` holding `amounts[at..]` (A big-endian u128s): fills secret, keys and records. */
  customer(id: Uint8Array, amounts: Uint8Array, at: number): void {
    const { assets: A, k, R, records } = this;
    const random = seedStream(customerSeed(this.key, id));
    random(this.secret);
    // HMAC-SHA256(secret, id) (tagOf), natively
    const tag = hmacNative(this.secret, id);
    records.fill(0);
    for (let a = 0; a < A; a++) {
      const src = at + a * AMOUNT_BYTES;
      const off = 32 + a * AMOUNT_BYTES;
      let zero = true;
      for (let i = 0; i < AMOUNT_BYTES; i++) if (amounts[src + i] !== 0) zero = false;
      if (zero) continue;
      this.split(random, amounts, src, records, off, R);
    }
    random(this.keys);
    for (let j = 0; j < k; j++) this.hashLeaf(j * R, tag, j);
  }

  /**
   * The one split of an amount into the customer's k parts, both constructions: the amount at
   * `amounts[src..]` whole into part 0 when k is 1, else k−1 cuts drawn from the seed stream, sorted, and
   * the differences written at `records[first + j × stride]`.
   */
  private split(
    random: RandomSource,
    amounts: Uint8Array,
    src: number,
    records: Uint8Array,
    first: number,
    stride: number,
  ): void {
    const { k, cuts } = this;
    if (k === 1) {
      records.set(amounts.subarray(src, src + AMOUNT_BYTES), first);
      return;
    }
    const x = getAmount(amounts, src);
    for (let j = 0; j < k - 1; j++) cuts[j] = upTo(random, x);
    const sorted = cuts.slice(0, k - 1).sort((p, q) => (p < q ? -1 : p > q ? 1 : 0));
    sorted.push(x);
    let prev = 0n;
    for (let j = 0; j < k; j++) {
      putAmount(records, first + j * stride, sorted[j] - prev);
      prev = sorted[j];
    }
  }

  /** Padding leaf `p`: its record (sums zero, tag r from the seed) in records[0..R], its key in keys[0..16]. */
  padding(p: number): void {
    const random = seedStream(paddingSeed(this.key, p));
    const r = new Uint8Array(32);
    random(r);
    this.records.fill(0, 0, this.R);
    random(this.keys.subarray(0, KEY_BYTES));
    this.hashLeaf(0, r, 0);
  }

  private hashLeaf(at: number, tag: Uint8Array, part: number): void {
    const { input, view, records, R } = this;
    input.set(tag, 1);
    view.setUint32(33, part);
    view.setUint32(37, this.k);
    input.set(records.subarray(at + 32, at + R), 41);
    records.set(sha256Native(input), at);
  }

  /**
   * v2: customer `id` holding `held[h]` (asset indices, ascending, amounts not zero) of amounts
   * `amounts[h × 16 ..]`: fills secret, and per held asset and part (asset-major) a 16-byte place key in
   * `keys` and a 48-byte leaf record (hash ‖ the part's amount) in `records`. The seed stream is read as in
   * v1: the secret, each held asset's k−1 cuts, then the place keys.
   */
  customerV2(
    id: Uint8Array,
    held: ArrayLike<number>,
    amounts: Uint8Array,
  ): { keys: Uint8Array; records: Uint8Array } {
    const { k } = this;
    const h = held.length;
    if (this.wideKeys.length < h * k * KEY_BYTES) {
      this.wideKeys = new Uint8Array(h * k * KEY_BYTES * 2);
      this.wideRecords = new Uint8Array(h * k * RECORD_V2 * 2);
    }
    const keys = this.wideKeys.subarray(0, h * k * KEY_BYTES);
    const records = this.wideRecords.subarray(0, h * k * RECORD_V2);
    const random = seedStream(customerSeed(this.key, id));
    random(this.secret);
    const tag = hmacNative(this.secret, id);
    records.fill(0);
    for (let i = 0; i < h; i++) {
      const src = i * AMOUNT_BYTES;
      this.split(random, amounts, src, records, i * k * RECORD_V2 + 32, RECORD_V2);
    }
    random(keys);
    const input = this.inputV2;
    input.set(tag, 1);
    for (let i = 0; i < h; i++)
      for (let j = 0; j < k; j++) {
        const at = (i * k + j) * RECORD_V2;
        this.hashV2(records, at, held[i], j);
      }
    return { keys, records };
  }

  /** v2: padding leaf `p` of asset `a`'s tree: its record (sum zero, tag r) in records[0..48], its key. */
  paddingV2(a: number, p: number): void {
    const random = seedStream(paddingSeedV2(this.key, a, p));
    const r = new Uint8Array(32);
    random(r);
    this.records.fill(0, 0, RECORD_V2);
    random(this.keys.subarray(0, KEY_BYTES));
    this.inputV2.set(r, 1);
    this.hashV2(this.records, 0, a, 0);
  }

  private wideKeys = new Uint8Array(0);
  private wideRecords = new Uint8Array(0);
  private readonly inputV2 = (() => {
    const b = new Uint8Array(1 + 32 + 12 + AMOUNT_BYTES);
    b[0] = LEAF_PREFIX;
    return b;
  })();

  /** records[at..at+48]: the hash of 0x00 ‖ tag (already in the input) ‖ asset ‖ part ‖ k ‖ its amount. */
  private hashV2(records: Uint8Array, at: number, asset: number, part: number): void {
    const b = this.inputV2;
    const v = new DataView(b.buffer);
    v.setUint32(33, asset);
    v.setUint32(37, part);
    v.setUint32(41, this.k);
    b.set(records.subarray(at + 32, at + RECORD_V2), 45);
    records.set(sha256Native(b), at);
  }
}
