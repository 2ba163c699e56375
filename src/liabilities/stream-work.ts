/**
 * The streamed build's work, done in worker threads (worker.ts) or in-process: one worker's state across
 * its tasks. A task never holds more than one bucket.
 *
 * One pipeline makes both constructions: v1 is a forest of one tree whose records carry every asset's sum;
 * v2 a forest of one tree per asset over its holders' leaves, records of one sum (docs/liabilities.md).
 *
 * Files in the work directory (all removed when the build ends):
 *   in-P-B.bin      rows of the input's part P in input bucket B: u32be line in the part (its low 32 bits) ‖
 *                   u32be asset ‖ u8 P ‖ u8 the line's bits 32-39 ‖ u16be id bytes ‖ u128 amount ‖ id (one part, P = 0, when the main thread reads the
 *                   input); the asset's index as wide as the assets table's (MAX_ASSETS)
 *   place-W-B.bin   leaves worker W placed in place bucket B (by the leaf's place in the forest: its tree,
 *                   then its key): key (16) ‖ u32be tree ‖ u8 W (255: padding) ‖ 3 zero bytes ‖ u32be the
 *                   leaf's number among W's customers' leaves (a padding leaf's: its number in its tree) ‖ record
 *   cust-W.bin      worker W's customers in number order: u16be id bytes ‖ id ‖ secret (32) ‖ u32be h ‖
 *                   h × u32be asset (v2: the assets held, each k leaves in W's numbering; v1: h = 0, k leaves)
 *   slot-T-W-Q.bin  leaf indices subtree worker T found for worker W's leaves Q·range…: u32be leaf number ‖
 *                   u32be index in its tree
 */
import { closeSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../errors/index.js";
import { KEY_BYTES } from "./derive.js";
import { AMOUNT_BYTES, fnv1a, RECORD_V2, recordBytes } from "./format.js";
import type { Asset } from "./input.js";
import { balanceRow, denseAmounts, LedgerBuilder, MAX_LINE_BYTES, MAX_PROBLEMS } from "./input.js";
import { LeafMaker } from "./leaves.js";
import { BucketReader, BucketWriter, writeAll } from "./spill.js";

export const IN_HEAD = 28;
/** a row's line number is kept in 40 bits (a file of more lines is refused, naming the limit) */
export const MAX_LINES = 2 ** 40;
export const PLACE_HEAD = 28;
export const PADDING_WORKER = 255;
export const TREE_HEADER = 32;
/** Leaf number ranges of the slot files: 2^22 leaves (4 bytes each of leaf indices in memory). */
export const SLOT_RANGE = 1 << 22;

/** Where the trees' leaves sit in the forest's one order (v2; v1's one tree needs none of it). */
export interface Forest {
  /** per tree: its first leaf's place among all trees' leaves, its leaves (a power of two) */
  base: number[];
  L: number[];
  /** all trees' leaves */
  G: number;
}

export interface WorkSetup {
  dir: string;
  /** this worker's number */
  w: number;
  assets: Asset[];
  k: number;
  key: Uint8Array;
  /** place buckets: 2^placeBits */
  placeBits: number;
  /** v2's trees (undefined: v1) */
  forest?: Forest;
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

/**
 * Place bucket of a leaf of tree `t` whose key is at `buf[at..]`: v1, the key's top bits; v2, its place in
 * the forest's order (the tree's base + the key's share of its leaves) scaled to the buckets — monotone in
 * (tree, key), so the buckets read in order and each sorted give every tree's leaves in key order.
 */
export function placeBucket(buf: Uint8Array, at: number, bits: number, t: number, f?: Forest): number {
  const top = ((buf[at] << 24) | (buf[at + 1] << 16) | (buf[at + 2] << 8) | buf[at + 3]) >>> 0;
  if (!f) return bits === 0 ? 0 : top >>> (32 - bits);
  const pos = f.base[t] + Math.floor((top / 2 ** 32) * f.L[t]);
  return Math.floor((pos * 2 ** bits) / f.G);
}

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
  /** the leaves of this worker's customers numbered so far */
  leaves = 0;

  constructor(private readonly s: WorkSetup) {
    const A = s.assets.length;
    this.maker = new LeafMaker(s.forest ? 1 : A, s.k, s.key);
    this.R = s.forest ? RECORD_V2 : recordBytes(A);
    this.place = new BucketWriter(2 ** s.placeBits, (b) => placeFile(s.dir, s.w, b), s.writerBudget);
    this.cust = openSync(custFile(s.dir, s.w), "a", 0o600);
    this.ledger = new LedgerBuilder(s.assets);
    this.dense = new Uint8Array(s.forest ? 0 : A * AMOUNT_BYTES);
  }

  private emit(t: number, w: number, n: number, key: Uint8Array, ko: number, rec: Uint8Array, ro: number) {
    const E = PLACE_HEAD + this.R;
    const [b, at] = this.place.reserve(placeBucket(key, ko, this.s.placeBits, t, this.s.forest), E);
    b.set(key.subarray(ko, ko + KEY_BYTES), at);
    b.writeUInt32BE(t, at + 16);
    b[at + 20] = w;
    b[at + 21] = 0;
    b.writeUInt16BE(0, at + 22);
    b.writeUInt32BE(n, at + 24);
    b.set(rec.subarray(ro, ro + this.R), at + PLACE_HEAD);
  }

  /**
   * Input bucket `b`: its customers aggregated, their leaves placed; the problems found (line, text), the
   * first MAX_PROBLEMS of the bucket only (its rows come in the file's order: they are its lowest lines, all
   * a refusal names — an input given twice over would otherwise carry a problem a row to the main thread).
   * With `check` (the build is refused already) the rows are checked and no leaf is made.
   */
  aggregate(b: number, check = false): { problems: [number, string][]; customers: number; leaves: number } {
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
      const line = lineBase[rows[at + 8]] + rows[at + 9] * 2 ** 32 + rows.readUInt32BE(at);
      const a = rows.readUInt32BE(at + 4);
      const idLen = rows.readUInt16BE(at + 10);
      const id = rows.subarray(at + IN_HEAD, at + IN_HEAD + idLen);
      const base = BigInt(`0x${rows.toString("hex", at + 12, at + 28)}`);
      const problem = ledger.add(id, a, base, line);
      if (problem && problems.length < MAX_PROBLEMS) problems.push([line, problem]);
      at += IN_HEAD + idLen;
    }
    if (problems.length || check) return { problems, customers: 0, leaves: this.leaves };
    const l = ledger.ledger();
    const out = new CustWriter(this.cust);
    for (let c = 0; c < l.count; c++) {
      const id = l.ids.subarray(c === 0 ? 0 : l.idEnd[c - 1], l.idEnd[c]);
      const held = this.s.forest ? this.customerV2(l, c, id) : this.customerV1(l, c, id);
      this.customers++;
      out.add(id, this.maker.secret, held);
    }
    out.close();
    return { problems: [], customers: l.count, leaves: this.leaves };
  }

  private customerV1(l: ReturnType<LedgerBuilder["ledger"]>, c: number, id: Uint8Array): number[] {
    denseAmounts(l, c, this.dense);
    this.maker.customer(id, this.dense, 0);
    for (let j = 0; j < this.s.k; j++)
      this.emit(0, this.s.w, this.leaves++, this.maker.keys, j * KEY_BYTES, this.maker.records, j * this.R);
    return [];
  }

  /** v2: the customer's non-zero holdings, in asset order, each k leaves in its asset's tree */
  private customerV2(l: ReturnType<LedgerBuilder["ledger"]>, c: number, id: Uint8Array): number[] {
    const entries: number[] = [];
    for (let e = l.first[c]; e >= 0; e = l.next[e]) {
      let zero = true;
      for (let i = 0; i < AMOUNT_BYTES && zero; i++) if (l.amounts[e * AMOUNT_BYTES + i]) zero = false;
      if (!zero) entries.push(e);
    }
    entries.sort((x, y) => l.asset[x] - l.asset[y]);
    const held = entries.map((e) => l.asset[e]);
    const amounts = new Uint8Array(entries.length * AMOUNT_BYTES);
    entries.forEach((e, i) => {
      amounts.set(l.amounts.subarray(e * AMOUNT_BYTES, (e + 1) * AMOUNT_BYTES), i * AMOUNT_BYTES);
    });
    const { keys, records } = this.maker.customerV2(id, held, amounts);
    const { k } = this.s;
    for (let i = 0; i < held.length; i++)
      for (let j = 0; j < k; j++)
        this.emit(
          held[i],
          this.s.w,
          this.leaves++,
          keys,
          (i * k + j) * KEY_BYTES,
          records,
          (i * k + j) * RECORD_V2,
        );
    return held;
  }

  /** Padding leaves from..to-1 of tree `t` (v1: its one tree). */
  padding(t: number, from: number, to: number): void {
    for (let p = from; p < to; p++) {
      if (this.s.forest) this.maker.paddingV2(t, p);
      else this.maker.padding(p);
      this.emit(t, PADDING_WORKER, p, this.maker.keys, 0, this.maker.records, 0);
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

/** A worker's customers file, appended through a 1 MiB buffer: id, secret, the assets held. */
class CustWriter {
  private readonly out = Buffer.allocUnsafe(1 << 20);
  private used = 0;
  constructor(private readonly fd: number) {}
  add(id: Uint8Array, secret: Uint8Array, held: number[]): void {
    const n = 2 + id.length + 32 + 4 + 4 * held.length;
    if (this.used + n > this.out.length) this.close();
    const out = n > this.out.length ? Buffer.allocUnsafe(n) : this.out;
    let at = out === this.out ? this.used : 0;
    out.writeUInt16BE(id.length, at);
    out.set(id, at + 2);
    out.set(secret, at + 2 + id.length);
    at += 2 + id.length + 32;
    out.writeUInt32BE(held.length, at);
    for (const a of held) {
      at += 4;
      out.writeUInt32BE(a, at);
    }
    if (out === this.out) this.used += n;
    else writeAll(this.fd, out, -1);
  }
  close(): void {
    writeAll(this.fd, this.out.subarray(0, this.used), -1);
    this.used = 0;
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
  /** per asset, the rows with an amount above zero */
  held: number[];
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
  if (line >= MAX_LINES)
    throw new UsageError(
      `--input: more than ${MAX_LINES.toLocaleString("en")} lines, the most a balances file may have (its lines are numbered in 40 bits)`,
      { hint: "nothing was written; split the file by customer and build each part" },
    );
  const [b, at] = out.reserve(bits === 0 ? 0 : h >>> (32 - bits), IN_HEAD + row.idb.length);
  b.writeUInt32BE(line % 2 ** 32, at);
  b.writeUInt32BE(row.a, at + 4);
  b[at + 8] = part;
  b[at + 9] = Math.floor(line / 2 ** 32);
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
  const held = o.assets.map(() => 0);
  const out = new BucketWriter(2 ** o.inBits, (b) => inFile(o.dir, o.part, b), o.writerBudget);
  const { fd } = o;
  const buf = Buffer.allocUnsafe(4 << 20);
  let lines = 0;
  let rows = 0;
  let refused = false;
  // one line's text: the header only at the file's first line
  const take = (bytes: Buffer, start: number, end: number): boolean => {
    lines++;
    // past the most a line may take: refused (the main thread names it)
    if (end - start > MAX_LINE_BYTES) return false;
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
    if (row.base > 0n) held[row.a]++;
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
      // a line past the most a line may take: refused (the main thread names it), never held whole
      if (carry.length > MAX_LINE_BYTES) refused = true;
    }
    // the file's last line, without a break after it
    if (!refused && carry.length && !take(carry, 0, carry.length)) refused = true;
  } finally {
    out.close();
  }
  return { part: o.part, lines, rows, totals, held, refused };
}

function nextBreak(chunk: Buffer, from: number, crs: boolean): number {
  if (!crs) return chunk.indexOf(10, from);
  for (let i = from; i < chunk.length; i++) if (chunk[i] === 10 || chunk[i] === 13) return i;
  return -1;
}
