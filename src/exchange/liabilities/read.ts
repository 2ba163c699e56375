/**
 * Reading an exchange's file strictly: its JSON without losing a number's spelling, each member checked for
 * its kind and named with its line when wrong, a member no version of the format has refused, amounts as
 * exact decimals. Everything here throws a usage error (exit 2) before anything is judged; the checks that
 * judge what was read are in check.ts.
 */
import { UsageError } from "../../errors/index.js";
import { type JsonValue, memberLine, parseLossless } from "../../json/lossless.js";
import { JsonNumber } from "../../json/value.js";
import { quoted } from "../../util/escape.js";
import { type Dec, parseDec } from "./decimal.js";

/** A coin's name in an exchange's liabilities file: ASCII letters, digits and `. _ -`, 1 to 64 (`amounts`). */
const ASSET_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * One file's strict reader: every message names the file (and, where the member is known, its line), so a
 * verifier says which file once, not at every member it reads.
 */
export class FileReader {
  constructor(readonly file: string) {}

  /** The file's JSON read losslessly (numbers keep their spelling); a file that is not JSON is a usage error. */
  json(text: string): JsonValue {
    try {
      return parseLossless(text.replace(/^\uFEFF/, ""), { duplicates: "reject", lines: true });
    } catch (e) {
      throw this.error(`not JSON (${(e as Error).message})`);
    }
  }

  /** A usage error about this file: `file: message`. */
  error(message: string): UsageError {
    return new UsageError(`${this.file}: ${message}`);
  }

  /** `file:line` of the member `key` of `o` (an object read by `json`), or the file's name alone. */
  where(o: Obj, key: string): string {
    const line = memberLine(o, key);
    return line === undefined ? this.file : `${this.file}:${line}`;
  }

  /**
   * Every member of `o` one its format knows, else a usage error naming the member and its line: a member no
   * version of the format has is refused, never read as absent (a renamed amount read as zero would make an
   * honest proof fail and look like the exchange's fault). `what`: the format's files, in words.
   */
  members(o: Obj, known: readonly string[], at: string, what: string): void {
    for (const k of Object.keys(o))
      if (!known.includes(k))
        throw new UsageError(
          `${this.where(o, k)}: ${at ? `${at}.` : ""}${k}: not a member of ${what} (${at || "the top level"} has ${known.join(", ")}); chaingw reads no member it does not know`,
        );
  }

  /** The member `key` of `o` as an object / array / string / number text, or a usage error naming the field. */
  field(o: Obj, key: string, at: string, kind: "object"): Obj;
  field(o: Obj, key: string, at: string, kind: "array"): JsonValue[];
  field(o: Obj, key: string, at: string, kind: "string"): string;
  field(o: Obj, key: string, at: string, kind: "number"): string;
  field(o: Obj, key: string, at: string, kind: "object" | "array" | "string" | "number"): unknown {
    const v = o[key];
    const good =
      kind === "object"
        ? isObj(v)
        : kind === "array"
          ? Array.isArray(v)
          : kind === "string"
            ? typeof v === "string"
            : v instanceof JsonNumber;
    if (!good) throw this.error(`${at}.${key} must be ${kind === "array" ? "an" : "a"} ${kind}`);
    return kind === "number" ? (v as JsonNumber).raw : v;
  }

  /** The member `key` of `o` as a whole number (a level, a type), or a usage error naming the field. */
  int(o: Obj, key: string, at: string): number {
    const n = Number(this.field(o, key, at, "number"));
    if (!Number.isSafeInteger(n)) throw this.error(`${at}.${key} must be a whole number`);
    return n;
  }

  /**
   * A `balances` object: each member a decimal string or number, in file order; else a usage error. Each
   * asset's name is a coin's (`ASSET_NAME`): formats hash the names with separators (MEXC's
   * `K1:v1,K2:v2`), and a name holding one reads the same hash as other totals — `"PEPE:5000,SHIB": "0"` is
   * `PEPE:5000,SHIB:0`, the 5,000 PEPE owed gone from the root's totals under the published root; an
   * invisible or look-alike character would make one coin two names.
   */
  amounts(v: JsonValue | undefined, at: string): Amount[] {
    if (!isObj(v)) throw this.error(`${at} must be an object of amounts`);
    return Object.entries(v).map(([asset, x]) => {
      if (!ASSET_NAME.test(asset))
        throw new UsageError(
          `${this.where(v, asset)}: ${at}.${quoted(asset)}: not a coin's name (ASCII letters, digits and . _ - only, 1 to 64): a name holding a separator the format hashes (, : | = and the like) reads the same hash as other totals, and an invisible or look-alike character makes one coin two`,
        );
      const text = typeof x === "string" ? x : x instanceof JsonNumber ? x.raw : undefined;
      const value = text === undefined ? undefined : parseDec(text);
      if (text === undefined || value === undefined)
        throw this.error(`${at}.${asset} must be a decimal amount`);
      return { asset, raw: typeof x === "string" ? JSON.stringify(x) : text, text, value };
    });
  }
}

export type Obj = { [key: string]: JsonValue };
export const isObj = (v: unknown): v is Obj =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);

/** Entries in Java TreeMap's / Go's sorted-map order of their keys (UTF-16 code units, as both compare). */
export const sortedByKey = <T>(entries: Iterable<[string, T]>): [string, T][] =>
  [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** One asset's amount as the file spells it (the text hashed) and its value. */
export interface Amount {
  asset: string;
  /** the JSON token as written: `"0.1"` quoted, or `0.1000` bare */
  raw: string;
  /** the decimal text without quotes */
  text: string;
  value: Dec;
}

/** Running totals per asset, in first-seen order. */
export type Sums = Map<string, Dec>;

/** An object of amounts as [asset, value] pairs, for sums and checks. */
export const amountsOf = (a: Amount[]): [string, Dec][] => a.map((x) => [x.asset, x.value]);
