/**
 * The fast path of a plain method call (`chaingw [global options] <method> [params...]`, what a script
 * runs in a loop): argv read with the global options' own list, no command tree built, commander never
 * loaded. Anything else — help, version, another command, an option this reader does not know, a param
 * that starts with a dash — returns undefined and takes the whole tree (src/cli/main.ts), which then
 * gives the same answers it always did.
 */
import type { GlobalFlags } from "../config/config.js";
import { UsageError } from "../errors/index.js";
import { definitions } from "../methods/index.js";

import type { Run } from "./context.js";
import { optionNamed } from "./global-options.js";

export interface FastCall {
  method: string;
  params: string[];
  flags: GlobalFlags;
}

/** The call argv asks for, if it is a plain one; undefined sends it to the command tree. */
export function plainCall(argv: readonly string[]): FastCall | undefined {
  const flags: Record<string, unknown> = {};
  let method: string | undefined;
  const params: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith("-")) {
      const eq = a.startsWith("--") ? a.indexOf("=") : -1;
      const o = optionNamed(eq > 0 ? a.slice(0, eq) : a);
      if (!o) return undefined;
      if (!o.takesValue) {
        if (eq > 0) return undefined;
        flags[o.key] = !o.negate;
        continue;
      }
      const v = eq > 0 ? a.slice(eq + 1) : argv[++i];
      if (v === undefined || (eq < 0 && v.startsWith("-"))) return undefined;
      if (o.choices && !o.choices.includes(v)) return undefined;
      // a second value of a one-value option: the tree refuses it, naming both (src/cli/options.ts)
      if (!o.repeatable && o.key in flags) return undefined;
      flags[o.key] = o.repeatable ? [...((flags[o.key] as string[]) ?? []), v] : v;
      continue;
    }
    if (method === undefined) method = a;
    else params.push(a);
  }
  // --json beside another --format: the tree refuses it (src/cli/options.ts, formatConflict)
  if (method === undefined || (flags.json === true && flags.format !== undefined && flags.format !== "json"))
    return undefined;
  const defs = definitions(method);
  // --range, a method's own options and the rest of the tree are commander's
  if (defs.length === 0 || defs.some((d) => d.range)) return undefined;
  return { method, params, flags: flags as GlobalFlags };
}

/**
 * Commander's arity messages for a call without --named/--stdin: the same words whichever path runs.
 * The widest definition over the groups decides, as the command tree's arguments do.
 */
function checkArity(call: FastCall): void {
  if (call.flags.named || call.flags.stdin) return;
  const defs = definitions(call.method);
  const widest = defs.reduce((a, b) => (b.params.length > a.params.length ? b : a));
  const required = widest.params.filter((p) =>
    defs.every((x) => {
      const q = x.params.find((y) => y.name === p.name);
      return q?.required && q.default === undefined;
    }),
  );
  const missing = required.find((_, i) => call.params[i] === undefined);
  if (missing) throw new UsageError(`missing required argument '${missing.name}'`);
  const n = widest.params.length;
  if (call.params.length > n)
    throw new UsageError(
      `too many arguments for '${call.method}'. Expected ${n} argument${n === 1 ? "" : "s"} but got ${call.params.length}.`,
    );
}

export async function runPlain(run: Run, call: FastCall): Promise<void> {
  checkArity(call);
  const { runMethod } = await import("./commands/method/call.js");
  await runMethod(run, call.method, call.params, call.flags, {});
}
