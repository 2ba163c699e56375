/**
 * The streamed build's disk helpers: buffered appends to many bucket files at once (a bucket's records
 * written in the order they come), whole-file reads of one bucket, and a tree level builder that takes
 * leaves in order and writes every level of a subtree to tree.bin as it goes (one pending record per
 * level, one write buffer per level).
 */
import { closeSync, existsSync, openSync, readSync, rmSync, statSync, writeSync } from "node:fs";
import { AMOUNT_BYTES, addAmount, NODE_PREFIX, sha256Native } from "./format.js";

/** buckets from which a file is opened for each write and closed after it, not held open (descriptors) */
const OPEN_AT_MOST = 256;

/**
 * Appends to `count` files named by `name(i)`, each through a buffer of `budget / count` bytes (64 KiB at
 * most, one record at least): all its buffers together stay within `budget`. Past 256 buckets a file is
 * opened for each write and closed again (the descriptors a process may hold are a limit too).
 */
export class BucketWriter {
  private readonly bufs: Buffer[];
  private readonly used: Uint32Array;
  private readonly fds: number[];
  private readonly bufferBytes: number;
  /** bytes written to each bucket */
  readonly bytes: Float64Array;

  constructor(
    readonly count: number,
    private readonly name: (i: number) => string,
    budget = count * (1 << 16),
  ) {
    this.bufferBytes = Math.max(1, Math.min(1 << 16, Math.floor(budget / count)));
    this.bufs = new Array(count);
    this.used = new Uint32Array(count);
    this.fds = new Array(count).fill(-1);
    this.bytes = new Float64Array(count);
  }

  /** Room for `n` bytes in bucket `i`: returns the buffer and the offset to write them at. */
  reserve(i: number, n: number): [Buffer, number] {
    let b = this.bufs[i];
    if (!b) b = this.bufs[i] = Buffer.allocUnsafe(Math.max(this.bufferBytes, n));
    if (this.used[i] + n > b.length) this.flush(i);
    const at = this.used[i];
    this.used[i] += n;
    this.bytes[i] += n;
    return [b, at];
  }

  private flush(i: number): void {
    if (!this.used[i]) return;
    const keep = this.count <= OPEN_AT_MOST;
    const fd = this.fds[i] >= 0 ? this.fds[i] : openSync(this.name(i), "a", 0o600);
    try {
      writeAll(fd, this.bufs[i].subarray(0, this.used[i]), -1);
    } finally {
      if (keep) this.fds[i] = fd;
      else closeSync(fd);
    }
    this.used[i] = 0;
  }

  close(): void {
    for (let i = 0; i < this.count; i++) {
      this.flush(i);
      if (this.fds[i] >= 0) closeSync(this.fds[i]);
      this.fds[i] = -1;
    }
    this.bufs.fill(undefined as unknown as Buffer);
  }
}

/** Writes all of `b` at `position` (-1: at the file's current offset). */
export function writeAll(fd: number, b: Uint8Array, position: number): void {
  for (let at = 0; at < b.length; ) {
    const n = writeSync(fd, b, at, Math.min(b.length - at, 1 << 24), position < 0 ? null : position + at);
    at += n;
  }
}

/**
 * Reads buckets whole, one at a time, into one buffer it keeps and reuses (grown by an eighth when a bucket
 * is larger): a bucket's bytes are held once, not a second time in a concatenation, and the last bucket's
 * buffer is not left for the garbage collector while the next one is read — measured, those two put the
 * RSS 8-24 % over `--memory`. A buffer returned is valid until the next {@link read}.
 */
export class BucketReader {
  private buf: Buffer = Buffer.alloc(0);

  /** The whole of each file that exists, one after another; with `remove`, each file deleted once read. */
  read(files: string[], remove = false): Buffer {
    const sizes = files.map((f) => (existsSync(f) ? statSync(f).size : -1));
    const total = sizes.reduce((s, x) => s + Math.max(0, x), 0);
    if (total > this.buf.length) {
      this.buf = Buffer.alloc(0); // the old one is garbage before the new one is made
      this.buf = Buffer.allocUnsafe(Math.ceil(total * 1.125));
    }
    let at = 0;
    files.forEach((f, i) => {
      if (sizes[i] < 0) return;
      const fd = openSync(f, "r");
      try {
        for (let got = 0; got < sizes[i]; ) {
          const n = readSync(fd, this.buf, at + got, sizes[i] - got, got);
          if (n === 0) throw new Error(`${f}: shorter than its size`);
          got += n;
        }
      } finally {
        closeSync(fd);
      }
      at += sizes[i];
      if (remove) rmSync(f, { force: true });
    });
    return this.buf.subarray(0, total);
  }

  /** Lets the buffer go (a phase's last bucket read). */
  release(): void {
    this.buf = Buffer.alloc(0);
  }
}

/**
 * Leaves in order in, a subtree's levels out: level l's records go to tree.bin from `offset(l)` on, and the
 * subtree's root record is returned by {@link finish}. Memory: one pending record and one write buffer per
 * level.
 */
export class LevelWriter {
  /** per level: a record waiting for its right sibling (has[l]), and scratch for the parent made from it */
  private readonly pending: Uint8Array[];
  private readonly has: Uint8Array;
  private readonly ups: Uint8Array[];
  private readonly bufs: Buffer[];
  private readonly used: Uint32Array;
  private readonly pos: Float64Array;
  private readonly node: Uint8Array;
  private top?: Uint8Array;

  constructor(
    private readonly fd: number,
    private readonly R: number,
    private readonly assets: number,
    /** the subtree's height: leaves at 0, its root at `height` */
    private readonly height: number,
    offset: (level: number) => number,
    /** the bytes its write buffers may take together (each level's holds up to 4096 records, one at least) */
    budget = 2 * 4096 * R,
  ) {
    const bufferRecords = Math.max(1, Math.min(4096, Math.floor(budget / (2 * R))));
    this.pending = Array.from({ length: height + 1 }, () => new Uint8Array(R));
    this.has = new Uint8Array(height + 1);
    this.ups = Array.from({ length: height + 2 }, () => new Uint8Array(R));
    this.bufs = Array.from({ length: height + 1 }, (_, l) =>
      Buffer.allocUnsafe(R * Math.max(1, Math.min(bufferRecords, 2 ** (height - l)))),
    );
    this.used = new Uint32Array(height + 1);
    this.pos = Float64Array.from({ length: height + 1 }, (_, l) => offset(l));
    this.node = new Uint8Array(1 + 2 * R);
    this.node[0] = NODE_PREFIX;
  }

  /** The next record of `level` (0: the next leaf), written and paired with its sibling. */
  push(rec: Uint8Array, level = 0): void {
    const { R } = this;
    const b = this.bufs[level];
    if (this.used[level] + R > b.length) this.flush(level);
    b.set(rec, this.used[level]);
    const mine = b.subarray(this.used[level], this.used[level] + R);
    this.used[level] += R;
    if (level === this.height) {
      this.top = Uint8Array.from(mine);
      return;
    }
    const left = this.pending[level];
    if (!this.has[level]) {
      left.set(mine);
      this.has[level] = 1;
      return;
    }
    this.has[level] = 0;
    const node = this.node;
    node.set(left, 1);
    node.set(mine, 1 + R);
    // the parent is copied into level + 1's buffer at once: one scratch record per level will do
    const up = this.ups[level + 1];
    up.set(sha256Native(node), 0);
    for (let a = 0; a < this.assets; a++) {
      const at = 32 + a * AMOUNT_BYTES;
      // the totals were checked below 2^128 on input: no inner sum can exceed them
      if (!addAmount(up, at, left, at, mine, at)) throw new Error("sum overflow");
    }
    this.push(up, level + 1);
  }

  private flush(level: number): void {
    if (!this.used[level]) return;
    writeAll(this.fd, this.bufs[level].subarray(0, this.used[level]), this.pos[level]);
    this.pos[level] += this.used[level];
    this.used[level] = 0;
  }

  /** Writes what is buffered; the subtree's root record. */
  finish(): Uint8Array {
    for (let l = 0; l <= this.height; l++) this.flush(l);
    if (!this.top) throw new Error("the subtree is not complete");
    return this.top;
  }
}
