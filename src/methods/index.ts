/**
 * The method registry: the single source of truth for subcommands, validation, retry marks, `--help`
 * and the README's method table.
 */
import { chainForMethodName } from "../chains/index.js";
import { UsageError } from "../errors/index.js";
import { evmMethods } from "./evm.js";
import type { Group, Marks, MethodDef } from "./types.js";
import { utxoMethods } from "./utxo.js";

export const registry: readonly MethodDef[] = [...utxoMethods, ...evmMethods];

/** Distinct method names, registry order. */
export function methodNames(): string[] {
  return [...new Set(registry.map((m) => m.name))];
}

let byName: Map<string, readonly MethodDef[]> | undefined;
/** Every group's definition of `name` (a batch looks one up per input line: a map, not a scan). */
export function definitions(name: string): readonly MethodDef[] {
  if (!byName) {
    const lists = new Map<string, MethodDef[]>();
    for (const m of registry) {
      const list = lists.get(m.name);
      if (list) list.push(m);
      else lists.set(m.name, [m]);
    }
    // shared between callers: frozen, so none can change another's answer
    byName = new Map([...lists].map(([k, v]) => [k, Object.freeze(v)]));
  }
  return byName.get(name) ?? NONE;
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

export function marksText(m: MethodDef): string {
  const marks = [m.marks.idempotent && "idempotent", m.marks.heavy && "heavy"].filter(Boolean);
  return marks.length ? marks.join(", ") : "-";
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
    "Marks: idempotent methods may move to another upstream after a failure that may have reached the first;",
    "heavy methods are rate limited on the client (--heavy-rate).",
  );
  return out.join("\n");
}

/** Markdown method table for README, by group. */
export function methodTableMarkdown(): string {
  const rows = [
    "| group | method | params (in order; `?` optional) | marks | what it does |",
    "|---|---|---|---|---|",
  ];
  for (const m of registry) {
    const params = m.params.map((p) => (p.required ? p.name : `${p.name}?`)).join(", ") || "—";
    rows.push(
      `| ${m.group} | \`${m.name}\` | ${params} | ${marksText(m)} | ${m.summary.replace(/\|/g, "\\|")} |`,
    );
  }
  return rows.join("\n");
}
