/**
 * ABI work for the EVM commands, on ox (viem's own foundation): signatures and ABI files → functions,
 * events and errors; command-line texts → typed arguments; decoded values → JSON (big integers as exact
 * decimal strings) and human text. This module is imported only by the commands that need it, so a
 * plain JSON-RPC call never loads ox.
 */
import { readFileSync } from "node:fs";
import { address as evmAddress } from "../chains/evm-values.js";
import type { ChainGroup } from "../chains/index.js";
import type { CustomErrorDecoder } from "../chains/revert.js";
import { amountWithUnit } from "../chains/units.js";
import { ParamProblem, UsageError } from "../errors/index.js";
import { JsonNumber, type JsonValue } from "../json/lossless.js";
import { AbiError, AbiEvent, AbiFunction, AbiParameters } from "../util/ox.js";
import { isJsonObject } from "../util/text.js";

export type Fn = AbiFunction.AbiFunction;
export type Event = AbiEvent.AbiEvent;
export type Param = AbiParameters.Parameter;
/** A decoded value as JSON: integers as decimal strings, bytes and addresses as 0x hex. */
export type Plain = string | boolean | Plain[] | { [k: string]: Plain };

const firstLine = (e: unknown) => String((e as Error)?.message ?? e).split("\n")[0];

/** The index just after the parenthesised group that starts at `open`, or -1 when it never closes. */
function closeOf(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === "(") depth++;
    else if (s[i] === ")" && --depth === 0) return i + 1;
  }
  return -1;
}

/**
 * A function from a signature as cast users write it — `balanceOf(address)(uint256)` — or in Solidity's
 * human-readable form (`function balanceOf(address) view returns (uint256)`).
 */
export function parseFunction(sig: string, what = "signature"): Fn {
  let s = sig.trim().replace(/^function\s+/, "");
  if (!/\breturns\b/.test(s)) {
    const open = s.indexOf("(");
    const end = open < 0 ? -1 : closeOf(s, open);
    if (end < 0)
      throw new UsageError(`invalid ${what} ${JSON.stringify(sig)}: expected name(types)[(return types)]`);
    const rest = s.slice(end).trim();
    if (rest && !(rest.startsWith("(") && closeOf(rest, 0) === rest.length))
      throw new UsageError(
        `invalid ${what} ${JSON.stringify(sig)}: after the inputs only (return types) may follow, got ${JSON.stringify(rest)}`,
      );
    s = `${s.slice(0, end)}${rest ? ` returns ${rest}` : ""}`;
  }
  try {
    return AbiFunction.from(`function ${s}` as never);
  } catch (e) {
    throw new UsageError(`invalid ${what} ${JSON.stringify(sig)}: ${firstLine(e)}`);
  }
}

/** An event from `Transfer(address indexed from, address indexed to, uint256 value)` (with or without `event`). */
export function parseEvent(sig: string): Event {
  const s = sig.trim().replace(/^event\s+/, "");
  try {
    return AbiEvent.from(`event ${s}` as never);
  } catch (e) {
    throw new UsageError(`invalid event signature ${JSON.stringify(sig)}: ${firstLine(e)}`);
  }
}

/** An error from `InsufficientBalance(address,uint256,uint256)` (with or without `error`). */
export function parseError(sig: string): AbiError.AbiError {
  const s = sig.trim().replace(/^error\s+/, "");
  try {
    return AbiError.from(`error ${s}` as never);
  } catch (e) {
    throw new UsageError(`invalid --error-sig ${JSON.stringify(sig)}: ${firstLine(e)}`);
  }
}

/** A JSON ABI file: an array, or an artifact holding one under `abi` (solc, foundry, hardhat). */
export function loadAbi(path: string): readonly Record<string, unknown>[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new UsageError(`--abi ${path}: ${(e as NodeJS.ErrnoException).code ?? firstLine(e)}`);
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--abi ${path}: not JSON (${firstLine(e)})`);
  }
  const inner = isJsonObject(v) ? (v as unknown as { abi?: unknown }).abi : undefined;
  const abi = Array.isArray(v) ? v : Array.isArray(inner) ? inner : undefined;
  if (!abi) throw new UsageError(`--abi ${path}: expected a JSON ABI array or an object with "abi"`);
  return abi.filter((x): x is Record<string, unknown> => isJsonObject(x));
}

const itemsNamed = (abi: readonly Record<string, unknown>[], type: string, name: string) =>
  abi.filter((x) => x.type === type && x.name === name);

/** The function `name` of an ABI; with overloads, the one taking `argc` arguments. */
export function functionFromAbi(
  abi: readonly Record<string, unknown>[],
  name: string,
  argc: number,
  path: string,
): Fn {
  const all = itemsNamed(abi, "function", name);
  if (all.length === 0) {
    const names = [...new Set(abi.filter((x) => x.type === "function").map((x) => String(x.name)))];
    throw new UsageError(
      `--abi ${path}: no function ${JSON.stringify(name)}; it has ${names.slice(0, 20).join(", ") || "no functions"}`,
    );
  }
  const fit = all.filter((x) => ((x.inputs as unknown[]) ?? []).length === argc);
  if (fit.length !== 1) {
    const sigs = all.map((x) => AbiFunction.format(AbiFunction.from(x as never)));
    throw new UsageError(
      fit.length === 0
        ? `--abi ${path}: ${name} takes ${all.map((x) => ((x.inputs as unknown[]) ?? []).length).join(" or ")} arguments, got ${argc}`
        : `--abi ${path}: ${name} is overloaded (${sigs.join("; ")}); give the signature instead`,
    );
  }
  return AbiFunction.from(fit[0] as never);
}

export function eventFromAbi(abi: readonly Record<string, unknown>[], name: string, path: string): Event {
  const all = itemsNamed(abi, "event", name);
  if (all.length !== 1) {
    const names = abi.filter((x) => x.type === "event").map((x) => String(x.name));
    throw new UsageError(
      all.length === 0
        ? `--abi ${path}: no event ${JSON.stringify(name)}; it has ${names.join(", ") || "no events"}`
        : `--abi ${path}: event ${name} is overloaded; give its signature instead`,
    );
  }
  return AbiEvent.from(all[0] as never);
}

export const errorsOfAbi = (abi: readonly Record<string, unknown>[]): AbiError.AbiError[] =>
  abi.filter((x) => x.type === "error").map((x) => AbiError.from(x as never));

// ---- command-line text → argument values ----------------------------------------------------------

/** Splits `[a, b, [c, d]]` / `(a, b)` at top-level commas; quotes protect commas inside strings. */
function splitList(text: string, open: string, close: string): string[] {
  const s = text.trim();
  if (!s.startsWith(open) || !s.endsWith(close))
    throw new ParamProblem(`expected ${open}...${close}, got ${JSON.stringify(s.slice(0, 60))}`);
  const body = s.slice(1, -1);
  if (body.trim() === "") return [];
  const out: string[] = [];
  let depth = 0;
  let quote = false;
  let cur = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '"' && body[i - 1] !== "\\") quote = !quote;
    if (!quote) {
      if (c === "[" || c === "(") depth++;
      else if (c === "]" || c === ")") depth--;
      else if (c === "," && depth === 0) {
        out.push(cur.trim());
        cur = "";
        continue;
      }
    }
    cur += c;
  }
  out.push(cur.trim());
  return out;
}

const unquote = (s: string) =>
  s.length >= 2 && s.startsWith('"') && s.endsWith('"') ? (JSON.parse(s) as string) : s;

const INT = /^(u?)int(\d*)$/;

/** One argument's text as the value ox encodes; throws ParamProblem saying what is wrong. */
export function argFromText(p: Param, text: string, chain: ChainGroup, inList = false): unknown {
  const t = p.type;
  const arr = /^(.*)\[(\d*)\]$/.exec(t);
  if (arr) {
    const items = splitList(text, "[", "]");
    if (arr[2] !== "" && items.length !== Number(arr[2]))
      throw new ParamProblem(`${t} takes ${arr[2]} items, got ${items.length}`);
    return items.map((x) => argFromText({ ...p, type: arr[1] } as Param, x, chain, true));
  }
  if (t === "tuple") {
    const comps = (p as { components?: readonly Param[] }).components ?? [];
    const items = splitList(text, "(", ")");
    if (items.length !== comps.length)
      throw new ParamProblem(`the tuple takes ${comps.length} values, got ${items.length}`);
    return items.map((x, i) => argFromText(comps[i], x, chain, true));
  }
  const s = inList ? unquote(text.trim()) : text;
  if (t === "address") return evmAddress(chain, s.trim());
  const int = INT.exec(t);
  if (int) {
    const v = s.trim();
    let n: bigint;
    if (/^-?\d+$/.test(v)) n = BigInt(v);
    else if (/^0x[0-9a-fA-F]+$/.test(v)) n = BigInt(v);
    else {
      const withUnit = amountWithUnit(chain, v);
      if (withUnit === undefined)
        throw new ParamProblem(
          `expected an integer (decimal, 0x hex, or an amount like 1.5ether), got ${JSON.stringify(v.slice(0, 40))}`,
        );
      n = withUnit;
    }
    const bits = BigInt(int[2] || "256");
    const [lo, hi] = int[1] ? [0n, 2n ** bits - 1n] : [-(2n ** (bits - 1n)), 2n ** (bits - 1n) - 1n];
    if (n < lo || n > hi) throw new ParamProblem(`${v} is out of range for ${t}`);
    return n;
  }
  if (t === "bool") {
    const v = s.trim().toLowerCase();
    if (v === "true" || v === "1") return true;
    if (v === "false" || v === "0") return false;
    throw new ParamProblem(`expected true or false, got ${JSON.stringify(s.slice(0, 40))}`);
  }
  if (/^bytes\d*$/.test(t)) {
    const v = s.trim();
    if (!/^0x([0-9a-fA-F]{2})*$/.test(v))
      throw new ParamProblem(`expected 0x hex bytes, got ${JSON.stringify(v.slice(0, 40))}`);
    const size = t.slice(5);
    if (size && (v.length - 2) / 2 !== Number(size))
      throw new ParamProblem(`${t} takes ${size} bytes, got ${(v.length - 2) / 2}`);
    return v.toLowerCase();
  }
  if (t === "string") return s;
  throw new ParamProblem(`arguments of type ${t} are not supported on the command line`);
}

const paramName = (p: Param, i: number) => `argument ${i + 1} (${p.type}${p.name ? ` ${p.name}` : ""})`;

/** All arguments of a function, each checked: a UsageError names the argument. */
export function argsFromText(
  cmd: string,
  params: readonly Param[],
  texts: readonly string[],
  chain: ChainGroup,
): unknown[] {
  if (texts.length !== params.length)
    throw new UsageError(
      `${cmd}: the signature takes ${params.length} argument${params.length === 1 ? "" : "s"} (${params.map((p) => p.type).join(", ") || "none"}), got ${texts.length}`,
    );
  return params.map((p, i) => {
    try {
      return argFromText(p, texts[i], chain);
    } catch (e) {
      throw new UsageError(`${cmd}: ${paramName(p, i)}: ${firstLine(e)}`);
    }
  });
}

export const selectorOf = (fn: Fn): string => AbiFunction.getSelector(fn).toLowerCase();

/** Calldata: selector + encoded arguments. */
export function encodeCall(cmd: string, fn: Fn, texts: readonly string[], chain: ChainGroup): string {
  const args = argsFromText(cmd, fn.inputs, texts, chain);
  try {
    return AbiFunction.encodeData(fn, args as never);
  } catch (e) {
    throw new UsageError(`${cmd}: ${firstLine(e)}`);
  }
}

// ---- decoded values → JSON and text ---------------------------------------------------------------

/** A decoded value as JSON: bigints as exact decimal strings, tuples with named fields as objects. */
export function plain(p: Param, v: unknown): Plain {
  const arr = /^(.*)\[(\d*)\]$/.exec(p.type);
  if (arr && Array.isArray(v)) return v.map((x) => plain({ ...p, type: arr[1] } as Param, x));
  if (p.type === "tuple") {
    const comps = (p as { components?: readonly Param[] }).components ?? [];
    const named = comps.length > 0 && comps.every((c) => c.name);
    const get = (i: number) => (Array.isArray(v) ? v[i] : (v as Record<string, unknown>)[comps[i].name ?? i]);
    if (named) return Object.fromEntries(comps.map((c, i) => [c.name as string, plain(c, get(i))]));
    return comps.map((c, i) => plain(c, get(i)));
  }
  if (typeof v === "bigint") return v.toString(10);
  if (typeof v === "boolean") return v;
  return String(v);
}

const U64_MAX = 2n ** 64n - 1n;
const I64_MIN = -(2n ** 63n);

/**
 * A decoded value for `--json`, as cast prints it: an integer that fits 64 bits as a JSON number (a uint8
 * is 18, not "18"), a wider one as its exact decimal string; the rest as {@link plain} has it.
 */
export function jsonOf(p: Param, v: Plain): JsonValue {
  const arr = /^(.*)\[(\d*)\]$/.exec(p.type);
  if (arr && Array.isArray(v)) return v.map((x) => jsonOf({ ...p, type: arr[1] } as Param, x));
  if (p.type === "tuple") {
    const comps = (p as { components?: readonly Param[] }).components ?? [];
    if (Array.isArray(v)) return v.map((x, i) => jsonOf(comps[i] ?? p, x));
    if (typeof v === "object")
      return Object.fromEntries(
        comps.map((c) => [c.name as string, jsonOf(c, (v as Record<string, Plain>)[c.name ?? ""])]),
      );
  }
  if (typeof v === "string" && /^u?int\d*$/.test(p.type) && /^-?\d+$/.test(v)) {
    const n = BigInt(v);
    if (n >= I64_MIN && n <= U64_MAX) return new JsonNumber(v);
  }
  return v as JsonValue;
}

/** Decodes ABI data against a parameter list; a UsageError says the data does not fit. */
export function decodeValues(params: readonly Param[], data: string): Plain[] {
  try {
    const out = AbiParameters.decode(params, data as `0x${string}`) as unknown[];
    return params.map((p, i) => plain(p, out[i]));
  } catch (e) {
    throw new ParamProblem(
      `the data does not decode as (${params.map((p) => p.type).join(",")}): ${firstLine(e)}`,
    );
  }
}

/**
 * Human text of a value by its ABI type: strings quoted (raw at the top level), other scalars as they
 * are, lists in brackets, tuples in parentheses with their field names.
 */
export function valueText(p: Param, v: Plain, top = true): string {
  const arr = /^(.*)\[(\d*)\]$/.exec(p.type);
  if (arr && Array.isArray(v))
    return `[${v.map((x) => valueText({ ...p, type: arr[1] } as Param, x, false)).join(", ")}]`;
  if (p.type === "tuple") {
    const comps = (p as { components?: readonly Param[] }).components ?? [];
    if (Array.isArray(v)) return `(${v.map((x, i) => valueText(comps[i] ?? p, x, false)).join(", ")})`;
    if (typeof v === "object")
      return `(${comps.map((c) => `${c.name}: ${valueText(c, (v as Record<string, Plain>)[c.name ?? ""], false)}`).join(", ")})`;
  }
  if (typeof v === "string" && p.type === "string" && !top) return JSON.stringify(v);
  return typeof v === "string" ? v : String(v);
}

/** Custom errors by selector, for revert messages: `Name(field: value, ...)`. */
export function customErrorDecoder(errors: readonly AbiError.AbiError[]): CustomErrorDecoder | undefined {
  if (errors.length === 0) return undefined;
  const bySelector = new Map(errors.map((e) => [AbiError.getSelector(e).toLowerCase(), e]));
  return (hex) => {
    const e = bySelector.get(hex.slice(0, 10).toLowerCase());
    if (!e) return undefined;
    try {
      const args = AbiParameters.decode(e.inputs, `0x${hex.slice(10)}`) as unknown[];
      const fields = e.inputs.map(
        (p, i) => `${p.name ? `${p.name}: ` : ""}${valueText(p, plain(p, args[i]), false)}`,
      );
      return `${e.name}(${fields.join(", ")})`;
    } catch {
      return `${e.name} (arguments do not decode)`;
    }
  };
}

// ---- events ---------------------------------------------------------------------------------------

export const topic0 = (e: Event): string => AbiEvent.getSelector(e);

/** The indexed inputs of an event, in order. */
export const indexedInputs = (e: Event): Param[] =>
  e.inputs.filter((p) => (p as { indexed?: boolean }).indexed) as Param[];

/**
 * The topics filter of an event: topic0, then one position per indexed argument given. A text of "",
 * "*" or "null" matches any value; "a|b" matches either (ox encodes strings and bytes as their hash).
 */
export function eventTopics(
  e: Event,
  texts: readonly string[],
  chain: ChainGroup,
): (string | string[] | null)[] {
  const idx = indexedInputs(e);
  if (texts.length > idx.length)
    throw new UsageError(
      `logs: ${e.name} has ${idx.length} indexed argument${idx.length === 1 ? "" : "s"} (${idx.map((p) => `${p.type}${p.name ? ` ${p.name}` : ""}`).join(", ") || "none"}), got ${texts.length} filters`,
    );
  const values = texts.map((t, i) => {
    const s = t.trim();
    if (s === "" || s === "*" || s.toLowerCase() === "null") return null;
    try {
      const alts = s.split("|").map((x) => argFromText(idx[i], x.trim(), chain));
      return alts.length === 1 ? alts[0] : alts;
    } catch (err) {
      throw new UsageError(`logs: indexed ${paramName(idx[i], i)}: ${firstLine(err)}`);
    }
  });
  try {
    const topics = [...AbiEvent.encode(e, values as never).topics];
    // trailing "any" positions say nothing: leave them out
    while (topics.length > 1 && topics[topics.length - 1] === null) topics.pop();
    return topics as (string | string[] | null)[];
  } catch (err) {
    throw new UsageError(`logs: ${firstLine(err)}`);
  }
}

/** A log's decoded arguments, by name (or position for unnamed ones); undefined when it is another event. */
export function decodeLog(e: Event, topics: string[], data: string): Record<string, Plain> | undefined {
  let args: unknown;
  try {
    args = AbiEvent.decode(e, { topics: topics as never, data: data as `0x${string}` });
  } catch {
    return undefined;
  }
  const out: Record<string, Plain> = {};
  e.inputs.forEach((p, i) => {
    const key = p.name || String(i);
    const v = Array.isArray(args) ? args[i] : (args as Record<string, unknown>)[key];
    out[key] = plain(p as Param, v);
  });
  return out;
}
