/**
 * Phase C of the streamed build (stream.ts), in the workers: each worker takes a run of half-trees of the
 * forest (v1: one half of its one tree), reads the place buckets that hold their leaves in order, sorts
 * each by (tree, key) — so a leaf's index is its place in the forest less its tree's base — and streams the
 * leaves into one level writer a half-tree, which writes every level of it into tree.bin.
 */
import { closeSync, openSync } from "node:fs";
import { BucketReader, BucketWriter, LevelWriter } from "./spill.js";
import { PADDING_WORKER, PLACE_HEAD, placeFile, SLOT_RANGE, slotFile } from "./stream-work.js";

/** One tree of the forest in tree.bin: its first leaf's place among all leaves, its leaves, its byte offset. */
export interface TreeAt {
  base: number;
  L: number;
  /** where its level 0 starts in tree.bin */
  offset: number;
}

export interface SubtreeTask {
  dir: string;
  tree: string;
  /** this subtree worker's number */
  t: number;
  /** leaf-building workers (place-W-B files for W < W) */
  W: number;
  /** a record's bytes, and the sums in it */
  R: number;
  A: number;
  trees: TreeAt[];
  /** this worker's places [lo, hi): whole half-trees, one after another */
  lo: number;
  hi: number;
  /** first place and entry count of each place bucket */
  bases: number[];
  counts: number[];
  /** slot files per leaf worker */
  slotRanges: number;
  /** the bytes the level writer's buffers may take */
  levelBudget: number;
}

/** A half-tree's root record: tree, half (0 left, 1 right). */
export interface HalfRoot {
  tree: number;
  half: number;
  record: Uint8Array;
}

/** The half-trees in [lo, hi): their leaves sorted, every level written; their root records. */
export function buildSubtree(o: SubtreeTask): HalfRoot[] {
  const { R } = o;
  const E = PLACE_HEAD + R;
  const fd = openSync(o.tree, "r+");
  const slots = new BucketWriter(
    o.W * o.slotRanges,
    (i) => slotFile(o.dir, o.t, Math.floor(i / o.slotRanges), i % o.slotRanges),
    o.levelBudget,
  );
  const reader = new BucketReader();
  const keys = new SortKeys();
  const out: HalfRoot[] = [];
  // the half-tree being written: its tree, half, end place and level writer
  let tree = 0;
  let half = -1;
  let end = 0;
  let levels: LevelWriter | undefined;
  const open = (pos: number) => {
    while (o.trees[tree].base + o.trees[tree].L <= pos) tree++;
    const { base, L, offset } = o.trees[tree];
    half = pos < base + L / 2 ? 0 : 1;
    const first = half * (L / 2);
    end = base + first + L / 2;
    const at = (l: number) => offset + R * (2 * L - 2 * (L / 2 ** l)) + (first / 2 ** l) * R;
    levels = new LevelWriter(fd, R, o.A, Math.log2(L) - 1, at, o.levelBudget);
  };
  try {
    for (let b = 0; b < o.bases.length; b++) {
      const first = o.bases[b];
      const n = o.counts[b];
      if (first + n <= o.lo || first >= o.hi || n === 0) continue;
      // a bucket wholly inside this run is read by no one else: deleted once read (one across the runs'
      // boundary, by the main thread once both are done)
      const all = reader.read(
        Array.from({ length: o.W }, (_, w) => placeFile(o.dir, w, b)),
        first >= o.lo && first + n <= o.hi,
      );
      if (all.length !== n * E)
        throw new Error(`place bucket ${b}: ${all.length / E} entries, expected ${n}`);
      const order = keys.sort(all, n, E);
      for (let r = Math.max(0, o.lo - first); r < n && first + r < o.hi; r++) {
        const pos = first + r;
        if (!levels || pos >= end) {
          if (levels) out.push({ tree, half, record: levels.finish() });
          open(pos);
        }
        const e = order[r] * E;
        if (all.readUInt32BE(e + 16) !== tree) throw new Error(`leaf ${pos}: not of tree ${tree}`);
        levels!.push(all.subarray(e + PLACE_HEAD, e + E));
        const w = all[e + 20];
        if (w === PADDING_WORKER) continue;
        const q = all.readUInt32BE(e + 24);
        const [buf, at] = slots.reserve(w * o.slotRanges + Math.floor(q / SLOT_RANGE), 8);
        buf.writeUInt32BE(q, at);
        buf.writeUInt32BE(pos - o.trees[tree].base, at + 4);
      }
    }
    if (levels) out.push({ tree, half, record: levels.finish() });
    return out;
  } finally {
    slots.close();
    closeSync(fd);
  }
}

/**
 * Entry numbers 0..n-1 of a bucket (entries of E bytes: a 16-byte key, then the u32 tree) in (tree, key)
 * order, ties in entry order; the key arrays kept from bucket to bucket (grown by an eighth when one is
 * larger).
 */
class SortKeys {
  private t = new Float64Array(0);
  private k0 = new Float64Array(0);
  private k1 = new Float64Array(0);
  private k2 = new Float64Array(0);
  private order = new Uint32Array(0);

  sort(buf: Buffer, n: number, E: number): Uint32Array {
    if (n > this.order.length) {
      const m = Math.ceil(n * 1.125);
      this.t = this.k0 = this.k1 = this.k2 = new Float64Array(0);
      this.order = new Uint32Array(0);
      [this.t, this.k0, this.k1, this.k2, this.order] = [
        new Float64Array(m),
        new Float64Array(m),
        new Float64Array(m),
        new Float64Array(m),
        new Uint32Array(m),
      ];
    }
    // the tree, then 53 + 43 + 32 bits of the key as exact doubles: the comparator reads no bytes
    const { t, k0, k1, k2 } = this;
    for (let i = 0; i < n; i++) {
      const at = i * E;
      const w1 = buf.readUInt32BE(at + 4);
      t[i] = buf.readUInt32BE(at + 16);
      k0[i] = buf.readUInt32BE(at) * 2 ** 21 + (w1 >>> 11);
      k1[i] = (w1 & 0x7ff) * 2 ** 32 + buf.readUInt32BE(at + 8);
      k2[i] = buf.readUInt32BE(at + 12);
    }
    const order = this.order.subarray(0, n);
    for (let i = 0; i < n; i++) order[i] = i;
    return order.sort((a, b) => t[a] - t[b] || k0[a] - k0[b] || k1[a] - k1[b] || k2[a] - k2[b]);
  }
}
