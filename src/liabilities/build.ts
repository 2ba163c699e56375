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

import { createHash, createHmac } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../errors/index.js";
import { type Commitment, makeCommitment } from "./commitment.js";
import {
  AMOUNT_BYTES,
  addAmount,
  getAmount,
  LEAF_PREFIX,
  MAX_SPLIT,
  NODE_PREFIX,
  putAmount,
  recordBytes,
} from "./format.js";
import { type Ledger, readAssets, readLedger } from "./input.js";
import { below, cryptoRandom, type RandomSource, upTo } from "./random.js";
import {
  COMMITMENT_FILE,
  CUSTOMERS_FILE,
  INDEX_FILE,
  TREE_FILE,
  writeIndex,
  writeTreeHeader,
} from "./store.js";

export interface BuildOptions {
  /** the balances CSV: customer_id,asset,amount */
  input: string;
  /** the assets CSV: asset,decimals */
  assets: string;
  /** the directory the build is written to (created; must not hold a build already) */
  out: string;
  /** leaves per customer @default 2 */
  split?: number;
  label?: string;
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

export async function buildLiabilities(o: BuildOptions): Promise<BuildResult> {
  const k = o.split ?? 2;
  if (!Number.isInteger(k) || k < 1 || k > MAX_SPLIT)
    throw new UsageError(`--split ${o.split}: a whole number of leaves per customer from 1 to ${MAX_SPLIT}`);
  if (existsSync(join(o.out, COMMITMENT_FILE)))
    throw new UsageError(`--out ${o.out} already holds a build (${COMMITMENT_FILE}): name a new directory`);
  const assets = readAssets(o.assets);
  const ledger = await readLedger(o.input, assets);
  const random = o.random ?? cryptoRandom();

  const A = assets.length;
  const R = recordBytes(A);
  const real = ledger.count * k;
  let height = 1;
  while (2 ** height < real) height++;
  if (height > 31) throw new UsageError(`${ledger.count} customers × ${k} leaves: more than 2^31 leaves`);
  const L = 2 ** height;

  // 2. slot s < real is customer ⌊s/k⌋'s part s mod k; slots past real are padding. perm[s] is its leaf.
  const perm = new Uint32Array(L);
  for (let i = 0; i < L; i++) perm[i] = i;
  for (let i = L - 1; i > 0; i--) {
    const j = below(random, i + 1);
    const t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }

  // 3. the leaves
  const leaves = new Uint8Array(L * R);
  const secrets = new Uint8Array(ledger.count * 32);
  const input = new Uint8Array(1 + 32 + 8 + A * AMOUNT_BYTES);
  const view = new DataView(input.buffer);
  input[0] = LEAF_PREFIX;
  const hashLeaf = (leaf: number, tag: Uint8Array, part: number) => {
    const at = leaf * R;
    input.set(tag, 1);
    view.setUint32(33, part);
    view.setUint32(37, k);
    input.set(leaves.subarray(at + 32, at + R), 41);
    leaves.set(createHash("sha256").update(input).digest(), at);
  };
  const cuts: bigint[] = new Array(k);
  for (let c = 0; c < ledger.count; c++) {
    const secret = secrets.subarray(c * 32, c * 32 + 32);
    random(secret);
    // HMAC-SHA256(secret, id) (tagOf), natively: the build makes a million of them
    const tag = createHmac("sha256", secret)
      .update(ledger.ids.subarray(c === 0 ? 0 : ledger.idEnd[c - 1], ledger.idEnd[c]))
      .digest();
    for (let a = 0; a < A; a++) splitInto(ledger, c, a, k, perm, leaves, R, random, cuts);
    for (let j = 0; j < k; j++) hashLeaf(perm[c * k + j], tag, j);
  }
  const padTag = new Uint8Array(32);
  for (let s = real; s < L; s++) {
    random(padTag);
    hashLeaf(perm[s], padTag, 0);
  }

  // 4. the tree file: header, then level 0 (the leaves) up to the root
  mkdirSync(o.out, { recursive: true });
  const tmp = (name: string) => join(o.out, `.${name}.tmp`);
  const written: string[] = [];
  try {
    const fd = openSync(tmp(TREE_FILE), "w");
    written.push(TREE_FILE);
    let treeBytes = 0;
    let rootRecord: Uint8Array;
    try {
      treeBytes += writeSync(fd, writeTreeHeader(A, height));
      treeBytes += writeAll(fd, leaves);
      let level = leaves;
      const node = new Uint8Array(1 + 2 * R);
      node[0] = NODE_PREFIX;
      for (let h = 1; h <= height; h++) {
        const m = level.length / R / 2;
        const up = new Uint8Array(m * R);
        for (let p = 0; p < m; p++) {
          const l = 2 * p * R;
          node.set(level.subarray(l, l + 2 * R), 1);
          up.set(createHash("sha256").update(node).digest(), p * R);
          for (let a = 0; a < A; a++) {
            const at = 32 + a * AMOUNT_BYTES;
            // the totals were checked below 2^128 on input: no inner sum can exceed them
            if (!addAmount(up, p * R + at, level, l + at, level, l + R + at)) throw new Error("sum overflow");
          }
        }
        treeBytes += writeAll(fd, up);
        level = up;
      }
      rootRecord = level;
    } finally {
      closeSync(fd);
    }

    // 5. customers file and index, then the commitment
    const offsets = writeCustomers(tmp(CUSTOMERS_FILE), ledger, secrets, perm, k);
    written.push(CUSTOMERS_FILE);
    writeIndex(tmp(INDEX_FILE), ledger, offsets);
    written.push(INDEX_FILE);
    for (let a = 0; a < A; a++)
      if (getAmount(rootRecord, 32 + a * AMOUNT_BYTES) !== ledger.totals[a])
        throw new Error("root sum ≠ total");
    const commitment = makeCommitment({
      assets,
      totals: ledger.totals,
      leaves: L,
      height,
      root: Buffer.from(rootRecord.subarray(0, 32)).toString("hex"),
      created: o.now ?? new Date(),
      label: o.label,
    });
    const fdc = openSync(tmp(COMMITMENT_FILE), "w");
    written.push(COMMITMENT_FILE);
    writeSync(fdc, JSON.stringify(commitment, null, 2) + "\n");
    closeSync(fdc);
    for (const f of written) renameSync(tmp(f), join(o.out, f));
    return {
      commitment,
      customers: ledger.count,
      realLeaves: real,
      files: {
        commitment: join(o.out, COMMITMENT_FILE),
        customers: join(o.out, CUSTOMERS_FILE),
        index: join(o.out, INDEX_FILE),
        tree: join(o.out, TREE_FILE),
      },
      treeBytes,
    };
  } catch (e) {
    for (const f of written) rmSync(tmp(f), { force: true });
    throw e;
  }
}

function writeAll(fd: number, b: Uint8Array): number {
  let at = 0;
  while (at < b.length) at += writeSync(fd, b, at, Math.min(b.length - at, 1 << 24));
  return b.length;
}

/** Customer c's amount of asset a split at random across its k leaves (k - 1 uniform cut points in [0, x]). */
function splitInto(
  ledger: Ledger,
  c: number,
  a: number,
  k: number,
  perm: Uint32Array,
  leaves: Uint8Array,
  R: number,
  random: RandomSource,
  cuts: bigint[],
): void {
  const A = ledger.assets.length;
  const src = (c * A + a) * AMOUNT_BYTES;
  const off = 32 + a * AMOUNT_BYTES;
  let zero = true;
  for (let i = 0; i < AMOUNT_BYTES; i++) if (ledger.amounts[src + i] !== 0) zero = false;
  if (zero) return; // leaves start zeroed
  if (k === 1) {
    leaves.set(ledger.amounts.subarray(src, src + AMOUNT_BYTES), perm[c * k] * R + off);
    return;
  }
  const x = getAmount(ledger.amounts, src);
  for (let j = 0; j < k - 1; j++) cuts[j] = upTo(random, x);
  cuts[k - 1] = x;
  const sorted = cuts.slice(0, k - 1).sort((p, q) => (p < q ? -1 : p > q ? 1 : 0));
  sorted.push(x);
  let prev = 0n;
  for (let j = 0; j < k; j++) {
    putAmount(leaves, perm[c * k + j] * R + off, sorted[j] - prev);
    prev = sorted[j];
  }
}

/** The private customers file: a header, then `id,secret,leaf leaf…` per customer; returns each line's offset. */
function writeCustomers(file: string, ledger: Ledger, secrets: Uint8Array, perm: Uint32Array, k: number) {
  const fd = openSync(file, "w", 0o600);
  const offsets = new Float64Array(ledger.count);
  try {
    let pos = 0;
    let chunk = "customer_id,secret,leaves\n";
    const flush = () => {
      pos += writeSync(fd, chunk);
      chunk = "";
    };
    let chunkBytes = Buffer.byteLength(chunk);
    for (let c = 0; c < ledger.count; c++) {
      offsets[c] = pos + chunkBytes;
      const id = Buffer.from(
        ledger.ids.subarray(c === 0 ? 0 : ledger.idEnd[c - 1], ledger.idEnd[c]),
      ).toString("utf8");
      let line = `${id},${Buffer.from(secrets.subarray(c * 32, c * 32 + 32)).toString("hex")},`;
      for (let j = 0; j < k; j++) line += (j ? " " : "") + perm[c * k + j];
      line += "\n";
      chunk += line;
      chunkBytes += Buffer.byteLength(line);
      if (chunkBytes > 1 << 20) {
        flush();
        chunkBytes = 0;
      }
    }
    flush();
  } finally {
    closeSync(fd);
  }
  return offsets;
}
