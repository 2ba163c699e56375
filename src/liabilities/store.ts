/**
 * The build directory on disk, and reading it back without rebuilding: the tree file (a header, then every
 * level's records from the leaves up, so any node is one positioned read) and the customers file with its
 * hashed index (a lookup reads a few index slots and one line, whatever the number of customers).
 *
 * tree.bin: "CGWLTREE" ‖ u32be version ‖ u32be assets ‖ u32be height ‖ u32be leaves ‖ 8 zero bytes, then
 * level 0 (2^height leaf records), level 1, … level height (the root); a record is hash ‖ sums.
 * customers.idx: "CGWLIDX1" ‖ u32be slots ‖ u32be customers, then per slot u32be FNV-1a(id) ‖ u64be
 * (offset of the customer's line + 1; 0 for an empty slot); linear probing from FNV-1a(id) mod slots.
 */
import { closeSync, createReadStream, mkdirSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { UsageError } from "../errors/index.js";
import { AtomicFile } from "../util/atomic.js";
import { fromFormulaSafe } from "../util/csv.js";
import { FORMAT_VERSION, fnv1a, RECORD_V2, recordBytes } from "./format.js";
import type { Ledger } from "./input.js";

export const COMMITMENT_FILE = "commitment.json";
export const CUSTOMERS_FILE = "customers.csv";
export const INDEX_FILE = "customers.idx";
export const TREE_FILE = "tree.bin";
/** The four files of a build in `dir`. */
export const buildFiles = (dir: string) => ({
  commitment: join(dir, COMMITMENT_FILE),
  customers: join(dir, CUSTOMERS_FILE),
  index: join(dir, INDEX_FILE),
  tree: join(dir, TREE_FILE),
});

/**
 * The four files of a build being written, each an `AtomicFile` (util/atomic.ts) named for its place in
 * `out` and made in `work` (the streamed build's work directory beside --out) or beside its place; `commit`
 * renames them into `out`, commitment.json last, and `discard` removes what is left. A write that fails
 * names its file (`--out: cannot write out/tree.bin: EFBIG`).
 */
export class BuildFiles {
  readonly tree: AtomicFile;
  readonly customers: AtomicFile;
  readonly index: AtomicFile;
  readonly commitment: AtomicFile;
  private readonly all: AtomicFile[] = [];
  constructor(
    private readonly out: string,
    work?: string,
  ) {
    const f = buildFiles(out);
    const make = (path: string, mode: number, read = false) => {
      const a = new AtomicFile(path, "--out", { dir: work, mode, read });
      this.all.push(a);
      return a;
    };
    try {
      if (!work) mkdirSync(out, { recursive: true });
      this.tree = make(f.tree, 0o644);
      this.customers = make(f.customers, 0o600);
      // read back too: the streamed index's run that wraps past the last slot looks for free slots from 0
      this.index = make(f.index, 0o600, true);
      this.commitment = make(f.commitment, 0o644);
    } catch (e) {
      this.discard();
      throw e;
    }
  }
  /** Every file flushed and renamed into `out`, commitment.json (what says a build is there) last. */
  commit(): void {
    mkdirSync(this.out, { recursive: true });
    for (const a of this.all) a.commit();
  }
  discard(): void {
    for (const a of this.all) a.discard();
  }
}

const TREE_MAGIC = "CGWLTREE";
const INDEX_MAGIC = "CGWLIDX1";
const HEADER = 32;
const SLOT = 12;

/**
 * tree.bin's header; v2 (`heights` given: each asset's tree's) the version 2, leaves 0 and a directory of
 * the heights (u32be each) after it, the trees one after another from there in asset order.
 */
export function writeTreeHeader(assets: number, height: number, heights?: number[]): Uint8Array {
  const b = Buffer.alloc(HEADER + (heights ? 4 * assets : 0));
  b.write(TREE_MAGIC, 0, "latin1");
  b.writeUInt32BE(heights ? 2 : FORMAT_VERSION, 8);
  b.writeUInt32BE(assets, 12);
  b.writeUInt32BE(height, 16);
  b.writeUInt32BE(heights ? 0 : 2 ** height, 20);
  heights?.forEach((h, a) => {
    b.writeUInt32BE(h, HEADER + 4 * a);
  });
  return b;
}

/** The index's slots for `customers`: twice as many, a power of two (at least 2). */
export function indexSlots(customers: number): number {
  let slots = 2;
  while (slots < customers * 2) slots *= 2;
  return slots;
}

/** The customers index's 16 bytes of header: magic, slots, customers. */
export function indexHeader(slots: number, customers: number): Buffer {
  const b = Buffer.alloc(16);
  b.write(INDEX_MAGIC, 0, "latin1");
  b.writeUInt32BE(slots, 8);
  b.writeUInt32BE(customers, 12);
  return b;
}

/** The customers index: 2× the customers' count in slots (a power of two), linear probing. */
export function writeIndex(file: AtomicFile, ledger: Ledger, offsets: Float64Array): void {
  const slots = indexSlots(ledger.count);
  const b = Buffer.alloc(16 + slots * SLOT);
  indexHeader(slots, ledger.count).copy(b);
  const mask = slots - 1;
  for (let c = 0; c < ledger.count; c++) {
    const h = fnv1a(ledger.ids.subarray(c === 0 ? 0 : ledger.idEnd[c - 1], ledger.idEnd[c]));
    let s = h & mask;
    while (b.readUInt32BE(16 + s * SLOT + 4) !== 0 || b.readUInt32BE(16 + s * SLOT + 8) !== 0)
      s = (s + 1) & mask;
    const at = 16 + s * SLOT;
    b.writeUInt32BE(h, at);
    const v = offsets[c] + 1;
    b.writeUInt32BE(Math.floor(v / 2 ** 32), at + 4);
    b.writeUInt32BE(v % 2 ** 32, at + 8);
  }
  file.write(b);
}

/** One customer's line of the customers file. */
export interface CustomerEntry {
  id: string;
  secret: Uint8Array;
  /** leaf index of part 0, 1, … (v2: of each asset held in turn, in its tree) */
  leaves: number[];
  /** v2: the assets held, in order, each leaves.length / held.length leaves */
  held?: number[];
}

/** A customers file's line: v1 `id,secret,i i …`; v2 `id,secret,a:i/i a:i/i …` (empty: nothing held). */
export function parseCustomerLine(line: string, v2 = false): CustomerEntry {
  const c2 = line.lastIndexOf(",");
  const c1 = line.lastIndexOf(",", c2 - 1);
  const text = line.slice(c2 + 1);
  const id = fromFormulaSafe(line.slice(0, c1));
  const secret = Buffer.from(line.slice(c1 + 1, c2), "hex");
  if (!v2) return { id, secret, leaves: text.split(" ").map((x) => Number(x)) };
  const held: number[] = [];
  const leaves: number[] = [];
  for (const token of text ? text.split(" ") : []) {
    const [a, parts] = token.split(":");
    held.push(Number(a));
    for (const i of parts.split("/")) leaves.push(Number(i));
  }
  return { id, secret, leaves, held };
}

/** A build directory opened for reading: positioned reads only. */
export class BuildStore {
  readonly assets: number;
  /** v1: the tree's; v2: the tallest tree's */
  readonly height: number;
  readonly leaves: number;
  readonly record: number;
  /** tree.bin's version: 1, or 2 (a tree per asset) */
  readonly version: number;
  /** per tree (v1: one): its height and where its level 0 starts */
  readonly trees: { height: number; offset: number }[];
  private readonly tree: number;
  private index?: number;
  private customers?: number;
  private slots = 0;
  /** levels held in memory (for --all): `tree level` → its records */
  private readonly cached = new Map<string, Uint8Array>();

  constructor(readonly dir: string) {
    this.tree = openOrRefuse(join(dir, TREE_FILE));
    const h = Buffer.alloc(HEADER);
    readSync(this.tree, h, 0, HEADER, 0);
    this.version = h.readUInt32BE(8);
    if (h.toString("latin1", 0, 8) !== TREE_MAGIC || (this.version !== FORMAT_VERSION && this.version !== 2))
      throw new UsageError(`${join(dir, TREE_FILE)}: not a chaingw liabilities tree (version 1 or 2)`);
    this.assets = h.readUInt32BE(12);
    this.height = h.readUInt32BE(16);
    this.leaves = h.readUInt32BE(20);
    this.record = this.version === 2 ? RECORD_V2 : recordBytes(this.assets);
    if (this.version === 1) this.trees = [{ height: this.height, offset: HEADER }];
    else {
      const d = Buffer.alloc(4 * this.assets);
      readSync(this.tree, d, 0, d.length, HEADER);
      let offset = HEADER + d.length;
      this.trees = Array.from({ length: this.assets }, (_, a) => {
        const height = d.readUInt32BE(4 * a);
        const t = { height, offset };
        offset += this.record * (2 * 2 ** height - 1);
        return t;
      });
    }
  }

  private levelOffset(level: number, tree: number): number {
    const { height, offset } = this.trees[tree];
    const L = 2 ** height;
    return offset + this.record * (2 * L - 2 * (L / 2 ** level));
  }

  /** The record of node `i` at `level` (0 = leaves) of tree `tree` (v1: its one tree, 0). */
  node(level: number, i: number, tree = 0): Uint8Array {
    const c = this.cached.get(`${tree} ${level}`);
    if (c) return c.subarray(i * this.record, (i + 1) * this.record);
    const b = new Uint8Array(this.record);
    readSync(this.tree, b, 0, this.record, this.levelOffset(level, tree) + i * this.record);
    return b;
  }

  /** Holds the upper levels in memory, as many as fit in `budget` bytes (a bulk extraction's speed-up). */
  cacheLevels(budget: number): void {
    let used = 0;
    for (let down = 0; down <= Math.max(...this.trees.map((t) => t.height)); down++)
      for (const [tree, t] of this.trees.entries()) {
        const level = t.height - down;
        if (level < 0) continue;
        const bytes = 2 ** down * this.record;
        if (used + bytes > budget) return;
        const b = new Uint8Array(bytes);
        let at = 0;
        while (at < bytes) at += readSync(this.tree, b, at, bytes - at, this.levelOffset(level, tree) + at);
        this.cached.set(`${tree} ${level}`, b);
        used += bytes;
      }
  }

  /** Customer `id`'s entry, found through the index: undefined when the build has no such customer. */
  lookup(id: string): CustomerEntry | undefined {
    if (this.index === undefined) {
      this.index = openOrRefuse(join(this.dir, INDEX_FILE));
      this.customers = openOrRefuse(join(this.dir, CUSTOMERS_FILE));
      const h = Buffer.alloc(16);
      readSync(this.index, h, 0, 16, 0);
      if (h.toString("latin1", 0, 8) !== INDEX_MAGIC)
        throw new UsageError(`${join(this.dir, INDEX_FILE)}: not a chaingw customers index`);
      this.slots = h.readUInt32BE(8);
    }
    const idb = Buffer.from(id, "utf8");
    const hash = fnv1a(idb);
    const mask = this.slots - 1;
    const run = Buffer.alloc(16 * SLOT);
    let s = hash & mask;
    for (let probed = 0; probed < this.slots; ) {
      const n = Math.min(16, this.slots - s);
      readSync(this.index, run, 0, n * SLOT, 16 + s * SLOT);
      for (let j = 0; j < n; j++, probed++) {
        const hi = run.readUInt32BE(j * SLOT + 4);
        const lo = run.readUInt32BE(j * SLOT + 8);
        if (hi === 0 && lo === 0) return undefined;
        if (run.readUInt32BE(j * SLOT) !== hash) continue;
        const line = this.lineAt(hi * 2 ** 32 + lo - 1);
        const e = parseCustomerLine(line, this.version === 2);
        if (e.id === id) return e;
      }
      s = (s + n) & mask;
    }
    return undefined;
  }

  private lineAt(offset: number): string {
    const parts: Buffer[] = [];
    for (let at = offset; ; ) {
      const b = Buffer.alloc(512);
      const n = readSync(this.customers!, b, 0, b.length, at);
      const nl = b.subarray(0, n).indexOf(10);
      if (nl >= 0 || n === 0) {
        parts.push(b.subarray(0, nl >= 0 ? nl : n));
        return Buffer.concat(parts).toString("utf8");
      }
      parts.push(b.subarray(0, n));
      at += n;
    }
  }

  /** Every customer's entry, in the customers file's order (streamed). */
  async *entries(): AsyncGenerator<CustomerEntry> {
    const lines = createInterface({
      input: createReadStream(join(this.dir, CUSTOMERS_FILE)),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    let first = true;
    for await (const line of lines) {
      if (first) {
        first = false;
        continue;
      }
      if (line) yield parseCustomerLine(line, this.version === 2);
    }
  }

  close(): void {
    closeSync(this.tree);
    if (this.index !== undefined) closeSync(this.index);
    if (this.customers !== undefined) closeSync(this.customers);
  }
}

function openOrRefuse(file: string): number {
  try {
    return openSync(file, "r");
  } catch (e) {
    throw new UsageError(`${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
}
