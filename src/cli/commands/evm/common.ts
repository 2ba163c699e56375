/**
 * What the EVM commands share when they run, without ABI code: the group of a command that asks no node,
 * the registry's definition and a client for one that does, a parameter problem as a usage error, the
 * display unit of integer results.
 */
import { type ChainGroup, groupOf } from "../../../chains/index.js";
import { coinUnit, type Unit, unitOf } from "../../../chains/units.js";
import { chainFromFlags } from "../../../config/config.js";
import { ParamProblem, UsageError } from "../../../errors/index.js";
import { findMethod } from "../../../methods/index.js";
import type { MethodDef } from "../../../methods/types.js";
import { contextFor } from "../../context.js";
import type { Run } from "../../run.js";
import type { EvmFlags } from "./options.js";

/** The EVM-style group the flags (or env) name, for commands that ask no node; evm by default. */
export function offlineChain(run: Run, flags: EvmFlags, cmd: string): ChainGroup {
  const chain = groupOf(chainFromFlags(flags, run.env) ?? "evm");
  if (!chain.evm) throw new UsageError(`${cmd} is for the EVM groups: --chain evm or evm-compat`);
  return chain;
}

/** The registry's definition of `method` for the run's group, and a client; the profile's chain counts too. */
export function definitionAndContext(
  run: Run,
  flags: EvmFlags,
  method: string,
  o: { pooled?: boolean } = {},
) {
  let def: MethodDef = findMethod(method, chainFromFlags(flags, run.env) ?? "evm");
  const ctx = contextFor(run, flags, def.group, o);
  if (ctx.settings.chain && ctx.settings.chain !== def.group) def = findMethod(method, ctx.settings.chain);
  return { def, ctx, chain: groupOf(def.group) };
}

export const paramUsage = <T>(what: string, f: () => T): T => {
  try {
    return f();
  } catch (e) {
    if (e instanceof ParamProblem) throw new UsageError(`${what}: ${e.message}`);
    throw e;
  }
};

/** The unit integer results are also shown in (--unit, --ether, --gwei), if any. */
export function displayUnit(flags: EvmFlags, chain: ChainGroup, cmd: string): Unit | undefined {
  const name = flags.unit ?? (flags.ether ? coinUnit(chain).name : flags.gwei ? "gwei" : undefined);
  return name === undefined ? undefined : paramUsage(`${cmd}: --unit`, () => unitOf(chain, name));
}
