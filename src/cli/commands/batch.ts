/** Wiring for `chaingw batch` and the `--range` shortcut; the work itself is in src/batch/. */
import { once } from "node:events";
import type { Command } from "commander";
import type { Item } from "../../batch/input.js";
import type { Summary } from "../../batch/run.js";
import type { GlobalFlags } from "../../config/config.js";
import { UsageError } from "../../errors/index.js";
import type { MethodDef } from "../../methods/types.js";
import { parseRange } from "../../util/text.js";
import type { Context } from "../context.js";
import type { Run } from "../run.js";

const positiveInt = (name: string, max: number) => (v: string) => {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1 || n > max)
    throw new UsageError(
      `invalid ${name}: expected a whole number from 1 to ${max}, got ${JSON.stringify(v)}`,
    );
  return n;
};

/** Defaults of --concurrency and --batch-size (the benchmarks in docs/benchmarks.md say why). */
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

export function declareBatch(program: Command, run: Run): void {
  addBatchOptions(
    program
      .command("batch")
      .description(
        'send JSON lines {"method":..,"params":[..],"id"?:..} from a file or stdin; one JSON line per result, in input order',
      )
      .argument("[file]", "input file, - or nothing for stdin", "-"),
  ).action(async (file: string, _o: unknown, command: Command) => {
    if (file === "-" && process.stdin.isTTY)
      run.err(
        "chaingw batch: reading JSON lines from the terminal (one request per line; Ctrl-D ends); give a file to read it instead",
      );
    const flags = command.optsWithGlobals() as BatchFlags;
    await runBatch(run, "chaingw batch", flags, undefined, async (ctx) => {
      const input = await import("../../batch/input.js");
      return input.itemsFromLines(input.linesOf(file), ctx.settings.chain);
    });
  });
}

/** Failures by cause, most frequent first, for the summary line. */
function causes(s: Summary): string {
  const top = [...s.causes].sort((a, b) => b[1] - a[1]);
  const shown = top.slice(0, 3).map(([why, n]) => `${n} × ${why}`);
  if (top.length > 3) shown.push(`${top.length - 3} other cause${top.length === 4 ? "" : "s"}`);
  return shown.join("; ");
}

/**
 * Runs a stream of items through the batch workflow with keep-alive pools and writes its lines to stdout;
 * a summary line goes to stderr when not everything was answered, with the failures grouped by cause.
 */
async function runBatch(
  run: Run,
  label: string,
  flags: BatchFlags,
  group: MethodDef["group"] | undefined,
  items: (ctx: Context) => Promise<AsyncIterable<Item[]>>,
): Promise<void> {
  const [{ runItems }, { progress }, { contextFor }] = await Promise.all([
    import("../../batch/run.js"),
    import("../../output/progress.js"),
    import("../context.js"),
  ]);
  // many calls: keep-alive pools are worth their start-up; a dead endpoint fails the whole run fast
  const ctx = contextFor(run, flags, group, { pooled: true, failFast: true });
  const source = await items(ctx);
  const bar = progress();
  run.clearProgress = () => bar.clear();
  const state = (p: { done: number; ok: number; failed: number }) =>
    `${label}: ${p.done} done (${p.ok} ok${p.failed ? `, ${p.failed} failed` : ""})`;
  let last = { done: 0, ok: 0, failed: 0 };
  let s: Summary;
  try {
    s = await runItems(
      ctx.client,
      source,
      {
        concurrency: flags.concurrency ?? BATCH_DEFAULTS.concurrency,
        batchSize: flags.batchSize ?? BATCH_DEFAULTS.batchSize,
        scanTimeoutMs: ctx.settings.scanTimeoutMs,
        scrub: run.secrets.scrub,
      },
      async (lines) => {
        bar.clear();
        if (!run.stdout.write(lines)) await once(run.stdout, "drain");
        bar.update(state(last));
      },
      (p) => {
        last = p;
        bar.update(state(p));
      },
    );
  } finally {
    bar.stop();
    run.clearProgress = undefined;
  }
  if (s.exitCode !== 0) {
    const unanswered = s.transport ? `, ${s.transport} unanswered` : "";
    run.tell(
      "summary",
      `${label}: ${s.ok} ok, ${s.nodeErrors} node errors, ${s.badInput} bad input lines${unanswered}: ${causes(s)}`,
      {
        ok: s.ok,
        node_errors: s.nodeErrors,
        bad_input: s.badInput,
        unanswered: s.transport,
        exit_code: s.exitCode,
        causes: [...s.causes].sort((a, b) => b[1] - a[1]).map(([cause, count]) => ({ cause, count })),
      },
    );
  }
  run.exitCode = s.exitCode;
}

/** The most heights one `--range` run walks. */
const MAX_RANGE = 10_000_000;

/**
 * `chaingw <method> --range A..B [other params]`: heights streamed through the batch workflow. The range
 * stops at the chain's tip (said on stderr); one that starts above it is refused.
 */
export async function runRange(run: Run, def: MethodDef, range: string, texts: string[], flags: BatchFlags) {
  const [from, to] = parseRange(range, "--range", { maxSpan: 2 ** 31 });
  // the other params (after the first) are validated as usual
  const { prepareRangeRest } = await import("../../methods/prepare.js");
  const rest = prepareRangeRest(def, texts);
  const verify = (flags as { verify?: boolean }).verify !== false;
  const label = `chaingw ${def.name} --range`;
  await runBatch(run, label, flags, def.group, async (ctx) => {
    const [{ chainTip }, input] = await Promise.all([
      import("../../batch/tip.js"),
      import("../../batch/input.js"),
    ]);
    const tip = await chainTip(ctx.client, def.group);
    const hi = Math.max(from, to);
    const lo = Math.min(from, to);
    if (tip !== undefined && lo > tip)
      throw new UsageError(
        `--range ${range}: the chain's tip is at height ${tip}; the range starts above it`,
      );
    let [a, b] = [from, to];
    if (tip !== undefined && hi > tip) {
      run.tell(
        "note",
        `${label}: the chain's tip is at height ${tip}; the range stops there (asked up to ${hi})`,
        {
          tip,
          asked: hi,
        },
      );
      if (a > tip) a = tip;
      if (b > tip) b = tip;
    }
    // bounded: what is left after the tip is at most MAX_RANGE heights
    if (Math.abs(b - a) >= MAX_RANGE)
      throw new UsageError(
        `invalid --range ${range}: at most ${MAX_RANGE.toLocaleString("en")} heights per run; split it`,
      );
    return input.itemsFromRange(def, a, b, rest, verify);
  });
}
