/**
 * Phase D of the streamed build (stream.ts): customers.csv from each worker's customers and the leaf
 * indices the subtrees found, worker by worker in each worker's numbering, and customers.idx built bucket
 * by bucket (entries sorted by home slot, placed by linear probing: the in-memory build's format).
 */
import { closeSync, openSync, readSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { AtomicFile } from "../util/atomic.js";
import { CustomerLines } from "./build.js";
import { fnv1a } from "./format.js";
import { BucketReader, BucketWriter } from "./spill.js";
import { type BuildFiles, indexHeader, indexSlots } from "./store.js";
import { custFile, SLOT_RANGE, slotFile } from "./stream-work.js";

/** The bits of a power of two at least `x` (0 for x ≤ 1). */
export const pow2Bits = (x: number) => Math.max(0, Math.ceil(Math.log2(Math.max(1, x))));

/** What phase D reads of the run (stream.ts's Run). */
export interface CustomersRun {
  work: string;
  /** leaves per customer (v2: per asset held) */
  k: number;
  /** construction v2: a customer's leaves are k per asset held */
  v2: boolean;
  /** worker threads */
  T: number;
  /** the bytes of memory the buckets may use */
  data: number;
  files: BuildFiles;
  /** the work directory's size noted (before a file is deleted) */
  sample: () => number;
}

/** Phase D: customers.csv (worker by worker, in each worker's numbering) and customers.idx. */
export function writeCustomersStreamed(
  run: CustomersRun,
  perWorker: number[],
  leavesOf: number[],
  T: number,
): void {
  const { work, k } = run;
  const n = perWorker.reduce((s, x) => s + x, 0);
  const slots = indexSlots(n);
  const slotBits = Math.log2(slots);
  // index entries: (hash, offset + 1), 12 bytes, to buckets of home slots; a bucket sorted takes ~40 bytes an entry
  const idxBits = Math.min(slotBits, pow2Bits((n * 40) / (run.data / 2)));
  const idx = new BucketWriter(2 ** idxBits, (b) => join(work, `idx-${b}.bin`), run.data / 4);
  const lines = new CustomerLines(run.files.customers);
  try {
    for (let w = 0; w < run.T; w++) {
      const cust = readStream(custFile(work, w));
      const leaves = new LeafIndices(work, T, w, leavesOf[w]);
      let s = 0;
      for (let q = 0; q < perWorker[w]; q++) {
        const { id, secret, held } = cust.next();
        const offset = lines.offset;
        const count = run.v2 ? held.length * k : k;
        const mine = leaves.take(s, count);
        s += count;
        lines.add(id, secret, mine, run.v2 ? held : undefined);
        const h = fnv1a(id);
        const home = h & (slots - 1);
        const [b, at] = idx.reserve(idxBits === 0 ? 0 : home >>> (slotBits - idxBits), 12);
        b.writeUInt32BE(h, at);
        b.writeUInt32BE(Math.floor((offset + 1) / 2 ** 32), at + 4);
        b.writeUInt32BE((offset + 1) % 2 ** 32, at + 8);
      }
      leaves.release();
      cust.close();
      run.sample();
      rmSync(custFile(work, w), { force: true });
    }
    lines.flush();
  } finally {
    idx.close();
  }
  writeIndexStreamed(run.files.index, work, n, slots, idxBits);
}

/**
 * The leaf indices the subtree workers found for worker w's leaves, one range of SLOT_RANGE leaf numbers in
 * memory at a time (read, and its files deleted, when a leaf number first reaches it).
 */
class LeafIndices {
  private readonly reader = new BucketReader();
  private readonly index = new Uint32Array(SLOT_RANGE);
  private range = -1;
  constructor(
    private readonly work: string,
    private readonly T: number,
    private readonly w: number,
    private readonly total: number,
  ) {}
  /** leaves s … s+count−1 */
  take(s: number, count: number): number[] {
    const out = new Array<number>(count);
    for (let i = 0; i < count; i++) {
      const x = s + i;
      const r = Math.floor(x / SLOT_RANGE);
      if (r !== this.range) this.load(r);
      out[i] = this.index[x - r * SLOT_RANGE];
    }
    return out;
  }
  private load(r: number): void {
    if (r * SLOT_RANGE >= this.total)
      throw new Error(`leaf ${r * SLOT_RANGE} of worker ${this.w}: past its leaves`);
    const got = this.reader.read(
      Array.from({ length: this.T }, (_, t) => slotFile(this.work, t, this.w, r)),
      true,
    );
    for (let at = 0; at < got.length; at += 8)
      this.index[got.readUInt32BE(at) - r * SLOT_RANGE] = got.readUInt32BE(at + 4);
    this.range = r;
  }
  release(): void {
    this.reader.release();
  }
}

/** Records of a cust-W file, read in order through a 4 MiB window. */
function readStream(file: string) {
  const fd = openSync(file, "r");
  let buf = Buffer.alloc(0);
  let at = 0;
  let filePos = 0;
  const fill = (need: number) => {
    if (buf.length - at >= need) return;
    const rest = buf.subarray(at);
    const next = Buffer.allocUnsafe(Math.max(4 << 20, need));
    rest.copy(next, 0);
    const got = readSync(fd, next, rest.length, next.length - rest.length, filePos);
    filePos += got;
    buf = next.subarray(0, rest.length + got);
    at = 0;
  };
  return {
    next(): { id: Buffer; secret: Buffer; held: number[] } {
      fill(2);
      const len = buf.readUInt16BE(at);
      fill(2 + len + 32 + 4);
      const id = Buffer.from(buf.subarray(at + 2, at + 2 + len));
      const secret = Buffer.from(buf.subarray(at + 2 + len, at + 2 + len + 32));
      const h = buf.readUInt32BE(at + 2 + len + 32);
      fill(2 + len + 32 + 4 + 4 * h);
      const held = new Array<number>(h);
      for (let i = 0; i < h; i++) held[i] = buf.readUInt32BE(at + 2 + len + 36 + 4 * i);
      at += 2 + len + 36 + 4 * h;
      return { id, secret, held };
    },
    close: () => closeSync(fd),
  };
}

/**
 * customers.idx, the same format as the in-memory build's (store.ts): entries sorted by home slot, each
 * placed at the first free slot from its home on (linear probing), bucket after bucket in slot order, a
 * run past the last slot wrapping to the first free slots from 0.
 */
function writeIndexStreamed(file: AtomicFile, work: string, n: number, slots: number, idxBits: number): void {
  const SLOT = 12;
  file.write(indexHeader(slots, n), 0);
  file.truncate(16 + slots * SLOT);
  let next = 0; // the first slot not yet taken by an earlier entry
  const wrapped: Buffer[] = [];
  const mask = slots - 1;
  const reader = new BucketReader();
  for (let b = 0; b < 2 ** idxBits; b++) {
    const e = reader.read([join(work, `idx-${b}.bin`)], true);
    const m = e.length / SLOT;
    if (!m) continue;
    const home = new Float64Array(m);
    for (let i = 0; i < m; i++) home[i] = e.readUInt32BE(i * SLOT) & mask;
    const order = new Uint32Array(m);
    for (let i = 0; i < m; i++) order[i] = i;
    order.sort((x, y) => home[x] - home[y]);
    // a run of slots from `start`, written at once
    let start = -1;
    let run = Buffer.allocUnsafe(0);
    let used = 0;
    const put = (slot: number, entry: Buffer) => {
      if (start < 0 || slot !== start + used / SLOT || used + SLOT > run.length) {
        if (used) file.write(run.subarray(0, used), 16 + start * SLOT);
        if (run.length < 1 << 20) run = Buffer.allocUnsafe(1 << 20);
        start = slot;
        used = 0;
      }
      entry.copy(run, used);
      used += SLOT;
    };
    for (const i of order) {
      const slot = Math.max(home[i], next);
      const entry = e.subarray(i * SLOT, i * SLOT + SLOT);
      if (slot >= slots) wrapped.push(Buffer.from(entry));
      else put(slot, entry);
      next = slot + 1;
    }
    if (used) file.write(run.subarray(0, used), 16 + start * SLOT);
  }
  // the run that went past the last slot continues at slot 0 (free slots there, the load is ≤ 1/2)
  const probe = Buffer.alloc(SLOT);
  let s = 0;
  for (const entry of wrapped) {
    for (; ; s++) {
      file.guard((fd) => readSync(fd, probe, 0, SLOT, 16 + s * SLOT));
      if (probe.readUInt32BE(4) === 0 && probe.readUInt32BE(8) === 0) break;
    }
    file.write(entry, 16 + s * SLOT);
    s++;
  }
}
