/** Running one registry method (or a raw `rpc` call) and printing its result. */
import { chainFromFlags, type GlobalFlags } from "../config/config.js";
import { UsageError } from "../errors/index.js";
import { type JsonValue, parseLossless, stringifyLossless } from "../json/lossless.js";
import { findMethod, isMethodName } from "../methods/index.js";
import { type Prepared, prepare, prepareRaw, send } from "../methods/prepare.js";
import type { MethodDef } from "../methods/types.js";
import type { Format } from "../output/format.js";
import { renderValue } from "../output/human.js";
import { withSpinner } from "../output/progress.js";
import { type Context, contextFor, type Run } from "./context.js";

/** Single calls print human text, the result's JSON as the node sent it, or that JSON on one line. */
function checkFormat(format: Format, what: string): void {
  if (format === "csv")
    throw new UsageError(
      `--format csv is not available for ${what}; it is for \`reserves scan\` (json, jsonl or human here)`,
    );
}

async function callAndPrint(run: Run, ctx: Context, req: Prepared, verify: boolean): Promise<void> {
  if (req.long)
    run.interrupt.hint = `the node may still be running ${req.method}; \`chaingw reserves status\` shows it, \`chaingw reserves abort\` stops it`;
  const work = send(ctx.client, req, { scanTimeoutMs: ctx.settings.scanTimeoutMs, verify });
  const { result, raw } = await withSpinner(`${req.method} …`, work, !run.machine);
  if (ctx.format === "json") return run.out(raw);
  if (ctx.format === "jsonl") return run.out(stringifyLossless(parseLossless(raw)));
  const def = req.def;
  run.out(
    def?.render
      ? def.render(result, { color: ctx.color, chain: req.chain, method: req.method })
      : renderDefault(result, req.method, ctx.color),
  );
}

export async function runMethod(
  run: Run,
  name: string,
  texts: string[],
  flags: GlobalFlags,
  opts: Record<string, unknown>,
): Promise<void> {
  checkFormat(run.format, name);
  // chain from flag/env decides the definition now; a profile's chain is applied after settings load
  let def: MethodDef = findMethod(name, chainFromFlags(flags, run.env));
  const ctx = contextFor(run, flags, def.group);
  if (ctx.settings.chain && ctx.settings.chain !== def.group) def = findMethod(name, ctx.settings.chain);
  const req = prepare(def, { params: texts, fromText: true, options: opts });
  await callAndPrint(run, ctx, req, opts.verify !== false);
}

export function renderDefault(result: JsonValue, name: string, color: boolean): string {
  if (result === null) return `null (${name}: not found)`;
  return renderValue(result, color);
}

/** `chaingw rpc <method> [params...]`: any method, params as JSON where they parse, else strings. */
export async function runRaw(run: Run, method: string, texts: string[], flags: GlobalFlags): Promise<void> {
  checkFormat(run.format, "rpc");
  if (!isMethodName(method))
    throw new UsageError(`rpc: invalid method name ${JSON.stringify(method.slice(0, 40))}`);
  const params = texts.map((t) => {
    try {
      return parseLossless(t);
    } catch {
      return t;
    }
  });
  const given = chainFromFlags(flags, run.env);
  // the group decides the default endpoint: a registered method's, else what its namespace suggests
  const guess = prepareRaw(method, params, given);
  const ctx = contextFor(run, flags, guess.chain.name);
  const req = prepareRaw(method, params, ctx.settings.chain ?? guess.chain.name);
  // verbatim: no result checks of a registry definition (`rpc` is the way around them)
  await callAndPrint(
    run,
    ctx,
    { ...req, def: req.def && { ...req.def, verify: undefined, render: undefined } },
    false,
  );
}
