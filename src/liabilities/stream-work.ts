/**
 * The streamed build's work, done in worker threads (worker.ts) or in-process: one worker's state across
 * its tasks. A task never holds more than one bucket.
 *
 * Files in the work directory (all removed when the build ends):
 *   in-P-B.bin      rows of the input's part P in input bucket B: u32be line in the part ‖ u32be asset ‖ u8 P ‖
 *                   u8 0 ‖ u16be id bytes ‖ u128 amount ‖ id (one part, P = 0, when the main thread reads the
 *                   input); the asset's index as wide as the assets table's (MAX_ASSETS)
 *   place-W-B.bin   leaves worker W placed in place bucket B (the key's top bits):
 *                   key (16) ‖ u8 W (255: padding) ‖ u8 part ‖ u16 0 ‖ u32be customer number in W ‖ record
 *   cust-W.bin      worker W's customers in number order: u16be id bytes ‖ id ‖ secret (32)
 *   slot-T-W-Q.bin  leaf indices subtree worker T found for worker W's customers Q·range…: u32be number ‖
 *                   u32be part ‖ u32be leaf index
 */
import { closeSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { KEY_BYTES } from "./derive.js";
import { AMOUNT_BYTES, fnv1a, recordBytes } from "./format.js";
import type { Asset } from "./input.js";
import { balanceRow, denseAmounts, LedgerBuilder } from "./input.js";
import { LeafMaker } from "./leaves.js";
import { BucketReader, BucketWriter, LevelWriter, writeAll } from "./spill.js";

export const IN_HEAD = 28;
export const PLACE_HEAD = 24;
export const PADDING_WORKER = 255;
export const TREE_HEADER = 32;
/** Customer number ranges of the slot files: 2^20 customers (× k × 4 bytes of leaf indices in memory). */
export const SLOT_RANGE = 1 << 20;

export interface WorkSetup {
  dir: string;
  /** this worker's number */
  w: number;
  assets: Asset[];
  k: number;
  key: Uint8Array;
  /** place buckets: the key's top placeBits bits */
  placeBits: number;
  /** per part of the input: the lines before it (a row's line = its part's base + its line in the part) */
  lineBase: number[];
  /** the bytes the place buckets' write buffers may take together */
  writerBudget: number;
}

export const inFile = (dir: string, part: number, b: number) => join(dir, `in-${part}-${b}.bin`);
export const placeFile = (dir: string, w: number, b: number) => join(dir, `place-${w}-${b}.bin`);
export const custFile = (dir: string, w: number) => join(dir, `cust-${w}.bin`);
export const slotFile = (dir: string, t: number, w: number, q: number) =>
  join(dir, `slot-${t}-${w}-${q}.bin`);

/** Place bucket of the key at `buf[at..]`. */
export const placeBucket = (buf: Uint8Array, at: number, bits: number): number =>
  bits === 0 ? 0 : ((buf[at] << 24) | (buf[at + 1] << 16) | (buf[at + 2] << 8) | buf[at + 3]) >>> (32 - bits);

/** One worker's part of phases B (customers' leaves) and B' (padding leaves). */
export class LeafWork {
  private readonly maker: LeafMaker;
  private readonly place: BucketWriter;
  private readonly cust: number;
  private readonly R: number;
  private readonly reader = new BucketReader();
  private ledger: LedgerBuilder;
  /** one customer's amounts, every asset (v1's leaf records are dense) */
  private readonly dense: Uint8Array;
  /** customers numbered so far */
  customers = 0;

  constructor(private readonly s: WorkSetup) {
    this.maker = new LeafMaker(s.assets.length, s.k, s.key);
    this.R = recordBytes(s.assets.length);
    this.place = new BucketWriter(2 ** s.placeBits, (b) => placeFile(s.dir, s.w, b), s.writerBudget);
    this.cust = openSync(custFile(s.dir, s.w), "a", 0o600);
    this.ledger = new LedgerBuilder(s.assets);
    this.dense = new Uint8Array(s.assets.length * AMOUNT_BYTES);
  }

  private emit(w: number, j: number, q: number, key: Uint8Array, ko: number, rec: Uint8Array, ro: number) {
    const E = PLACE_HEAD + this.R;
    const [b, at] = this.place.reserve(placeBucket(key, ko, this.s.placeBits), E);
    b.set(key.subarray(ko, ko + KEY_BYTES), at);
    b[at + 16] = w;
    b[at + 17] = j;
    b.writeUInt16BE(0, at + 18);
    b.writeUInt32BE(q, at + 20);
    b.set(rec.subarray(ro, ro + this.R), at + PLACE_HEAD);
  }

  /** Input bucket `b`: its customers aggregated, their leaves placed; the problems found (line, text). */
  aggregate(b: number): { problems: [number, string][]; customers: number } {
    // the bucket's files (one a part of the input, in the input's order) deleted once read: the disk holds
    // the rows or their leaves, not both
    const { lineBase } = this.s;
    const rows = this.reader.read(
      lineBase.map((_, part) => inFile(this.s.dir, part, b)),
      true,
    );
    const ledger = this.ledger;
    ledger.reset();
    const problems: [number, string][] = [];
    for (let at = 0; at < rows.length; ) {
      const line = lineBase[rows[at + 8]] + rows.readUInt32BE(at);
      const a = rows.readUInt32BE(at + 4);
      const idLen = rows.readUInt16BE(at + 10);
      const id = rows.subarray(at + IN_HEAD, at + IN_HEAD + idLen);
      const base = BigInt(`0x${rows.toString("hex", at + 12, at + 28)}`);
      const problem = ledger.add(id, a, base, line);
      if (problem) problems.push([line, problem]);
      at += IN_HEAD + idLen;
    }
    if (problems.length) return { problems, customers: 0 };
    const l = ledger.ledger();
    const { k } = this.s;
    const out = Buffer.allocUnsafe(1 << 20);
    let used = 0;
    for (let c = 0; c < l.count; c++) {
      const id = l.ids.subarray(c === 0 ? 0 : l.idEnd[c - 1], l.idEnd[c]);
      denseAmounts(l, c, this.dense);
      this.maker.customer(id, this.dense, 0);
      const q = this.customers++;
      for (let j = 0; j < k; j++)
        this.emit(this.s.w, j, q, this.maker.keys, j * KEY_BYTES, this.maker.records, j * this.R);
      if (used + 2 + id.length + 32 > out.length) {
        writeAll(this.cust, out.subarray(0, used), -1);
        used = 0;
      }
      out.writeUInt16BE(id.length, used);
      out.set(id, used + 2);
      out.set(this.maker.secret, used + 2 + id.length);
      used += 2 + id.length + 32;
    }
    writeAll(this.cust, out.subarray(0, used), -1);
    return { problems: [], customers: l.count };
  }

  /** Padding leaves from..to-1. */
  padding(from: number, to: number): void {
    for (let p = from; p < to; p++) {
      this.maker.padding(p);
      this.emit(PADDING_WORKER, 0, p, this.maker.keys, 0, this.maker.records, 0);
    }
  }

  /** Writes what is buffered; bytes per place bucket. */
  finish(): Float64Array {
    // phase B's buffers let go before the subtree's (the same worker)
    this.reader.release();
    this.ledger = new LedgerBuilder(this.s.assets);
    this.place.close();
    closeSync(this.cust);
    return this.place.bytes;
  }
}

export interface SubtreeTask {
  dir: string;
  tree: string;
  /** this subtree worker's number, of `T` (a power of two) */
  t: number;
  T: number;
  /** leaf-building workers (place-W-B files for W < W) */
  W: number;
  A: number;
  L: number;
  height: number;
  placeBits: number;
  /** first leaf index and entry count of each place bucket */
  bases: number[];
  counts: number[];
  /** slot files per leaf worker */
  slotRanges: number;
  /** the bytes the level writer's buffers may take */
  levelBudget: number;
}

/** Subtree `t` of `T`: its place buckets sorted by key, its leaves and every level above them written. */
export function buildSubtree(o: SubtreeTask): Uint8Array {
  const R = recordBytes(o.A);
  const E = PLACE_HEAD + R;
  const span = o.L / o.T;
  const lo = o.t * span;
  const hi = lo + span;
  const sh = Math.log2(span);
  const fd = openSync(o.tree, "r+");
  const levelOffset = (l: number) => TREE_HEADER + R * (2 * o.L - 2 * (o.L / 2 ** l)) + (lo / 2 ** l) * R;
  const levels = new LevelWriter(fd, R, o.A, sh, levelOffset, o.levelBudget);
  const slots = new BucketWriter(o.W * o.slotRanges, (i) =>
    slotFile(o.dir, o.t, Math.floor(i / o.slotRanges), i % o.slotRanges),
  );
  const reader = new BucketReader();
  const keys = new SortKeys();
  try {
    for (let b = 0; b < o.bases.length; b++) {
      const first = o.bases[b];
      const n = o.counts[b];
      if (first + n <= lo || first >= hi || n === 0) continue;
      // a bucket wholly inside this half is read by no one else: deleted once read (the one across the
      // halves' boundary, by the main thread once both are done)
      const all = reader.read(
        Array.from({ length: o.W }, (_, w) => placeFile(o.dir, w, b)),
        first >= lo && first + n <= hi,
      );
      if (all.length !== n * E)
        throw new Error(`place bucket ${b}: ${all.length / E} entries, expected ${n}`);
      const order = keys.sort(all, n, E);
      for (let r = Math.max(0, lo - first); r < n && first + r < hi; r++) {
        const e = order[r] * E;
        levels.push(all.subarray(e + PLACE_HEAD, e + E));
        const w = all[e + 16];
        if (w === PADDING_WORKER) continue;
        const q = all.readUInt32BE(e + 20);
        const [buf, at] = slots.reserve(w * o.slotRanges + Math.floor(q / SLOT_RANGE), 12);
        buf.writeUInt32BE(q, at);
        buf.writeUInt32BE(all[e + 17], at + 4);
        buf.writeUInt32BE(first + r, at + 8);
      }
    }
    return levels.finish();
  } finally {
    slots.close();
    closeSync(fd);
  }
}

/**
 * Entry numbers 0..n-1 of a bucket (entries of E bytes, a 16-byte key first) in key order, ties in entry
 * order; the key arrays kept from bucket to bucket (grown by an eighth when one is larger).
 */
class SortKeys {
  private k0 = new Float64Array(0);
  private k1 = new Float64Array(0);
  private k2 = new Float64Array(0);
  private order = new Uint32Array(0);

  sort(buf: Buffer, n: number, E: number): Uint32Array {
    if (n > this.order.length) {
      const m = Math.ceil(n * 1.125);
      this.k0 = this.k1 = this.k2 = new Float64Array(0);
      this.order = new Uint32Array(0);
      [this.k0, this.k1, this.k2, this.order] = [
        new Float64Array(m),
        new Float64Array(m),
        new Float64Array(m),
        new Uint32Array(m),
      ];
    }
    // 53 + 43 + 32 bits of the key as three exact doubles: the comparator reads no bytes
    const { k0, k1, k2 } = this;
    for (let i = 0; i < n; i++) {
      const at = i * E;
      const w1 = buf.readUInt32BE(at + 4);
      k0[i] = buf.readUInt32BE(at) * 2 ** 21 + (w1 >>> 11);
      k1[i] = (w1 & 0x7ff) * 2 ** 32 + buf.readUInt32BE(at + 8);
      k2[i] = buf.readUInt32BE(at + 12);
    }
    const order = this.order.subarray(0, n);
    for (let i = 0; i < n; i++) order[i] = i;
    return order.sort((a, b) => k0[a] - k0[b] || k1[a] - k1[b] || k2[a] - k2[b]);
  }
}

export interface RowsTask {
  dir: string;
  /**
   * the input, opened once by the main thread (a descriptor is the process's, the workers' too): every part
   * read from the one file that was opened, even if its name is replaced or removed meanwhile
   */
  fd: number;
  assets: Asset[];
  /** this part of the input: bytes [from, to), starting at a line's start */
  part: number;
  from: number;
  to: number;
  /** input buckets: the id's FNV-1a top inBits bits */
  inBits: number;
  /** the bytes the buckets' write buffers may take together */
  writerBudget: number;
}

export interface RowsResult {
  part: number;
  /** lines in the part, counted as node's readline counts them (\r\n, \r and \n each end one) */
  lines: number;
  rows: number;
  /** base units per asset in the part's rows */
  totals: bigint[];
  /** some line of the part is refused (the main thread then reads the input itself, for the exact messages) */
  refused: boolean;
}

/** Spills one row to its input bucket (the main thread's reader and the workers' alike). */
export function spillRow(
  out: BucketWriter,
  bits: number,
  line: number,
  part: number,
  row: { idb: Buffer; a: number; base: bigint },
): void {
  const h = fnv1a(row.idb);
  const [b, at] = out.reserve(bits === 0 ? 0 : h >>> (32 - bits), IN_HEAD + row.idb.length);
  b.writeUInt32BE(line, at);
  b.writeUInt32BE(row.a, at + 4);
  b[at + 8] = part;
  b[at + 9] = 0;
  b.writeUInt16BE(row.idb.length, at + 10);
  b.write(row.base.toString(16).padStart(32, "0"), at + 12, "hex");
  b.set(row.idb, at + IN_HEAD);
}

/**
 * Phase A in a worker: one part of the balances file read, its lines split as readline splits them
 * (`\r\n`, a lone `\r`, `\n`; no line after a final break), each checked by the one row reader and
 * spilled to in-P-B files. The first refusal ends the part: the main thread reads the whole input again
 * itself so that the refusals are those (and in the order) of the serial reader.
 */
export function readPart(o: RowsTask): RowsResult {
  const assetIndex = new Map(o.assets.map((a, i) => [a.asset, i]));
  const totals = o.assets.map(() => 0n);
  const out = new BucketWriter(2 ** o.inBits, (b) => inFile(o.dir, o.part, b), o.writerBudget);
  const { fd } = o;
  const buf = Buffer.allocUnsafe(4 << 20);
  let lines = 0;
  let rows = 0;
  let refused = false;
  // one line's text: the header only at the file's first line
  const take = (bytes: Buffer, start: number, end: number): boolean => {
    lines++;
    const row = balanceRow(
      bytes.toString("utf8", start, end),
      lines,
      o.assets,
      assetIndex,
      o.from === 0 && lines === 1,
    );
    if (row === undefined) return true;
    if (typeof row === "string") return false;
    totals[row.a] += row.base;
    rows++;
    spillRow(out, o.inBits, lines, o.part, row);
    return true;
  };
  try {
    let carry = Buffer.alloc(0);
    // a \r ending the last chunk: its line is taken, and a \n opening the next chunk is part of that break
    let afterCr = false;
    for (let pos = o.from; pos < o.to && !refused; ) {
      const got = readSync(fd, buf, 0, Math.min(buf.length, o.to - pos), pos);
      if (got === 0) break;
      pos += got;
      const chunk = carry.length ? Buffer.concat([carry, buf.subarray(0, got)]) : buf.subarray(0, got);
      let start = 0;
      if (afterCr && chunk[0] === 10) start = 1;
      afterCr = false;
      // most files have no \r: then the breaks are found by indexOf, not byte by byte
      const crs = chunk.indexOf(13, start) !== -1;
      for (let i = nextBreak(chunk, start, crs); i !== -1; i = nextBreak(chunk, start, crs)) {
        const c = chunk[i];
        if (!take(chunk, start, i)) {
          refused = true;
          break;
        }
        if (c === 13) {
          if (i + 1 === chunk.length) afterCr = true;
          else if (chunk[i + 1] === 10) i++;
        }
        start = i + 1;
      }
      carry = Buffer.from(chunk.subarray(start));
    }
    // the file's last line, without a break after it
    if (!refused && carry.length && !take(carry, 0, carry.length)) refused = true;
  } finally {
    out.close();
  }
  return { part: o.part, lines, rows, totals, refused };
}

function nextBreak(chunk: Buffer, from: number, crs: boolean): number {
  if (!crs) return chunk.indexOf(10, from);
  for (let i = from; i < chunk.length; i++) if (chunk[i] === 10 || chunk[i] === 13) return i;
  return -1;
}
