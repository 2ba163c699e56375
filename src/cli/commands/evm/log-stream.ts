/**
 * Logs over any range to stdout, through the logs workflow (src/evm/logs.ts): JSON lines, a JSON array or
 * a line per log, progress on a TTY, an interrupt that leaves what was printed whole and says where to
 * resume. Used by `chaingw logs` and by `eth_getLogs --split`.
 */
import { once } from "node:events";
import { LOG_HEAD, logCells } from "../../../chains/evm-render.js";
import { EXIT, UsageError } from "../../../errors/index.js";
import { LOGS_DEFAULTS, type LogsOptions, type LogsSummary, streamLogs } from "../../../evm/logs.js";
import { type JsonValue, stringifyLossless } from "../../../json/lossless.js";
import { prepare } from "../../../methods/prepare.js";
import type { MethodDef } from "../../../methods/types.js";
import { progress } from "../../../output/progress.js";
import { csvRow } from "../../../util/csv.js";
import { isJsonObject, parseWhole } from "../../../util/text.js";
import type { Context } from "../../context.js";
import type { Run } from "../../run.js";
import { definitionAndContext } from "./common.js";
import type { EvmFlags } from "./options.js";

// ---- logs ----------------------------------------------------------------------------------------

const windowFlag = (name: string, v: string | undefined, fallback: number) =>
  parseWhole(name, v, fallback, 1, 100_000_000);

/**
 * Streams a range's logs to stdout through the workflow: JSON lines, a JSON array, or a line per log;
 * progress on a TTY; an interrupt leaves what was printed whole and says where to resume.
 */
export async function streamToStdout(
  run: Run,
  ctx: Context,
  label: string,
  o: LogsOptions,
  render: (log: JsonValue) => { json: string; human: string; csv: string[] },
  csvHead: string[],
): Promise<LogsSummary> {
  const bar = progress();
  run.clearProgress = () => bar.clear();
  run.interrupt.handled = true;
  const write = async (text: string) => {
    bar.clear();
    if (!run.stdout.write(text)) await once(run.stdout, "drain");
  };
  let first = true;
  if (run.format === "json") await write("[");
  // CSV: the head once, then a row per log as it comes (the one CSV writer: src/util/csv.ts)
  if (run.format === "csv") await write(`${csvRow(csvHead)}\n`);
  let range = "";
  let splits = 0;
  let s: LogsSummary;
  try {
    s = await streamLogs(
      ctx.client,
      o,
      async (logs) => {
        if (logs.length === 0) return;
        const parts: string[] = [];
        for (const l of logs) {
          const r = render(l);
          if (run.format === "json") {
            parts.push(`${first ? "\n" : ",\n"}${r.json}`);
            first = false;
          } else if (run.format === "csv") parts.push(`${csvRow(r.csv)}\n`);
          else parts.push(`${run.format === "jsonl" ? r.json : r.human}\n`);
        }
        await write(parts.join(""));
      },
      (e) => {
        if (e.kind === "range") range = `${e.from}..${e.to}`;
        else if (e.kind === "clamp")
          run.tell(
            "note",
            `chaingw: ${label}: --to-block ${e.asked} is beyond the head (block ${e.head} when the run started): reading up to block ${e.head}`,
            { head: Number(e.head) },
          );
        else if (e.kind === "split") {
          splits++;
          if (ctx.settings.verbose)
            run.err(`chaingw: ${label}: blocks ${e.from}..${e.to} refused (${e.who}: ${e.why}); halving`);
        } else {
          bar.update(
            `${label}: blocks ${range}: at ${e.to}, ${e.total} logs${splits ? `, ${splits} splits` : ""}`,
          );
        }
      },
      ctx.signal,
    );
  } finally {
    bar.stop();
    run.clearProgress = undefined;
  }
  if (run.format === "json") await write(first ? "]\n" : "\n]\n");
  if (s.interrupted) {
    const done =
      s.next > s.from ? `blocks ${s.from}..${s.next - 1n} printed (${s.logs} logs)` : "no block finished";
    run.tell(
      "summary",
      `chaingw: ${label}: interrupted: ${done}; resume with --from-block ${s.next}${s.to >= s.next ? ` --to-block ${s.to}` : ""}`,
      { interrupted: true, logs: s.logs, resume_from_block: Number(s.next) },
    );
    run.exitCode = EXIT.interrupted;
  } else if (run.stderr.isTTY || ctx.settings.verbose) {
    run.tell(
      "summary",
      `chaingw: ${label}: ${s.logs} logs in blocks ${s.from}..${s.to} (${s.requests} requests, ${s.splits} splits)`,
      {
        logs: s.logs,
        from_block: Number(s.from),
        to_block: Number(s.to),
        requests: s.requests,
        splits: s.splits,
      },
    );
  }
  return s;
}

export const num = (v: JsonValue | undefined): string =>
  typeof v === "string" && /^0x[0-9a-f]+$/i.test(v) ? BigInt(v).toString() : v === undefined ? "" : String(v);

/** Checks the filter through the registry's eth_getLogs definition (exit 2, nothing sent) and splits off the range. */
export function logsOptions(
  def: MethodDef,
  filter: Record<string, unknown>,
  flags: EvmFlags & { split?: string | boolean },
  ctx: Context,
): LogsOptions {
  const checked = prepare(def, { params: [filter] }).params[0] as Record<string, unknown>;
  if (checked.blockHash !== undefined)
    throw new UsageError(
      "eth_getLogs --split: a blockHash filter is one block; give --from-block/--to-block to split a range",
    );
  const { fromBlock, toBlock, ...rest } = checked;
  const split = typeof flags.split === "string" ? flags.split : undefined;
  return {
    def,
    filter: rest,
    fromBlock: String(fromBlock ?? "latest"),
    toBlock: String(toBlock ?? "latest"),
    window: windowFlag("--window", flags.window ?? split, LOGS_DEFAULTS.window),
    maxWindow: windowFlag("--max-window", flags.maxWindow, LOGS_DEFAULTS.maxWindow),
    scanTimeoutMs: ctx.settings.scanTimeoutMs,
  };
}

/** `eth_getLogs --split [blocks]`: the raw logs (number tokens as the node sent them) over any range. */
export async function runSplitGetLogs(
  run: Run,
  texts: string[],
  flags: EvmFlags & { split?: string | boolean },
  opts: Record<string, unknown>,
): Promise<void> {
  const { def, ctx } = definitionAndContext(run, flags, "eth_getLogs", { pooled: true });
  const req = prepare(def, { params: texts, fromText: true, options: opts });
  const o = logsOptions(def, req.params[0] as Record<string, unknown>, flags, ctx);
  await streamToStdout(
    run,
    ctx,
    "eth_getLogs --split",
    o,
    (log) => {
      const l = (isJsonObject(log) ? log : {}) as Record<string, JsonValue>;
      const topics = Array.isArray(l.topics) ? (l.topics as JsonValue[]) : [];
      return {
        json: stringifyLossless(log),
        human: `${num(l.blockNumber)}  ${num(l.logIndex)}  ${String(l.transactionHash)}  ${String(l.address)}  ${topics.map(String).join(" ")}  ${String(l.data)}`,
        // eth_getLogs' own table (src/chains/evm-render.ts), a row at a time
        csv: logCells([log]).rows[0] ?? [],
      };
    },
    LOG_HEAD,
  );
}
