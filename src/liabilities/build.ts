/**
 * `liabilities build`: the balances export in, a committed Merkle-sum tree out (commitment.json, the private
 * customers file and its index, the tree file). Options in, data out; it never prints.
 *
 * 1. read the assets table and the balances (streamed, typed arrays; refused with line numbers before
 *    anything is written);
 * 2. deal the customers' k parts and the zero padding leaves into a random permutation of 2^h slots;
 * 3. per customer: a fresh 32-byte secret, the tag HMAC-SHA256(secret, id), each balance split at random
 *    across k parts, each part a leaf;
 * 4. hash level by level to the root, writing each level to the tree file as it is done;
 * 5. the customers file (id, secret, leaf indices) with a hashed index, then commitment.json; files are
 *    written under temporary names and renamed only when all are complete.
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../errors/index.js";
import type { AtomicFile } from "../util/atomic.js";
import { formulaSafe } from "../util/csv.js";
import { type Commitment, makeCommitment } from "./commitment.js";
import { compareKeys, KEY_BYTES } from "./derive.js";
import {
  AMOUNT_BYTES,
  addAmount,
  getAmount,
  MAX_SPLIT,
  NODE_PREFIX,
  recordBytes,
  sha256Native,
} from "./format.js";
import { type Asset, denseAmounts, type Ledger, readAssets, readLedger } from "./input.js";
import { LeafMaker } from "./leaves.js";
import { cryptoRandom, type RandomSource } from "./random.js";
import { BuildFiles, buildFiles, COMMITMENT_FILE, writeIndex, writeTreeHeader } from "./store.js";

export interface BuildOptions {
  /** the balances CSV: customer_id,asset,amount */
  input: string;
  /** the assets CSV: asset,decimals */
  assets: string;
  /** the directory the build is written to (created; must not hold a build already) */
  out: string;
  /** leaves per customer @default 2 */
  split?: number;
  /**
   * 1: merkle-sum-sha256/v1.1, one tree, every record every asset's sum (the in-memory build makes only it);
   * 2: merkle-sum-sha256/v2.1, a tree per asset over its holders (the streamed build); both announce the root
   * over the asset table and the tree's top (v2.1: the forest root) @default 1
   */
  construction?: 1 | 2;
  label?: string;
  /** the audit's challenge, written into the commitment (under its digest) */
  challenge?: string;
  /** @default the CSPRNG; a fixed source only for the documented test vector */
  random?: RandomSource;
  /** @default now */
  now?: Date;
}

export interface BuildResult {
  commitment: Commitment;
  customers: number;
  /** real leaves before padding */
  realLeaves: number;
  files: { commitment: string; customers: string; index: string; tree: string };
  treeBytes: number;
}

/** The options both builds refuse before reading anything: --split's range, an --out that holds a build. */
export function splitOf(o: BuildOptions): number {
  const k = o.split ?? 2;
  if (!Number.isInteger(k) || k < 1 || k > MAX_SPLIT)
    throw new UsageError(`--split ${o.split}: a whole number of leaves per customer from 1 to ${MAX_SPLIT}`);
  if (existsSync(join(o.out, COMMITMENT_FILE)))
    throw new UsageError(`--out ${o.out} already holds a build (${COMMITMENT_FILE}): name a new directory`);
  return k;
}

/** The tree's height for `customers` × `k` leaves (at least 1), refused past 2^31 leaves. */
export function heightFor(customers: number, k: number): number {
  let height = 1;
  while (2 ** height < customers * k) height++;
  if (height > 31) throw new UsageError(`${customers} customers × ${k} leaves: more than 2^31 leaves`);
  return height;
}

/**
 * The commitment of a build whose root record, its two children's records and totals are known (the root's
 * sums checked first): v1 writes the children, so the root binds the totals from commitment.json alone.
 */
export function commitmentOf(
  o: BuildOptions,
  assets: Asset[],
  totals: bigint[],
  height: number,
  root: Uint8Array,
  children: [Uint8Array, Uint8Array],
): Commitment {
  for (let a = 0; a < assets.length; a++)
    if (getAmount(root, 32 + a * AMOUNT_BYTES) !== totals[a]) throw new Error("root sum ≠ total");
  return makeCommitment({
    assets,
    totals,
    leaves: 2 ** height,
    height,
    inner: Buffer.from(root.subarray(0, 32)).toString("hex"),
    created: o.now ?? new Date(),
    label: o.label,
    challenge: o.challenge,
    children,
  });
}

/** The build in memory: the oracle the tests hold the streamed build (stream.ts, what the CLI runs) to, and the test vector's maker. */
export async function buildLiabilities(o: BuildOptions): Promise<BuildResult> {
  if (o.construction === 2) throw new Error("the in-memory build makes merkle-sum-sha256/v1.1 only");
  const k = splitOf(o);
  const assets = readAssets(o.assets);
  const ledger = await readLedger(o.input, assets);
  const A = assets.length;
  const height = heightFor(ledger.count, k);
  const { leaves, perm, secrets } = placeLeaves(ledger, A, k, 2 ** height, o.random ?? cryptoRandom());
  const files = new BuildFiles(o.out);
  try {
    const { root, children, treeBytes } = writeTree(files.tree, leaves, A, height);
    const offsets = writeCustomers(files.customers, ledger, secrets, perm, k);
    writeIndex(files.index, ledger, offsets);
    const commitment = commitmentOf(o, assets, ledger.totals, height, root, children);
    files.commitment.write(JSON.stringify(commitment, null, 2) + "\n");
    files.commit();
    return {
      commitment,
      customers: ledger.count,
      realLeaves: ledger.count * k,
      files: buildFiles(o.out),
      treeBytes,
    };
  } finally {
    files.discard();
  }
}

/**
 * 2-3. Slot s < real is customer ⌊s/k⌋'s part s mod k; slots past real are padding. Each slot's leaf record
 * and place key come from the build key (derive.ts); sorting the keys places the leaves. `perm[s]`: slot s's
 * leaf index.
 */
function placeLeaves(ledger: Ledger, A: number, k: number, L: number, random: RandomSource) {
  const R = recordBytes(A);
  const real = ledger.count * k;
  const buildKey = new Uint8Array(32);
  random(buildKey);
  const maker = new LeafMaker(A, k, buildKey);
  const keys = new Uint8Array(L * KEY_BYTES);
  const slots = new Uint8Array(L * R);
  const secrets = new Uint8Array(ledger.count * 32);
  const amounts = new Uint8Array(A * AMOUNT_BYTES);
  for (let c = 0; c < ledger.count; c++) {
    denseAmounts(ledger, c, amounts);
    maker.customer(ledger.ids.subarray(c === 0 ? 0 : ledger.idEnd[c - 1], ledger.idEnd[c]), amounts, 0);
    secrets.set(maker.secret, c * 32);
    keys.set(maker.keys, c * k * KEY_BYTES);
    slots.set(maker.records, c * k * R);
  }
  for (let s = real; s < L; s++) {
    maker.padding(s - real);
    keys.set(maker.keys.subarray(0, KEY_BYTES), s * KEY_BYTES);
    slots.set(maker.records.subarray(0, R), s * R);
  }
  const order = new Uint32Array(L);
  for (let i = 0; i < L; i++) order[i] = i;
  order.sort((a, b) => compareKeys(keys, a * KEY_BYTES, keys, b * KEY_BYTES));
  const perm = new Uint32Array(L);
  const leaves = new Uint8Array(L * R);
  for (let i = 0; i < L; i++) {
    perm[order[i]] = i;
    leaves.set(slots.subarray(order[i] * R, order[i] * R + R), i * R);
  }
  return { leaves, perm, secrets };
}

/** 4. The tree file: header, then level 0 (the leaves) up to the root; gives the root's record and its two children's. */
function writeTree(file: AtomicFile, leaves: Uint8Array, A: number, height: number) {
  const R = recordBytes(A);
  let treeBytes = file.write(writeTreeHeader(A, height));
  treeBytes += file.write(leaves);
  let level = leaves;
  let children: [Uint8Array, Uint8Array] = [leaves.subarray(0, R), leaves.subarray(R, 2 * R)];
  const node = new Uint8Array(1 + 2 * R);
  node[0] = NODE_PREFIX;
  for (let h = 1; h <= height; h++) {
    children = [level.subarray(0, R), level.subarray(R, 2 * R)];
    const m = level.length / R / 2;
    const up = new Uint8Array(m * R);
    for (let p = 0; p < m; p++) {
      const l = 2 * p * R;
      node.set(level.subarray(l, l + 2 * R), 1);
      up.set(sha256Native(node), p * R);
      for (let a = 0; a < A; a++) {
        const at = 32 + a * AMOUNT_BYTES;
        // the totals were checked below 2^128 on input: no inner sum can exceed them
        if (!addAmount(up, p * R + at, level, l + at, level, l + R + at)) throw new Error("sum overflow");
      }
    }
    treeBytes += file.write(up);
    level = up;
  }
  return { root: level, children, treeBytes };
}

/** 5. The private customers file: a header, then `id,secret,leaf leaf…` per customer; returns each line's offset. */
function writeCustomers(file: AtomicFile, ledger: Ledger, secrets: Uint8Array, perm: Uint32Array, k: number) {
  const offsets = new Float64Array(ledger.count);
  const lines = new CustomerLines(file);
  for (let c = 0; c < ledger.count; c++) {
    offsets[c] = lines.offset;
    const id = ledger.ids.subarray(c === 0 ? 0 : ledger.idEnd[c - 1], ledger.idEnd[c]);
    lines.add(id, secrets.subarray(c * 32, c * 32 + 32), perm.subarray(c * k, c * k + k));
  }
  lines.flush();
  return offsets;
}

/** The customers file's lines, written in chunks of about 1 MiB; `offset` is the next line's. */
export class CustomerLines {
  private chunk = "customer_id,secret,leaves\n";
  private chunkBytes = Buffer.byteLength(this.chunk);
  private written = 0;
  constructor(private readonly file: AtomicFile) {}
  get offset(): number {
    return this.written + this.chunkBytes;
  }
  /**
   * v1: the leaves `i i …` (part 0 first); v2 (`held`: the assets held, in order, each `leaves.length /
   * held.length` leaves): `a:i/i a:i/i …`, each asset's index, then its parts' leaf indices in its tree.
   */
  add(id: Uint8Array, secret: Uint8Array, leaves: ArrayLike<number>, held?: number[]): void {
    let line = `${formulaSafe(Buffer.from(id).toString("utf8"))},${Buffer.from(secret).toString("hex")},`;
    const k = held ? leaves.length / held.length : leaves.length;
    for (let j = 0; j < leaves.length; j++)
      line += held
        ? `${j % k ? "/" : `${j ? " " : ""}${held[j / k]}:`}${leaves[j]}`
        : (j ? " " : "") + leaves[j];
    line += "\n";
    this.chunk += line;
    this.chunkBytes += Buffer.byteLength(line);
    if (this.chunkBytes > 1 << 20) this.flush();
  }
  flush(): void {
    this.written += this.file.write(this.chunk);
    this.chunk = "";
    this.chunkBytes = 0;
  }
}
