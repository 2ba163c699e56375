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

import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../errors/index.js";
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
import { type Ledger, readAssets, readLedger } from "./input.js";
import { LeafMaker } from "./leaves.js";
import { cryptoRandom, type RandomSource } from "./random.js";
import {
  buildFiles,
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

  // 2-3. slot s < real is customer ⌊s/k⌋'s part s mod k; slots past real are padding. Each slot's leaf record
  // and place key come from the build key (derive.ts); sorting the keys places the leaves.
  const buildKey = new Uint8Array(32);
  random(buildKey);
  const maker = new LeafMaker(A, k, buildKey);
  const keys = new Uint8Array(L * KEY_BYTES);
  const slots = new Uint8Array(L * R);
  const secrets = new Uint8Array(ledger.count * 32);
  for (let c = 0; c < ledger.count; c++) {
    maker.customer(
      ledger.ids.subarray(c === 0 ? 0 : ledger.idEnd[c - 1], ledger.idEnd[c]),
      ledger.amounts,
      c * A * AMOUNT_BYTES,
    );
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
  // perm[s]: slot s's leaf index
  const perm = new Uint32Array(L);
  const leaves = new Uint8Array(L * R);
  for (let i = 0; i < L; i++) {
    perm[order[i]] = i;
    leaves.set(slots.subarray(order[i] * R, order[i] * R + R), i * R);
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
          up.set(sha256Native(node), p * R);
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
      challenge: o.challenge,
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
      files: buildFiles(o.out),
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
      let line = `${formulaSafe(id)},${Buffer.from(secrets.subarray(c * 32, c * 32 + 32)).toString("hex")},`;
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
