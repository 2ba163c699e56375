/** Wiring for `chaingw batch` and the `--range` shortcut; the work itself is in src/batch/run.ts. */
import type { Command } from "commander";
import type { Item } from "../batch/run.js";
import type { GlobalFlags } from "../config/config.js";
import { UsageError } from "../errors/index.js";
import type { Group, MethodDef } from "../methods/types.js";
import type { Context } from "./context.js";

const positiveInt = (name: string, max: number) => (v: string) => {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1 || n > max)
    throw new UsageError(
      `invalid ${name}: expected a whole number from 1 to ${max}, got ${JSON.stringify(v)}`,
    );
  return n;
};

/** many calls: keep-alive pools are worth their start-up */
const pooled = async () => (await import("../rpc/http.js")).usePooledTransport();

/** Defaults of --concurrency and --batch-size (the benchmarks in README say why). */
const BATCH_DEFAULTS = { concurrency: 4, batchSize: 250 };

type BatchFlags = GlobalFlags & { concurrency?: number; batchSize?: number };

export function addBatchOptions(cmd: Command): Command {
  return cmd
    .option(
      "--concurrency <n>",
      `requests (or batch arrays) in flight at once (default ${BATCH_DEFAULTS.concurrency})`,
      positiveInt("--concurrency", 256),
    )
    .option(
      "--batch-size <n>",
      `requests per JSON-RPC batch array; 1 = single calls (default ${BATCH_DEFAULTS.batchSize})`,
      positiveInt("--batch-size", 10_000),
    );
}

export function batchCommand(program: Command): void {
  addBatchOptions(
    program
      .command("batch")
      .description(
        'send JSON lines {"method":..,"params":[..],"id"?:..} from a file or stdin; one JSON line per result, in input order',
      )
      .argument("[file]", "input file, - or nothing for stdin", "-"),
  ).action(async (file: string, _o: unknown, command: Command) => {
    const flags = command.optsWithGlobals() as BatchFlags;
    await runBatch(flags, undefined, (run, ctx) => run.itemsFromLines(run.linesOf(file), ctx.settings.chain));
  });
}

/**
 * Runs a stream of items through the batch runner with keep-alive pools, and sets the exit code; a
 * summary line goes to stderr when not everything was answered.
 */
async function runBatch(
  flags: BatchFlags,
  group: Group | undefined,
  items: (run: typeof import("../batch/run.js"), ctx: Context) => AsyncIterable<Item[]>,
): Promise<void> {
  const [{ makeContext }, run] = await Promise.all([
    import("./context.js"),
    import("../batch/run.js"),
    pooled(),
  ]);
  const ctx = makeContext(flags, group);
  const s = await run.runItems(ctx, items(run, ctx), {
    concurrency: flags.concurrency ?? BATCH_DEFAULTS.concurrency,
    batchSize: flags.batchSize ?? BATCH_DEFAULTS.batchSize,
  });
  const code = run.exitFor(s);
  if (code !== 0) {
    process.stderr.write(
      `chaingw batch: ${s.ok} ok, ${s.nodeErrors} node errors, ${s.badInput} bad input lines, ${s.transport} unanswered\n`,
    );
  }
  process.exitCode = code;
}

/** `chaingw <method> --range a..b [other params]`: heights streamed through the batch runner. */
export async function runRange(def: MethodDef, range: string, texts: string[], flags: BatchFlags) {
  const m = /^(\d{1,10})\.\.(\d{1,10})$/.exec(range.trim());
  if (!m)
    throw new UsageError(
      `invalid --range: expected FROM..TO heights like 100..5000, got ${JSON.stringify(range)}`,
    );
  const [from, to] = [Number(m[1]), Number(m[2])];
  // the other params (after the first) are validated as usual
  const { buildParams } = await import("../methods/params.js");
  const shadow = { name: def.name, params: def.params.slice(1) };
  const rest = buildParams(shadow, texts, true);
  const verify = (flags as { verify?: boolean }).verify !== false;
  await runBatch(flags, def.group, (run) => run.itemsFromRange(def, from, to, rest, verify));
}
