/**
 * The run of a registry method's command (`chaingw getblock …`, the fast path's too) and of `chaingw rpc`:
 * params prepared through the registry, the call, the result printed as the node sent it or rendered.
 * Single calls print human text, the result's JSON as the node sent it, or that JSON on one line.
 */
import { groupOf } from "../../../chains/index.js";
import { chainFromFlags, type GlobalFlags } from "../../../config/config.js";
import { AuthError, IntegrityError, TransportError, UsageError } from "../../../errors/index.js";
import { type JsonValue, parseLossless, stringifyLossless } from "../../../json/lossless.js";
import { findMethod, isMethodName } from "../../../methods/index.js";
import { namedToPositional } from "../../../methods/params.js";
import { type Prepared, prepare, prepareRaw, type SendOptions, send } from "../../../methods/prepare.js";
import type { MethodDef, RenderCtx } from "../../../methods/types.js";
import { isScalar, renderValue, scalarText } from "../../../output/human.js";
import { withSpinner } from "../../../output/progress.js";
import type { CallResult } from "../../../rpc/client.js";
import { csvTable } from "../../../util/csv.js";
import { sleep } from "../../../util/sleep.js";
import { parseDuration } from "../../../util/text.js";
import { type Context, contextFor, type Run } from "../../context.js";
import { refuseCsv } from "../../options.js";

async function callAndPrint(
  run: Run,
  ctx: Context,
  req: Prepared,
  verify: boolean,
  again: () => Context,
  options: Record<string, unknown> = {},
): Promise<void> {
  if (req.long)
    run.interrupt.hint = `the node may still be running ${req.method}; \`chaingw reserves status\` shows it, \`chaingw reserves abort\` stops it`;
  const o = { scanTimeoutMs: ctx.settings.scanTimeoutMs, verify };
  const work = run.wait ? sendWhenUp(run, ctx, again, req, o) : send(ctx.client, req, o);
  const { result, raw } = await withSpinner(`${req.method} …`, work, !run.machine);
  const def = req.def;
  const rctx = { color: ctx.color, chain: req.chain, method: req.method, options };
  // a unit flag (--ether): the node's bytes as `result`, the same amount in the unit beside it
  const units = def?.inUnits?.(result, rctx);
  const text =
    units && run.machine
      ? `{"result":${raw}${Object.entries(units)
          .map(([k, v]) => `,${JSON.stringify(k)}:${JSON.stringify(v)}`)
          .join("")}}`
      : raw;
  if (ctx.format === "csv") {
    printCsv(run, req, result, rctx);
    return;
  }
  // --json: the node's bytes; --pretty re-indents them (number tokens kept)
  if (ctx.format === "json") return run.out(run.pretty ? stringifyLossless(parseLossless(text), 2) : text);
  // JSON Lines: a list one element a line, any other value on one line
  if (ctx.format === "jsonl") {
    const lines = jsonLines(parseLossless(text));
    // an empty list: no line at all
    if (lines) run.out(lines);
    return;
  }
  const render = (v: JsonValue) =>
    def?.render ? def.render(v, rctx) : renderDefault(v, req.method, ctx.color);
  // what `$(chaingw …)` captures is the value: a null prints nothing there (its note on stderr, as
  // litecoin-cli prints nothing), and off a terminal a scalar is the node's value alone (`0x64`, not
  // `0x64  (100)`; a unit flag's conversion is the value asked for)
  if (result === null) return run.tell("note", `chaingw: ${render(null)}`);
  if (isScalar(result) && !run.stdout.isTTY && !units) return run.out(scalarText(result));
  run.out(render(result));
}

/**
 * `--format csv`: the table the human form prints (the method's `table`), every cell through the one CSV
 * writer (src/util/csv.ts: RFC 4180, formula-safe). A null answer is the human note on stderr, nothing on
 * stdout; an empty table with no columns (no peers) prints nothing.
 */
function printCsv(run: Run, req: Prepared, result: JsonValue, rctx: RenderCtx): void {
  if (result === null) {
    run.tell(
      "note",
      `chaingw: ${req.def?.render ? req.def.render(null, rctx) : renderDefault(null, req.method, false)}`,
    );
    return;
  }
  const cells = req.def?.table?.(result, rctx);
  if (!cells)
    throw new IntegrityError(
      `${req.method}: the answer is not the table --format csv writes (${Array.isArray(result) ? "a list" : typeof result}); --json prints it as it came`,
    );
  if (cells.head.length) run.out(`${csvTable(cells.head, cells.rows)}\n`);
}

/**
 * Is this failure one `--wait` waits through? Nothing reached the node, or it turned the call away before
 * doing any work (warming up); credentials refused only while they come from a cookie file, which a
 * starting node writes (or rewrites) after chaingw first looked.
 */
const notUpYet = (e: unknown, ctx: Context): boolean =>
  (e instanceof TransportError &&
    (e.neverSent || (e.notReady && (!e.authRefused || !!ctx.settings.cookieFile)))) ||
  (e instanceof AuthError && ctx.settings.cookieFile !== undefined);

/**
 * `--wait` (bitcoin-cli -rpcwait): while the node cannot be reached (connection refused) or turns calls
 * away (warming up, a cookie not written yet), try again every half second until --wait-timeout passes;
 * then exit 3 saying so (4 when the last refusal was of the credentials). Each try reads the settings
 * again: a starting node writes its `.cookie` and its log (the port it listens on) after we first looked.
 */
async function sendWhenUp(
  run: Run,
  first: Context,
  again: () => Context,
  req: Prepared,
  o: SendOptions,
): Promise<CallResult> {
  const limitMs = run.wait?.timeoutMs ?? 0;
  const started = Date.now();
  let ctx = first;
  for (let attempt = 1; ; attempt++) {
    try {
      return await send(ctx.client, req, o);
    } catch (e) {
      if (!notUpYet(e, ctx) || run.abort.signal.aborted) throw e;
      const waited = Date.now() - started;
      if (limitMs > 0 && waited + 500 > limitMs) {
        const err = e as TransportError | AuthError;
        const msg = `--wait: no answer within ${limitMs / 1000} s (${attempt} attempts): ${err.message}`;
        const auth = err instanceof AuthError || (err as TransportError).authRefused;
        throw auth
          ? new AuthError(msg, { cause: err, details: err.details })
          : new TransportError(msg, { cause: err, details: err.details });
      }
      await sleep(500, run.abort.signal);
      ctx = again();
    }
  }
}

/** The `--wait-timeout` of a run with `--wait`. */
export const waitOf = (flags: GlobalFlags): { timeoutMs: number } | undefined =>
  flags.wait ? { timeoutMs: parseDuration("--wait-timeout", flags.waitTimeout, 60) } : undefined;

/** `--stdin`: more params, one a line, after those on the command line (bitcoin-cli -stdin). */
async function paramTexts(texts: string[], flags: GlobalFlags): Promise<string[]> {
  if (!flags.stdin) return texts;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of process.stdin as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > 64 * 1024 * 1024) throw new UsageError("--stdin: more than 64 MB of params");
    chunks.push(c);
  }
  const lines = Buffer.concat(chunks).toString("utf8").split("\n");
  if (lines.at(-1) === "") lines.pop();
  return [...texts, ...lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l))];
}

export async function runMethod(
  run: Run,
  name: string,
  args: string[],
  flags: GlobalFlags,
  opts: Record<string, unknown>,
): Promise<void> {
  run.wait = waitOf(flags);
  const texts = await paramTexts(args, flags);
  // chain from flag/env decides the definition now; a profile's chain is applied after settings load
  let def: MethodDef = findMethod(name, chainFromFlags(flags, run.env));
  const ctx = contextFor(run, flags, def.group);
  if (ctx.settings.chain && ctx.settings.chain !== def.group) def = findMethod(name, ctx.settings.chain);
  // the fast path comes here without the tree's check (src/cli/options.ts csvRefusal): the same refusal
  if (!def.table) refuseCsv(run, name);
  const params = flags.named ? namedToPositional(def, texts) : texts;
  const req = prepare(def, { params, fromText: true, options: opts });
  const again = () => contextFor(run, flags, def.group, { quiet: true });
  await callAndPrint(run, ctx, req, opts.verify !== false, again, opts);
}

/** A value as JSON Lines: a list's elements one a line (an empty list: nothing), any other value one line. */
export function jsonLines(v: JsonValue): string {
  return Array.isArray(v) ? v.map((x) => `${stringifyLossless(x)}\n`).join("") : stringifyLossless(v);
}

export function renderDefault(result: JsonValue, name: string, color: boolean): string {
  if (result === null) return `null (${name}: not found)`;
  return renderValue(result, color);
}

/**
 * `chaingw rpc <method> [params...]`: any method, its params typed as litecoin-cli types them (a registry
 * method's by the registry, any other's by bitcoin-cli's list of JSON params, or as cast for EVM-style
 * groups: src/methods/raw-params.ts); `--json-params`: JSON where it parses, for every param.
 */
export async function runRaw(
  run: Run,
  method: string,
  args: string[],
  flags: GlobalFlags & { jsonParams?: boolean },
): Promise<void> {
  if (!isMethodName(method))
    throw new UsageError(`rpc: invalid method name ${JSON.stringify(method.slice(0, 40))}`);
  run.wait = waitOf(flags);
  const texts = await paramTexts(args, flags);
  const given = chainFromFlags(flags, run.env);
  // the group decides the default endpoint: a registered method's, else what its namespace suggests
  const guess = prepareRaw(method, [], given);
  const ctx = contextFor(run, flags, guess.chain.name);
  const group = ctx.settings.chain ?? guess.chain.name;
  const { rawParams } = await import("../../../methods/raw-params.js");
  // by-name params of a method chaingw does not know: the envelope serialises the object as it is
  const params = rawParams(method, texts, groupOf(group), {
    named: flags.named,
    jsonParams: flags.jsonParams,
  }) as unknown[];
  const req = prepareRaw(method, params, group);
  // a table only where the registry knows the answer is one: an unknown method may change state, and is not
  // sent to find out (exit 2, nothing sent)
  if (!req.def?.table)
    refuseCsv(
      run,
      `rpc ${method}`,
      req.def ? "it prints no table" : "chaingw does not know its answer to be a table",
    );
  // verbatim: no result checks of a registry definition (`rpc` is the way around them)
  await callAndPrint(
    run,
    ctx,
    { ...req, def: req.def && { ...req.def, verify: undefined, render: undefined } },
    false,
    () => contextFor(run, flags, guess.chain.name, { quiet: true }),
  );
}
