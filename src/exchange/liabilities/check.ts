/**
 * What every exchange inclusion-proof verifier returns, and the steps they share: a customer's balances, the
 * root the path reached, and one Finding per check (the Finding of reserves/verdict.ts), each naming its
 * level. A verifier never throws on what the file says: a file that cannot be read is a usage error (exit 2)
 * before anything is judged; everything after that is a finding.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { UsageError } from "../../errors/index.js";
import { type JsonValue, parseLossless } from "../../json/lossless.js";
import { JsonNumber } from "../../json/value.js";
import { type Finding, type Verdict, verdictOfFindings } from "../../reserves/verdict.js";
import { compareDec, type Dec, parseDec, plainDec } from "./decimal.js";

/** What the command gives a verifier beside the file's text. */
export interface InclusionOptions {
  /** the file's name, for messages */
  file: string;
  /** the root published elsewhere (--root), hex; without it the root is the file's own */
  root?: string;
  /** a second file the format needs (OKX v2's full tree), its text and name */
  tree?: { text: string; file: string };
  /** BitMEX/River: the customer's account number and secret (nonce, or River's account key and e-mail) */
  account?: string;
  nonce?: string;
  accountKey?: string;
  email?: string;
  /** the Binance family: the tool's number of asset slots (else the known ones, then 1…1024, are tried) */
  assetSlots?: number;
}

export interface Balance {
  asset: string;
  amount: string;
}

export interface InclusionCheck {
  verdict: Verdict;
  /** the registry's name of the format */
  format: string;
  /** the root the path reached (hex as the format spells it), or null when none was reached */
  root: string | null;
  /** where the root compared against came from */
  root_source: "given" | "file";
  balances: Balance[];
  findings: Finding[];
}

/** The findings of one verification, in order. */
export class Steps {
  readonly findings: Finding[] = [];
  /** every hash the file gives, with where: judged for length once the path is walked */
  readonly hashes: { hash: string; at: string }[] = [];
  add(status: Finding["status"], step: string, text: string, at?: string): void {
    this.findings.push(at === undefined ? { status, step, text } : { status, step, at, text });
  }
  ok(step: string, text: string, at?: string): void {
    this.add("ok", step, text, at);
  }
  fail(step: string, text: string, at?: string): void {
    this.add("fails", step, text, at);
  }
  cannot(step: string, text: string, at?: string): void {
    this.add("cannot-say", step, text, at);
  }
  claim(step: string, text: string, at?: string): void {
    this.add("claim", step, text, at);
  }
  failed = (): boolean => this.findings.some((f) => f.status === "fails");
}

export const sha256Hex = (text: string): string => bytesToHex(sha256(utf8ToBytes(text)));

/** A file's JSON read losslessly (numbers keep their spelling); a file that is not JSON is a usage error. */
export function readJson(text: string, file: string): JsonValue {
  try {
    return parseLossless(text.replace(/^\uFEFF/, ""), { duplicates: "reject" });
  } catch (e) {
    throw new UsageError(`${file}: not JSON (${(e as Error).message})`);
  }
}

export type Obj = { [key: string]: JsonValue };
export const isObj = (v: unknown): v is Obj =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);

/** The member `key` of `o` as an object / array / string / number text, or a usage error naming the field. */
export function field(o: Obj, key: string, at: string, file: string, kind: "object"): Obj;
export function field(o: Obj, key: string, at: string, file: string, kind: "array"): JsonValue[];
export function field(o: Obj, key: string, at: string, file: string, kind: "string"): string;
export function field(o: Obj, key: string, at: string, file: string, kind: "number"): string;
export function field(
  o: Obj,
  key: string,
  at: string,
  file: string,
  kind: "object" | "array" | "string" | "number",
): unknown {
  const v = o[key];
  const good =
    kind === "object"
      ? isObj(v)
      : kind === "array"
        ? Array.isArray(v)
        : kind === "string"
          ? typeof v === "string"
          : v instanceof JsonNumber;
  if (!good) throw new UsageError(`${file}: ${at}.${key} must be ${kind === "array" ? "an" : "a"} ${kind}`);
  return kind === "number" ? (v as JsonNumber).raw : v;
}

/** The member `key` of `o` as a whole number (a level, a type), or a usage error naming the field. */
export function int(o: Obj, key: string, at: string, file: string): number {
  const n = Number(field(o, key, at, file, "number"));
  if (!Number.isSafeInteger(n)) throw new UsageError(`${file}: ${at}.${key} must be a whole number`);
  return n;
}

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

/** A `balances` object: each member a decimal string or number, in file order; else a usage error. */
export function readAmounts(v: JsonValue | undefined, at: string, file: string): Amount[] {
  if (!isObj(v)) throw new UsageError(`${file}: ${at} must be an object of amounts`);
  return Object.entries(v).map(([asset, x]) => {
    const text = typeof x === "string" ? x : x instanceof JsonNumber ? x.raw : undefined;
    const value = text === undefined ? undefined : parseDec(text);
    if (text === undefined || value === undefined)
      throw new UsageError(`${file}: ${at}.${asset} must be a decimal amount`);
    return { asset, raw: typeof x === "string" ? JSON.stringify(x) : text, text, value };
  });
}

/** Running totals per asset, in first-seen order. */
export type Sums = Map<string, Dec>;

/** Each negative amount of a node: a failure named with its level. */
export function refuseNegative(s: Steps, amounts: Iterable<[string, Dec]>, at: string, whose: string): void {
  for (const [asset, d] of amounts)
    if (d.units < 0n)
      s.fail(
        "balances",
        `${whose} holds a negative ${asset} amount (${plainDec(d)}): a negative sum hides other customers' balances`,
        at,
      );
}

export const amountsOf = (a: Amount[]): [string, Dec][] => a.map((x) => [x.asset, x.value]);

/**
 * A hash shorter than 128 bits (32 hex digits) can be forged by search: a failure naming where. Noted here
 * and said at the end: one finding when every hash of the file is cut alike (Bitget's 64 bits), else one
 * per level.
 */
export function refuseShortHash(s: Steps, hash: string, at: string): void {
  s.hashes.push({ hash, at });
}

function shortHashFindings(s: Steps): void {
  const short = s.hashes.filter((h) => h.hash.length > 0 && h.hash.length < 32);
  const text = (bits: number, what: string) =>
    `${what} cut to ${bits} bits (below 128): a different set of balances with the same hash can be searched for`;
  const bits = new Set(short.map((h) => h.hash.length * 4));
  if (short.length > 1 && short.length === s.hashes.length && bits.size === 1) {
    const first = short[0]!;
    s.fail(
      "hash",
      text(first.hash.length * 4, `every hash of the file (${short.length}) is`),
      `${first.at} … ${short.at(-1)!.at}`,
    );
  } else for (const h of short) s.fail("hash", text(h.hash.length * 4, `hash ${h.hash} is`), h.at);
}

/** `h` is a lower- or upper-case hex string of `len` digits (any length when omitted). */
export const isHex = (h: string, len?: number): boolean =>
  /^[0-9a-fA-F]*$/.test(h) && (len === undefined ? h.length > 0 : h.length === len);

/**
 * The root the path reached against the root compared with: `--root` when given, else the file's own, and
 * then said so (a root the same server sent shows nothing until compared with the one published elsewhere).
 */
export function compareRoot(
  s: Steps,
  reached: string | null,
  fileRoot: string | null,
  given: string | undefined,
  at: string,
): void {
  if (reached === null) return;
  const norm = (h: string) => h.toLowerCase().replace(/^0x/, "");
  if (fileRoot !== null && norm(reached) !== norm(fileRoot))
    s.fail("root", `the path reaches ${reached}, not the file's root ${fileRoot}`, at);
  if (given !== undefined) {
    if (norm(reached) === norm(given)) s.ok("root", `the path reaches the given root ${reached}`, at);
    else s.fail("root", `the path reaches ${reached}, not the given root ${given}`, at);
  } else if (fileRoot !== null && norm(reached) === norm(fileRoot))
    s.claim(
      "root",
      `the path reaches ${reached}, the root written in this same file: the root came from the file itself; compare it with the root the exchange published elsewhere (--root HEX)`,
      at,
    );
}

/** Totals compared asset by asset (absent = 0); a mismatch names the asset and both amounts. */
export function compareTotals(s: Steps, got: Sums, want: Amount[], at: string, whose: string): boolean {
  let same = true;
  const assets = new Set([...got.keys(), ...want.map((w) => w.asset)]);
  for (const asset of assets) {
    const g = got.get(asset) ?? { units: 0n, scale: 0 };
    const w = want.find((x) => x.asset === asset)?.value ?? { units: 0n, scale: 0 };
    if (compareDec(g, w) !== 0) {
      same = false;
      s.fail("sums", `${whose} ${asset}: the path sums to ${plainDec(g)}, the file says ${plainDec(w)}`, at);
    }
  }
  return same;
}

export function finish(
  format: string,
  s: Steps,
  root: string | null,
  given: string | undefined,
  balances: Balance[],
): InclusionCheck {
  shortHashFindings(s);
  return {
    verdict: verdictOfFindings(s.findings),
    format,
    root,
    root_source: given === undefined ? "file" : "given",
    balances,
    findings: s.findings,
  };
}
