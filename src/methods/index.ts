/**
 * The method registry: the single source of truth for subcommands, validation, retry marks, `--help`
 * and the README's method table.
 */
import { chainForMethodName, inEvmNamespace } from "../chains/index.js";
import { UsageError } from "../errors/index.js";
import { evmMethods } from "./evm.js";
import type { Group, Marks, MethodDef } from "./types.js";
import { utxoMethods } from "./utxo.js";

let all: readonly MethodDef[] | undefined;
/** Every group's methods, registry order (the EVM groups' made on first use: methods/evm.ts). */
export const registry = (): readonly MethodDef[] => (all ??= [...utxoMethods, ...evmMethods()]);

/** Distinct method names, registry order. */
export function methodNames(): string[] {
  return [...new Set(registry().map((m) => m.name))];
}

/** name → every group's definition of it: [bitcoind's names, EVM namespaces' names], each made on first use */
const byName: (Map<string, readonly MethodDef[]> | undefined)[] = [undefined, undefined];
/**
 * Every group's definition of `name` (a batch looks one up per input line: a map, not a scan). The UTXO
 * group's names are in no EVM namespace and the EVM groups' all are (test/methods-registry checks it), so a
 * UTXO name is looked up without the EVM groups' definitions being made.
 */
export function definitions(name: string): readonly MethodDef[] {
  const side = inEvmNamespace(name) ? 1 : 0;
  let map = byName[side];
  if (!map) {
    const lists = new Map<string, MethodDef[]>();
    for (const m of side ? evmMethods() : utxoMethods) {
      const list = lists.get(m.name);
      if (list) list.push(m);
      else lists.set(m.name, [m]);
    }
    // shared between callers: frozen, so none can change another's answer
    map = new Map([...lists].map(([k, v]) => [k, Object.freeze(v)]));
    byName[side] = map;
  }
  return map.get(name) ?? NONE;
}
const NONE: readonly MethodDef[] = Object.freeze([]);

/**
 * The definition of `name` for the chosen chain, or undefined. With no chain, a method in one group is
 * that group's; one in several (the eth_ methods) means the group its namespace suggests (`evm`).
 */
export function pickDefinition(name: string, chain?: Group): MethodDef | undefined {
  const defs = definitions(name);
  if (chain) return defs.find((m) => m.group === chain);
  const preferred = chainForMethodName(name).name;
  return defs.find((m) => m.group === preferred) ?? defs[0];
}

/** {@link pickDefinition}, with a usage error naming what exists when there is no such definition. */
export function findMethod(name: string, chain?: Group): MethodDef {
  const def = pickDefinition(name, chain);
  if (def) return def;
  const defs = definitions(name);
  if (defs.length === 0)
    throw new UsageError(
      `unknown method ${JSON.stringify(name)}; \`chaingw methods\` lists them, \`chaingw rpc\` sends any`,
    );
  throw new UsageError(
    `${name} is not a method of the ${chain} group (it is in ${defs.map((m) => m.group).join(", ")}); check --chain / CHAINGW_CHAIN / the profile`,
  );
}

/** What may be sent as a method name (`rpc`, batch lines): the registry's names and any node's. */
export const isMethodName = (s: string): boolean => /^[A-Za-z0-9_.:-]{1,100}$/.test(s);

/** The marks of a method outside the registry: neither idempotent nor heavy. */
export const UNKNOWN_MARKS: Marks = Object.freeze({ idempotent: false, heavy: false });

/** Whether a call of `def` with `params` changes the node's state or starts work there (MethodDef.writes). */
export const writesOf = (def: MethodDef | undefined, params: readonly unknown[]): boolean =>
  def?.writes?.when.includes(params[0] as string) === true;

/** The writes mark as words: "writes (start, abort)", or nothing for a method that only reads. */
const writesText = (m: MethodDef): string | false =>
  m.writes !== undefined && `writes (${m.writes.when.join(", ")})`;

export function marksText(m: MethodDef): string {
  const marks = [m.marks.idempotent && "idempotent", m.marks.heavy && "heavy", writesText(m)].filter(Boolean);
  return marks.length ? marks.join(", ") : "-";
}

/** The writes mark's note for help and docs, from the registry: which calls are never sent twice. */
function writesNote(): string {
  const marked = registry().filter((m) => m.writes !== undefined);
  const calls = [...new Set(marked.map((m) => `${m.name} ${m.writes?.when.join("/")}`))];
  return `Writes: ${calls.join("; ")} change the node's state or start work on it (chaingw's reading; the spec marks none): never sent twice, not even after a kept-alive connection was reset under it. Every other call only reads.`;
}

/** The help text shown under `chaingw <method> --help`, per group. */
export function methodHelp(name: string): string {
  const out: string[] = [];
  for (const m of definitions(name)) {
    out.push("", `${m.group} group — marks: ${marksText(m)}`);
    if (m.params.length === 0) out.push("  params: none");
    for (const [i, p] of m.params.entries()) {
      out.push(`  ${i + 1}. ${p.name} (${p.type}, ${p.required ? "required" : "optional"}): ${p.help}`);
    }
    out.push(`  result: ${m.result}`);
  }
  out.push(
    "",
    "Marks: idempotent methods may move to another upstream after a failure that may have reached the first; heavy methods are rate limited on the client (--heavy-rate).",
    ...(definitions(name).some((m) => m.writes) ? [writesNote()] : []),
  );
  return out.join("\n");
}

/** Where a mark comes from: the gateway spec, or chaingw's own reading where the spec says nothing. */
export type MarkSource = "spec" | "chaingw";

/**
 * Each mark of a method and its source. The spec lists the idempotent methods (for the others "the
 * marking is not shown": not idempotent is chaingw's cautious reading) and every heavy one (§8: so
 * "not heavy" is the spec's too). A method outside the spec (`spec: false`) has only chaingw's marks.
 */
export function markSources(m: MethodDef): Record<keyof Marks, { value: boolean; from: MarkSource }> {
  if (m.spec === false)
    return {
      idempotent: { value: m.marks.idempotent, from: "chaingw" },
      heavy: { value: m.marks.heavy, from: "chaingw" },
    };
  return {
    idempotent: { value: m.marks.idempotent, from: m.marks.idempotent ? "spec" : "chaingw" },
    heavy: { value: m.marks.heavy, from: "spec" },
  };
}

/** One row of the method table (`chaingw methods`, its --json, the README). */
export interface MethodRow {
  group: Group;
  method: string;
  inSpec: boolean;
  params: string;
  idempotent: { value: boolean; from: MarkSource };
  heavy: { value: boolean; from: MarkSource };
  /** the first param's values whose calls change the node's state (MethodDef.writes); empty: only reads */
  writes: readonly string[];
  summary: string;
}

export function methodRows(): MethodRow[] {
  return registry().map((m) => ({
    group: m.group,
    method: m.name,
    inSpec: m.spec !== false,
    params: m.params.map((p) => (p.required && p.default === undefined ? p.name : `${p.name}?`)).join(", "),
    ...markSources(m),
    writes: m.writes?.when ?? [],
    summary: m.summary,
  }));
}

export const markCell = (x: { value: boolean; from: MarkSource }): string =>
  `${x.value ? "yes" : "no"} (${x.from})`;

/** Markdown method table for README, by group. */
export function methodTableMarkdown(): string {
  const rows = [
    "| group | method | in spec | params (in order; `?` optional) | idempotent | heavy | what it does |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const r of methodRows()) {
    rows.push(
      `| ${r.group} | \`${r.method}\` | ${r.inSpec ? "yes" : "no"} | ${r.params || "—"} | ${markCell(r.idempotent)} | ${markCell(r.heavy)} | ${r.summary.replace(/\|/g, "\\|")} |`,
    );
  }
  rows.push(
    "",
    "Marks: *(spec)* as the gateway spec gives it; *(chaingw)* chaingw's own reading where the spec says nothing (reads are idempotent; a method the spec lists without the idempotent mark is not retried elsewhere).",
    "",
    writesNote(),
  );
  return rows.join("\n");
}
