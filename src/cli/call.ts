/** Running one registry method (or a raw `rpc` call) and printing its result. */
import { chainFromFlags, type GlobalFlags } from "../config/config.js";
import { RpcError, UsageError } from "../errors/index.js";
import { type JsonValue, parseLossless } from "../json/lossless.js";
import { definitions, findMethod, isMethodName, UNKNOWN_MARKS } from "../methods/index.js";
import { buildParams } from "../methods/params.js";
import type { MethodDef } from "../methods/types.js";
import { renderValue } from "../output/human.js";
import { withSpinner } from "../output/spinner.js";
import { markedCall } from "../rpc/client.js";
import { makeContext } from "./context.js";
import { interrupt } from "./signals.js";

export async function runMethod(
  name: string,
  texts: string[],
  flags: GlobalFlags,
  opts: Record<string, unknown>,
): Promise<void> {
  // chain from flag/env decides the definition now; a profile's chain is applied after settings load
  let def: MethodDef = findMethod(name, chainFromFlags(flags, process.env));
  const ctx = makeContext(flags, def.group);
  if (ctx.settings.chain && ctx.settings.chain !== def.group) def = findMethod(name, ctx.settings.chain);
  let params = buildParams(def, texts, true);
  if (def.fromOptions) params = def.fromOptions(opts, params);
  def.refine?.(params);
  const long = def.longRunning?.(params) ?? false;
  if (long) {
    interrupt.hint = `the node may still be running ${def.name}; \`chaingw reserves status\` shows it, \`chaingw reserves abort\` stops it`;
  }
  const call = ctx.client.call(def.name, params, markedCall(def.marks, long, ctx.settings.scanTimeoutMs));
  const { result, raw } = await withSpinner(`${def.name} …`, call, !ctx.settings.json).catch((e: unknown) => {
    throw (e instanceof RpcError && def.explainError?.(e, def.group)) || e;
  });
  if (def.verify && opts.verify !== false) def.verify(result, params);
  if (ctx.settings.json) return ctx.out(raw);
  ctx.out(
    def.render
      ? def.render(result, { color: ctx.settings.color, group: def.group, method: def.name })
      : renderDefault(result, name, ctx.settings.color),
  );
}

export function renderDefault(result: JsonValue, name: string, color: boolean): string {
  if (result === null) return `null (${name}: not found)`;
  return renderValue(result, color);
}

/** `chaingw rpc <method> [params...]`: any method, params as JSON where they parse, else strings. */
export async function runRaw(method: string, texts: string[], flags: GlobalFlags): Promise<void> {
  if (!isMethodName(method))
    throw new UsageError(`rpc: invalid method name ${JSON.stringify(method.slice(0, 40))}`);
  const params = texts.map((t) => {
    try {
      return parseLossless(t);
    } catch {
      return t;
    }
  });
  const chain = chainFromFlags(flags, process.env);
  // a registered method keeps its marks; anything else is neither idempotent nor heavy
  const def = definitions(method).find((d) => !chain || d.group === chain);
  const ctx = makeContext(flags, chain ?? def?.group);
  const marks = def?.marks ?? UNKNOWN_MARKS;
  const long = def?.longRunning?.(params) ?? false;
  const group = chain ?? def?.group;
  const { result, raw } = await ctx.client
    .call(method, params, markedCall(marks, long, ctx.settings.scanTimeoutMs))
    .catch((e: unknown) => {
      // eth_call on the EVM-compat chain is outside the spec's registry, but its reverts read as the
      // registry's EVM definition explains them
      const explain = definitions(method).find((d) => d.explainError)?.explainError;
      throw (explain && e instanceof RpcError && group && group !== "utxo" && explain(e, group)) || e;
    });
  if (ctx.settings.json) return ctx.out(raw);
  ctx.out(renderDefault(result, method, ctx.settings.color));
}
