/** Wiring for `chaingw batch` and the `--range` shortcut; the work itself is in src/batch/run.ts. */
import type { Command } from "commander";
import type { GlobalFlags } from "../config/config.js";
import type { MethodDef } from "../methods/types.js";
import { UsageError } from "../rpc/errors.js";

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

export function addBatchOptions(cmd: Command): Command {
  return cmd
    .option(
      "--concurrency <n>",
      "requests (or batch arrays) in flight at once (default 4)",
      positiveInt("--concurrency", 256),
    )
    .option(
      "--batch-size <n>",
      "requests per JSON-RPC batch array; 1 = single calls (default 250)",
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
    const [{ makeContext }, run] = await Promise.all([
      import("./context.js"),
      import("../batch/run.js"),
      pooled(),
    ]);
    const flags = command.optsWithGlobals() as GlobalFlags & { concurrency?: number; batchSize?: number };
    const ctx = makeContext(flags, flags.chain as never);
    const summary = await run.runItems(ctx, run.itemsFromLines(run.linesOf(file), ctx.settings.chain), {
      concurrency: flags.concurrency ?? 4,
      batchSize: flags.batchSize ?? 250,
    });
    finish(summary, run.exitFor(summary));
  });
}

function finish(s: { ok: number; nodeErrors: number; badInput: number; transport: number }, code: number) {
  if (code !== 0) {
    process.stderr.write(
      `chaingw batch: ${s.ok} ok, ${s.nodeErrors} node errors, ${s.badInput} bad input lines, ${s.transport} unanswered\n`,
    );
  }
  process.exitCode = code;
}

/** `chaingw <method> --range a..b [other params]`: heights streamed through the batch runner. */
export async function runRange(
  def: MethodDef,
  range: string,
  texts: string[],
  flags: GlobalFlags & { concurrency?: number; batchSize?: number },
) {
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
  const [{ makeContext }, run] = await Promise.all([
    import("./context.js"),
    import("../batch/run.js"),
    pooled(),
  ]);
  const ctx = makeContext(flags, def.group);
  const summary = await run.runItems(
    ctx,
    run.itemsFromRange(def, from, to, rest, (flags as { verify?: boolean }).verify !== false),
    {
      concurrency: flags.concurrency ?? 4,
      batchSize: flags.batchSize ?? 250,
    },
  );
  finish(summary, run.exitFor(summary));
}
