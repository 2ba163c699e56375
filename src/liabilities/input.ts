/**
 * Reading the custodian's export: the assets table (`asset,decimals`) and the balances file
 * (`customer_id,asset,amount`), streamed line by line into typed arrays — one id in a byte arena and one
 * 16-byte amount per customer and asset, no object per customer. Every refusal names the file and the line
 * as a text editor counts them (the header is line 1).
 */
import { createReadStream, readFileSync, statSync } from "node:fs";
import { createInterface } from "node:readline";
import { Transform, type TransformCallback } from "node:stream";
import { UsageError } from "../errors/index.js";
import { quoted, UNPRINTABLE } from "../util/text.js";
import { AMOUNT_BYTES, fnv1a, MAX_AMOUNT, putAmount } from "./format.js";

export interface Asset {
  /** the name the balances file and the commitment use (e.g. BTC) */
  asset: string;
  decimals: number;
}

/**
 * The balances, aggregated per customer in input order of first appearance, sparse: one entry per row given
 * (customer, asset, amount), so what it holds grows with the rows, never with customers × assets.
 */
export interface Ledger {
  assets: Asset[];
  /** customers */
  count: number;
  /** every id's UTF-8 bytes, one after another; customer i's id is ids[idEnd[i-1] .. idEnd[i]] */
  ids: Uint8Array;
  idEnd: Uint32Array;
  /** customer i's first entry (-1: none); entry e's next entry of the same customer (-1: the last) */
  first: Int32Array;
  next: Int32Array;
  /** entry e: its asset's index, and its amount at amounts[e * 16 ..] as a u128 big-endian */
  asset: Uint32Array;
  amounts: Uint8Array;
  /** per asset, in base units */
  totals: bigint[];
}

/** Customer `c`'s amounts of every asset, dense (A × 16 bytes, zero where the customer has no row) into `out`. */
export function denseAmounts(l: Ledger, c: number, out: Uint8Array): void {
  out.fill(0);
  for (let e = l.first[c]; e >= 0; e = l.next[e])
    out.set(l.amounts.subarray(e * AMOUNT_BYTES, e * AMOUNT_BYTES + AMOUNT_BYTES), l.asset[e] * AMOUNT_BYTES);
}

/** The most assets a table may name (asset indices are u32 everywhere; this bounds a record's size). */
export const MAX_ASSETS = 65_536;

/** the most bytes an assets table's file may take */
const MAX_ASSETS_FILE = 16 * 2 ** 20;
/**
 * the most bytes a balances line may take, its break aside: a row is at most a few hundred (an id of 256,
 * an asset of 32, an amount); past it a line is refused, named, rather than held whole in memory
 */
export const MAX_LINE_BYTES = 2 ** 20;
/** the problems a refusal names at most (the lowest lines) */
export const MAX_PROBLEMS = 10;
const MAX_ID_BYTES = 256;
export const MAX_DECIMALS = 36;
/** an asset's name: exact ASCII, so two names that look alike are two names that differ */
export const ASSET_NAME = /^[A-Za-z0-9._:-]{1,32}$/;
const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

const refuse = (what: string, problems: string[]): never => {
  throw new UsageError(
    problems.length === 1 ? `${what}: ${problems[0]}` : `${what}: ${problems.length} problems`,
    {
      details: problems.length === 1 ? undefined : problems,
      hint: "nothing was written; fix the lines named and run again",
    },
  );
};

const fields = (line: string): string[] => line.split(",").map((f) => f.trim());

/** The assets table: a header `asset,decimals`, then one asset a line, `#` comments and blank lines skipped. */
export function readAssets(file: string): Asset[] {
  let text: string;
  try {
    const size = statSync(file).size;
    if (size > MAX_ASSETS_FILE)
      throw new UsageError(
        `--assets ${file}: ${size.toLocaleString("en")} bytes, more than the ${MAX_ASSETS_FILE.toLocaleString("en")} an assets table may take (${MAX_ASSETS.toLocaleString("en")} assets of 32-character names take under 3 MB)`,
        { hint: "nothing was written" },
      );
    text = readFileSync(file, "utf8");
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`--assets ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const problems: string[] = [];
  const assets: Asset[] = [];
  const names = new Set<string>();
  if (fields(lines[0] ?? "").join(",") !== "asset,decimals")
    problems.push(
      `line 1: expected the header asset,decimals, got ${JSON.stringify(lines[0]?.slice(0, 60))}`,
    );
  for (let i = 1; i < lines.length; i++) {
    const t = lines[i].trim();
    if (t === "" || t.startsWith("#")) continue;
    const f = fields(t);
    const at = `line ${i + 1}`;
    if (f.length !== 2) problems.push(`${at}: expected 2 fields (asset,decimals), got ${f.length}`);
    else if (!ASSET_NAME.test(f[0]))
      problems.push(`${at}: asset name ${JSON.stringify(f[0])}: letters, digits and . _ : - only, 1 to 32`);
    else if (!/^\d+$/.test(f[1]) || Number(f[1]) > MAX_DECIMALS)
      problems.push(`${at}: decimals ${JSON.stringify(f[1])}: a whole number from 0 to ${MAX_DECIMALS}`);
    else if (names.has(f[0])) problems.push(`${at}: asset ${f[0]} is named twice`);
    else {
      names.add(f[0]);
      assets.push({ asset: f[0], decimals: Number(f[1]) });
    }
  }
  if (!problems.length && !assets.length) problems.push("names no asset");
  if (!problems.length && assets.length > MAX_ASSETS)
    problems.push(`names ${assets.length} assets, more than the ${MAX_ASSETS} a build handles`);
  if (problems.length) refuse(`--assets ${file}`, problems.slice(0, MAX_PROBLEMS));
  return assets;
}

/** A growable typed array (doubling). */
function grown<T extends Uint8Array | Uint32Array | Int32Array>(
  a: T,
  need: number,
  make: (n: number) => T,
): T {
  if (need <= a.length) return a;
  let n = a.length || 1024;
  while (n < need) n *= 2;
  const b = make(n);
  b.set(a);
  return b;
}

/** What {@link balanceLines} gives in place of a line longer than {@link MAX_LINE_BYTES}: the last it gives. */
export const LONG_LINE = Symbol("a line past MAX_LINE_BYTES");

/** The refusal of a line longer than {@link MAX_LINE_BYTES}. */
export const longLine = (n: number): string =>
  `line ${n}: longer than ${MAX_LINE_BYTES.toLocaleString("en")} bytes, the most a line may take (a row takes a few hundred)`;

/**
 * The bytes of a file up to the start of the first line longer than `max` bytes (`\r` and `\n` end a
 * line), then the end; `long` set when it stopped there. It holds at most one line's start: the lines
 * before the long one reach readline whole, none of the long one does.
 */
class LineCap extends Transform {
  long = false;
  private tail = Buffer.alloc(0);
  constructor(private readonly max: number) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    if (!this.long) this.lines(chunk);
    done();
  }
  private stop(): void {
    this.long = true;
    this.tail = Buffer.alloc(0);
    this.push(null);
  }
  /** the chunk's whole lines passed on, its last line's start kept; stopped at a long line */
  private lines(chunk: Buffer): void {
    const isBreak = (c: number) => c === 10 || c === 13;
    let first = 0;
    while (first < chunk.length && !isBreak(chunk[first])) first++;
    // the line the tail began (all of the chunk, when it holds no break)
    if (this.tail.length + first > this.max) {
      this.stop();
      return;
    }
    if (first === chunk.length) {
      this.tail = Buffer.concat([this.tail, chunk]);
      return;
    }
    let last = chunk.length - 1;
    while (!isBreak(chunk[last])) last--;
    // a chunk larger than the limit may hold a long line between its breaks: passed on up to it
    if (chunk.length > this.max)
      for (let i = first + 1, start = i; i <= last; i++)
        if (isBreak(chunk[i])) {
          if (i - start > this.max) {
            this.push(Buffer.concat([this.tail, chunk.subarray(0, start)]));
            this.stop();
            return;
          }
          start = i + 1;
        }
    this.push(Buffer.concat([this.tail, chunk.subarray(0, last + 1)]));
    this.tail = Buffer.from(chunk.subarray(last + 1));
    if (this.tail.length > this.max) this.stop();
  }
  override _flush(done: TransformCallback): void {
    if (!this.long && this.tail.length) this.push(this.tail);
    done();
  }
}

/**
 * The balances file's lines, streamed (split as readline splits them: `\r\n`, a lone `\r`, `\n`), then
 * {@link LONG_LINE} in place of a line longer than MAX_LINE_BYTES, which ends them; UsageError when it
 * cannot be opened.
 */
export async function* balanceLines(file: string): AsyncGenerator<string | typeof LONG_LINE> {
  let input: ReturnType<typeof createReadStream>;
  try {
    input = createReadStream(file);
    await new Promise<void>((ok, fail) => input.once("open", () => ok()).once("error", fail));
  } catch (e) {
    throw new UsageError(`--input ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
  const cap = new LineCap(MAX_LINE_BYTES);
  input.pipe(cap);
  try {
    yield* createInterface({ input: cap, crlfDelay: Number.POSITIVE_INFINITY });
  } finally {
    input.destroy();
  }
  if (cap.long) yield LONG_LINE;
}

/** One row of the balances file, read: the id (text and UTF-8 bytes), the asset's index, base units. */
export interface BalanceRow {
  id: string;
  idb: Buffer;
  a: number;
  base: bigint;
}

/**
 * Line `n` (1 = the header) of the balances file: a row, undefined for the header, a blank or a comment
 * line, or the problem with it (naming the line).
 */
export function balanceRow(
  raw: string,
  n: number,
  assets: Asset[],
  assetIndex: Map<string, number>,
  /** the file's first line (a worker reading a later part numbers its lines from 1 too) */
  header = n === 1,
): BalanceRow | string | undefined {
  const at = `line ${n}`;
  if (header) {
    const header = fields(raw.replace(/^\uFEFF/, "")).join(",");
    return header === "customer_id,asset,amount"
      ? undefined
      : `${at}: expected the header customer_id,asset,amount, got ${JSON.stringify(raw.slice(0, 60))}`;
  }
  const t = raw.trim();
  if (t === "" || t.startsWith("#")) return undefined;
  const f = fields(t);
  if (f.length !== 3) return `${at}: expected 3 fields (customer_id,asset,amount), got ${f.length}`;
  const [id, assetName, amountText] = f;
  if (id === "") return `${at}: empty customer id`;
  if (UNPRINTABLE.test(id))
    return `${at}: customer id ${quoted(id.slice(0, 40))} holds a control or invisible character (a terminal would act on it, or two ids would look one)`;
  if (id.includes('"'))
    return `${at}: customer id ${JSON.stringify(id.slice(0, 40))}: quotes are not allowed (no CSV quoting)`;
  const a = assetIndex.get(assetName);
  if (a === undefined)
    return `${at}: unknown asset ${JSON.stringify(assetName.slice(0, 40))} (not in the assets table)`;
  const { decimals } = assets[a];
  const m = DECIMAL.exec(amountText);
  if (!m)
    return amountText.startsWith("-")
      ? `${at}: negative amount ${JSON.stringify(amountText.slice(0, 40))}`
      : `${at}: malformed amount ${JSON.stringify(amountText.slice(0, 40))} (decimal text like 1.25)`;
  const frac = (m[2] ?? "").replace(/0+$/, "");
  if (frac.length > decimals)
    return `${at}: ${amountText} ${assetName} has non-zero digits beyond the asset's ${decimals} decimals`;
  if (m[1].length > 60) return `${at}: amount ${amountText.slice(0, 20)}… overflows 128 bits`;
  const base = BigInt(m[1]) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, "0") || "0");
  if (base > MAX_AMOUNT) return `${at}: amount ${amountText} ${assetName} overflows 128 bits of base units`;
  const idb = Buffer.from(id, "utf8");
  if (idb.length > MAX_ID_BYTES) return `${at}: customer id longer than ${MAX_ID_BYTES} bytes`;
  return { id, idb, a, base };
}

/**
 * Customers aggregated from rows, in order of first appearance: typed arrays, sparse (one entry a row), an
 * open-addressing table over the ids' FNV-1a hashes and another over (customer, asset) pairs (a customer
 * given twice for an asset is refused naming the second line). The in-memory build feeds it every row; the
 * streamed build one bucket of rows at a time (a customer's rows all land in one bucket).
 */
export class LedgerBuilder {
  count = 0;
  /** entries (rows) */
  entries = 0;
  readonly totals: bigint[];
  private ids = new Uint8Array(1 << 16);
  private idBytes = 0;
  private idEnd = new Uint32Array(1024);
  private first = new Int32Array(1024);
  private last = new Int32Array(1024);
  private next = new Int32Array(1024);
  private asset = new Uint32Array(1024);
  private amounts = new Uint8Array(1024 * AMOUNT_BYTES);
  /** entry e's customer */
  private owner = new Int32Array(1024);
  // customer index + 1 per slot, the slot chosen by the id's FNV-1a hash
  private table = new Int32Array(1 << 12);
  private hashes = new Uint32Array(1024);
  // entry index + 1 per slot, the slot chosen by a hash of (customer, asset)
  private pairs = new Int32Array(1 << 12);

  constructor(readonly assets: Asset[]) {
    this.totals = assets.map(() => 0n);
  }

  private find(id: Uint8Array, h: number): number {
    const { table, hashes, ids, idEnd } = this;
    const mask = table.length - 1;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const c = table[s] - 1;
      if (c < 0) return -1 - s;
      if (hashes[c] !== h) continue;
      const start = c === 0 ? 0 : idEnd[c - 1];
      const end = idEnd[c];
      if (end - start === id.length && Buffer.compare(id, ids.subarray(start, end)) === 0) return c;
    }
  }

  private rehash(): void {
    this.table = new Int32Array(this.table.length * 2);
    const mask = this.table.length - 1;
    for (let c = 0; c < this.count; c++) {
      let s = this.hashes[c] & mask;
      while (this.table[s] !== 0) s = (s + 1) & mask;
      this.table[s] = c + 1;
    }
  }

  /** the (customer, asset) pair's slot: its entry's (≥ 0), or -1 - the free slot where it would go */
  private findPair(c: number, a: number): number {
    const { pairs, asset, owner } = this;
    const mask = pairs.length - 1;
    for (let s = pairHash(c, a) & mask; ; s = (s + 1) & mask) {
      const e = pairs[s] - 1;
      if (e < 0) return -1 - s;
      if (asset[e] === a && owner[e] === c) return s;
    }
  }

  private rehashPairs(): void {
    this.pairs = new Int32Array(this.pairs.length * 2);
    const mask = this.pairs.length - 1;
    for (let e = 0; e < this.entries; e++) {
      let s = pairHash(this.owner[e], this.asset[e]) & mask;
      while (this.pairs[s] !== 0) s = (s + 1) & mask;
      this.pairs[s] = e + 1;
    }
  }

  /** Adds a row read from line `n`; the problem (naming the line) when the customer has the asset already. */
  add(idb: Uint8Array, a: number, base: bigint, n: number): string | undefined {
    const h = fnv1a(idb);
    let c = this.find(idb, h);
    if (c < 0) {
      // a new customer
      c = this.count++;
      this.ids = grown(this.ids, this.idBytes + idb.length, (k) => new Uint8Array(k));
      this.ids.set(idb, this.idBytes);
      this.idBytes += idb.length;
      this.idEnd = grown(this.idEnd, this.count, (k) => new Uint32Array(k));
      this.idEnd[c] = this.idBytes;
      this.hashes = grown(this.hashes, this.count, (k) => new Uint32Array(k));
      this.hashes[c] = h;
      this.first = grown(this.first, this.count, (k) => new Int32Array(k));
      this.last = grown(this.last, this.count, (k) => new Int32Array(k));
      this.first[c] = -1;
      this.last[c] = -1;
      if (this.count * 2 > this.table.length) this.rehash();
      else this.table[-1 - this.find(idb, h)] = c + 1;
    }
    const assetName = this.assets[a].asset;
    const slot = this.findPair(c, a);
    if (slot >= 0) {
      const id = Buffer.from(idb).toString("utf8");
      return `line ${n}: customer ${JSON.stringify(id.slice(0, 40))} has ${assetName} twice`;
    }
    this.totals[a] += base;
    if (this.totals[a] > MAX_AMOUNT)
      return `line ${n}: the ${assetName} total overflows 128 bits of base units`;
    const e = this.entries++;
    this.next = grown(this.next, this.entries, (k) => new Int32Array(k));
    this.asset = grown(this.asset, this.entries, (k) => new Uint32Array(k));
    this.owner = grown(this.owner, this.entries, (k) => new Int32Array(k));
    this.amounts = grown(this.amounts, this.entries * AMOUNT_BYTES, (k) => new Uint8Array(k));
    this.next[e] = -1;
    this.asset[e] = a;
    this.owner[e] = c;
    putAmount(this.amounts, e * AMOUNT_BYTES, base);
    if (this.last[c] < 0) this.first[c] = e;
    else this.next[this.last[c]] = e;
    this.last[c] = e;
    if (this.entries * 2 > this.pairs.length) this.rehashPairs();
    else this.pairs[-1 - slot] = e + 1;
    return undefined;
  }

  /**
   * Empty again, its arrays kept at their size: the streamed build aggregates bucket after bucket in one
   * builder, so the arrays grow once, not once a bucket with the old ones left to the garbage collector.
   */
  reset(): void {
    this.table.fill(0);
    this.pairs.fill(0);
    this.totals.fill(0n);
    this.count = 0;
    this.entries = 0;
    this.idBytes = 0;
  }

  ledger(): Ledger {
    return {
      assets: this.assets,
      count: this.count,
      ids: this.ids.subarray(0, this.idBytes),
      idEnd: this.idEnd.subarray(0, this.count),
      first: this.first.subarray(0, this.count),
      next: this.next.subarray(0, this.entries),
      asset: this.asset.subarray(0, this.entries),
      amounts: this.amounts.subarray(0, this.entries * AMOUNT_BYTES),
      totals: this.totals,
    };
  }
}

/** A hash of a (customer, asset) pair for the duplicate check (not a security property). */
const pairHash = (c: number, a: number): number => Math.imul(c ^ Math.imul(a, 0x9e3779b1), 0x85ebca6b) >>> 7;

/**
 * Reads the balances file (streamed) against the assets table. Refused, naming the lines: a malformed or
 * negative amount, non-zero digits beyond the asset's decimals, an unknown asset, an empty id or one with
 * a control character, a customer id given twice for one asset, an amount or total beyond 2^128 - 1 base
 * units.
 */
export async function readLedger(file: string, assets: Asset[]): Promise<Ledger> {
  const assetIndex = new Map(assets.map((a, i) => [a.asset, i]));
  const problems: string[] = [];
  const ledger = new LedgerBuilder(assets);
  let n = 0;
  for await (const raw of balanceLines(file)) {
    n++;
    if (problems.length >= MAX_PROBLEMS) continue;
    if (raw === LONG_LINE) {
      problems.push(longLine(n));
      break;
    }
    const row = balanceRow(raw, n, assets, assetIndex);
    if (row === undefined) continue;
    const problem = typeof row === "string" ? row : ledger.add(row.idb, row.a, row.base, n);
    if (problem) problems.push(problem);
  }
  refuseEmpty(file, n, ledger.count, problems);
  return ledger.ledger();
}

/** The refusal of a balances file with problems, or with no customer at all. */
export function refuseEmpty(file: string, lines: number, customers: number, problems: string[]): void {
  if (lines === 0) problems.push("line 1: empty file (expected the header customer_id,asset,amount)");
  else if (!problems.length && customers === 0) problems.push("no customer (only the header)");
  if (problems.length) refuse(`--input ${file}`, problems);
}
