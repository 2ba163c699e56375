/**
 * Reading the custodian's export: the assets table (`asset,decimals`) and the balances file
 * (`customer_id,asset,amount`), streamed line by line into typed arrays — one id in a byte arena and one
 * 16-byte amount per customer and asset, no object per customer. Every refusal names the file and the line
 * as a text editor counts them (the header is line 1).
 */
import { createReadStream, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { UsageError } from "../errors/index.js";
import { quoted, UNPRINTABLE } from "../util/text.js";
import { AMOUNT_BYTES, fnv1a, MAX_AMOUNT, putAmount } from "./format.js";

export interface Asset {
  /** the name the balances file and the commitment use (e.g. BTC) */
  asset: string;
  decimals: number;
}

/** The balances, aggregated per customer in input order of first appearance. */
export interface Ledger {
  assets: Asset[];
  /** customers */
  count: number;
  /** every id's UTF-8 bytes, one after another; customer i's id is ids[idEnd[i-1] .. idEnd[i]] */
  ids: Uint8Array;
  idEnd: Uint32Array;
  /** customer i, asset a: amounts[(i * assets + a) * 16 ..] as a u128 big-endian */
  amounts: Uint8Array;
  /** per asset, in base units */
  totals: bigint[];
}

const MAX_PROBLEMS = 10;
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
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(`--assets ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const problems: string[] = [];
  const assets: Asset[] = [];
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
    else if (assets.some((a) => a.asset === f[0])) problems.push(`${at}: asset ${f[0]} is named twice`);
    else assets.push({ asset: f[0], decimals: Number(f[1]) });
  }
  if (!problems.length && !assets.length) problems.push("names no asset");
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

/** One balances line read: the customer's id, the asset's index in the table, the amount in base units. */
interface LedgerLine {
  id: string;
  asset: number;
  base: bigint;
}

/**
 * Reads one balances line (trimmed, not blank or a comment) into `out`; returns the problem instead when the
 * line is refused. `out` is reused line after line: no object per line.
 */
function readLine(
  t: string,
  at: string,
  assets: Asset[],
  assetIndex: Map<string, number>,
  out: LedgerLine,
): string | undefined {
  const f = fields(t);
  if (f.length !== 3) return `${at}: expected 3 fields (customer_id,asset,amount), got ${f.length}`;
  const [id, assetName, amountText] = f;
  if (id === "") return `${at}: empty customer id`;
  if (UNPRINTABLE.test(id))
    return `${at}: customer id ${quoted(id.slice(0, 40))} holds a control character (a terminal would act on it)`;
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
  out.id = id;
  out.asset = a;
  out.base = base;
  return undefined;
}

/**
 * The customers of a ledger as it is read: ids in one byte arena, found by their FNV-1a hash in an
 * open-addressing table, and per customer and asset a 16-byte amount and a "seen" mark. Grows by doubling.
 */
function customerTable(A: number) {
  let ids = new Uint8Array(1 << 16);
  let idBytes = 0;
  let idEnd = new Uint32Array(1024);
  let amounts = new Uint8Array(1024 * A * AMOUNT_BYTES);
  let seen = new Uint8Array(1024 * A);
  let count = 0;
  // open addressing: customer index + 1 per slot, the slot chosen by the id's FNV-1a hash
  let table = new Int32Array(1 << 12);
  let hashes = new Uint32Array(1024);

  const idAt = (i: number) => (i === 0 ? 0 : idEnd[i - 1]);
  const find = (id: Uint8Array, h: number): number => {
    const mask = table.length - 1;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const c = table[s] - 1;
      if (c < 0) return -1 - s;
      if (hashes[c] !== h) continue;
      const start = idAt(c);
      const end = idEnd[c];
      if (end - start === id.length && Buffer.compare(id, ids.subarray(start, end)) === 0) return c;
    }
  };
  const rehash = () => {
    table = new Int32Array(table.length * 2);
    const mask = table.length - 1;
    for (let c = 0; c < count; c++) {
      let s = hashes[c] & mask;
      while (table[s] !== 0) s = (s + 1) & mask;
      table[s] = c + 1;
    }
  };
  return {
    /** the customer of these id bytes, a new one at the end when not seen before */
    customer(idb: Uint8Array): number {
      const h = fnv1a(idb);
      let c = find(idb, h);
      if (c >= 0) return c;
      c = count++;
      ids = grown(ids, idBytes + idb.length, (k) => new Uint8Array(k));
      ids.set(idb, idBytes);
      idBytes += idb.length;
      idEnd = grown(idEnd, count, (k) => new Uint32Array(k));
      idEnd[c] = idBytes;
      hashes = grown(hashes, count, (k) => new Uint32Array(k));
      hashes[c] = h;
      amounts = grown(amounts, count * A * AMOUNT_BYTES, (k) => new Uint8Array(k));
      seen = grown(seen, count * A, (k) => new Uint8Array(k));
      if (count * 2 > table.length) rehash();
      else table[-1 - find(idb, h)] = c + 1;
      return c;
    },
    /** marks customer c's asset a as given; false when it was already */
    firstTime(c: number, a: number): boolean {
      if (seen[c * A + a]) return false;
      seen[c * A + a] = 1;
      return true;
    },
    put(c: number, a: number, base: bigint): void {
      putAmount(amounts, (c * A + a) * AMOUNT_BYTES, base);
    },
    get count() {
      return count;
    },
    /** the arrays, cut to what was used */
    result() {
      return {
        count,
        ids: ids.subarray(0, idBytes),
        idEnd: idEnd.subarray(0, count),
        amounts: amounts.subarray(0, count * A * AMOUNT_BYTES),
      };
    },
  };
}

/** The balances file as lines, or a usage error naming it when it cannot be opened. */
async function ledgerLines(file: string) {
  let input: ReturnType<typeof createReadStream>;
  try {
    input = createReadStream(file);
    await new Promise<void>((ok, fail) => input.once("open", () => ok()).once("error", fail));
  } catch (e) {
    throw new UsageError(`--input ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
  return createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
}

/**
 * Reads the balances file (streamed) against the assets table. Refused, naming the lines: a malformed or
 * negative amount, non-zero digits beyond the asset's decimals, an unknown asset, an empty id, a customer id
 * given twice for one asset, an amount or total beyond 2^128 - 1 base units.
 */
export async function readLedger(file: string, assets: Asset[]): Promise<Ledger> {
  const assetIndex = new Map(assets.map((a, i) => [a.asset, i]));
  const problems: string[] = [];
  const totals = assets.map(() => 0n);
  const customers = customerTable(assets.length);
  const line: LedgerLine = { id: "", asset: 0, base: 0n };
  let n = 0;
  for await (const raw of await ledgerLines(file)) {
    n++;
    if (problems.length >= MAX_PROBLEMS) continue;
    const at = `line ${n}`;
    if (n === 1) {
      const header = fields(raw.replace(/^\uFEFF/, "")).join(",");
      if (header !== "customer_id,asset,amount")
        problems.push(
          `${at}: expected the header customer_id,asset,amount, got ${JSON.stringify(raw.slice(0, 60))}`,
        );
      continue;
    }
    const t = raw.trim();
    if (t === "" || t.startsWith("#")) continue;
    const problem = readLine(t, at, assets, assetIndex, line);
    if (problem !== undefined) {
      problems.push(problem);
      continue;
    }
    const { id, asset: a, base } = line;
    const idb = Buffer.from(id, "utf8");
    if (idb.length > MAX_ID_BYTES) {
      problems.push(`${at}: customer id longer than ${MAX_ID_BYTES} bytes`);
      continue;
    }
    const c = customers.customer(idb);
    const assetName = assets[a].asset;
    if (!customers.firstTime(c, a)) {
      problems.push(`${at}: customer ${JSON.stringify(id.slice(0, 40))} has ${assetName} twice`);
      continue;
    }
    totals[a] += base;
    if (totals[a] > MAX_AMOUNT) {
      problems.push(`${at}: the ${assetName} total overflows 128 bits of base units`);
      continue;
    }
    customers.put(c, a, base);
  }
  if (n === 0) problems.push("line 1: empty file (expected the header customer_id,asset,amount)");
  else if (!problems.length && customers.count === 0) problems.push("no customer (only the header)");
  if (problems.length) refuse(`--input ${file}`, problems);
  return { assets, ...customers.result(), totals };
}
