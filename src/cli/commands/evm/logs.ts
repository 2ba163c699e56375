/** `chaingw logs EVENT [FILTERS…]`: an event's logs over a block range of any length, decoded. */
import type { Command } from "commander";
import { UsageError } from "../../../errors/index.js";
import type { Event, Param } from "../../../evm/abi.js";
import type { JsonValue } from "../../../json/lossless.js";
import { isJsonObject } from "../../../util/text.js";
import { collect, takesCsv } from "../../options.js";
import type { Run } from "../../run.js";
import { definitionAndContext } from "./common.js";
import { type EvmFlags, evmFlags } from "./options.js";

export function declareLogs(program: Command, run: Run): void {
  takesCsv(program.command("logs"))
    .description(
      "event logs decoded into named fields, over a block range of any length (split where the upstream refuses)",
    )
    .argument(
      "[event]",
      'the event, "Transfer(address indexed from,address indexed to,uint256 value)", or its name with --abi',
    )
    .argument("[filters...]", 'values of the indexed arguments in order; "" or * for any, a|b for either')
    .option("--event <sig>", "the event (instead of the first argument)")
    .option("--abi <file>", "a JSON ABI: the event by name")
    .option("--address <address>", "only logs of this contract; repeatable (any of)", collect)
    .option("--from-block <block>", "first block: number, or a tag (default latest)")
    .option("--to-block <block>", "last block: number, or a tag (default latest)")
    .option(
      "--window <blocks>",
      "blocks in the first eth_getLogs window (default 100); doubles while answers are sparse, halves when refused",
    )
    .option("--max-window <blocks>", "widest window after growing (default 100000)")
    .addHelpText(
      "after",
      [
        "",
        "Output: one line per log in block order, streamed (--format jsonl: one JSON object per line; --json: a JSON array; --format csv: a row per log, a column per argument).",
        "Ctrl-C stops after what was printed and says which block to resume from (--from-block).",
      ].join("\n"),
    )
    .action(async (event: string | undefined, filters: string[], _o: unknown, command: Command) => {
      await runLogs(run, event, filters, evmFlags(command));
    });
}

/** `logs`: an event's logs over any range, decoded into named fields. */
export async function runLogs(
  run: Run,
  eventArg: string | undefined,
  filters: string[],
  flags: EvmFlags,
): Promise<void> {
  let sig = eventArg;
  let rest = filters;
  if (flags.event !== undefined) {
    sig = flags.event;
    rest = eventArg === undefined ? filters : [eventArg, ...filters];
  }
  if (sig === undefined)
    throw new UsageError(
      'logs: give the event, e.g. "Transfer(address indexed from,address indexed to,uint256 value)"',
    );
  const [{ abi }, { logsOptions, num, streamToStdout }] = await Promise.all([
    import("./abi-call.js"),
    import("./log-stream.js"),
  ]);
  const { def, ctx, chain } = definitionAndContext(run, flags, "eth_getLogs", { pooled: true });
  let ev: Event;
  if (flags.abi && !sig.includes("(")) ev = abi.eventFromAbi(abi.loadAbi(flags.abi), sig, flags.abi);
  else ev = abi.parseEvent(sig);
  const topics = abi.eventTopics(ev, rest, chain);
  const addrs = flags.address ?? [];
  const o = logsOptions(
    def,
    {
      topics,
      ...(addrs.length ? { address: addrs.length === 1 ? addrs[0] : addrs } : {}),
      fromBlock: flags.fromBlock ?? "latest",
      toBlock: flags.toBlock ?? "latest",
    },
    flags,
    ctx,
  );
  const show = chain.evm?.displayAddress;
  const inputOf = new Map(ev.inputs.map((p, i) => [p.name || String(i), p as Param]));
  // --format csv: the log's place, then one column per argument of the event, then an undecoded log's parts
  const argNames = [...inputOf.keys()];
  const csvHead = ["block", "log", "transaction", "address", "event", ...argNames, "topics", "data"];
  // logs whose topics do not match the signature's indexed arguments: said once, at the end
  const indexed = abi.indexedInputs(ev).length;
  const mismatched = { logs: 0, topics: new Set<number>() };
  await streamToStdout(
    run,
    ctx,
    "logs",
    o,
    (log) => {
      const l = (isJsonObject(log) ? log : {}) as Record<string, JsonValue>;
      const topicsOf = Array.isArray(l.topics) ? (l.topics as string[]) : [];
      const args = abi.decodeLog(ev, topicsOf, typeof l.data === "string" ? l.data : "0x");
      const line: Record<string, unknown> = {
        blockNumber: Number(num(l.blockNumber)),
        logIndex: Number(num(l.logIndex)),
        transactionHash: l.transactionHash,
        address: l.address,
        event: ev.name,
        args: args ?? null,
      };
      if (!args) Object.assign(line, { topics: l.topics, data: l.data });
      if (!args && topicsOf.length !== indexed + 1) {
        mismatched.logs++;
        mismatched.topics.add(topicsOf.length - 1);
      }
      const addr = typeof l.address === "string" ? l.address : "";
      const own = show?.(addr);
      const argText = args
        ? Object.entries(args)
            .map(([k, v]) => `${k}: ${abi.valueText(inputOf.get(k) as Param, v, false)}`)
            .join(", ")
        : `undecoded: topics ${JSON.stringify(l.topics)} data ${String(l.data)}`;
      return {
        json: JSON.stringify(line),
        human: `${num(l.blockNumber)}  ${num(l.logIndex)}  ${String(l.transactionHash)}  ${addr}${own ? ` (${own})` : ""}  ${ev.name}(${argText})`,
        // an argument a column; a log that did not decode leaves them empty and shows its topics and data
        csv: [
          num(l.blockNumber),
          num(l.logIndex),
          String(l.transactionHash ?? ""),
          addr,
          ev.name,
          ...argNames.map((k) => (args ? abi.valueText(inputOf.get(k) as Param, args[k]) : "")),
          args ? "" : topicsOf.map(String).join(" "),
          args ? "" : String(l.data ?? ""),
        ],
      };
    },
    csvHead,
  );
  if (mismatched.logs) {
    const carried = [...mismatched.topics].join(" or ");
    run.err(
      `chaingw: hint: ${mismatched.logs} log${mismatched.logs === 1 ? "" : "s"} did not decode: ${mismatched.logs === 1 ? "it carries" : "they carry"} ${carried} indexed argument${carried === "1" ? "" : "s"}, the signature declares ${indexed}; mark them \`indexed\` as the contract does, e.g. "Transfer(address indexed from,address indexed to,uint256 value)" (or give --abi)`,
    );
  }
}
