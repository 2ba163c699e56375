/**
 * One customer's leaves (and a padding leaf), the same in the in-memory and the streamed build: the
 * customer's secret and tag, each balance split at random across k parts, each part's leaf record and place
 * key, all derived from the build key (derive.ts) and the id — so the order customers come in changes
 * nothing.
 */
import { customerSeed, KEY_BYTES, paddingSeed, seedStream } from "./derive.js";
import {
  AMOUNT_BYTES,
  getAmount,
  hmacNative,
  LEAF_PREFIX,
  putAmount,
  recordBytes,
  sha256Native,
} from "./format.js";
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
      if (k === 1) {
        records.set(amounts.subarray(src, src + AMOUNT_BYTES), off);
        continue;
      }
      const x = getAmount(amounts, src);
      const cuts = this.cuts;
      for (let j = 0; j < k - 1; j++) cuts[j] = upTo(random, x);
      const sorted = cuts.slice(0, k - 1).sort((p, q) => (p < q ? -1 : p > q ? 1 : 0));
      sorted.push(x);
      let prev = 0n;
      for (let j = 0; j < k; j++) {
        putAmount(records, j * R + off, sorted[j] - prev);
        prev = sorted[j];
      }
    }
    random(this.keys);
    for (let j = 0; j < k; j++) this.hashLeaf(j * R, tag, j);
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
}
