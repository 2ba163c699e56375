/**
 * The EVM commands' actions: flags → typed options for the workflows in src/evm/, their data → text.
 * Loaded only when one of these commands runs (it brings ox with it).
 */
import { once } from "node:events";
import { type Chain, chainOf } from "../chains/index.js";
import {
  amountWithUnit,
  baseUnit,
  coinUnit,
  formatUnits,
  parseUnits,
  type Unit,
  unitOf,
} from "../chains/units.js";
import { chainFromFlags, type GlobalFlags } from "../config/config.js";
import { EXIT, IntegrityError, ParamProblem, UsageError } from "../errors/index.js";
import * as abi from "../evm/abi.js";
import { evmCall } from "../evm/call.js";
import { LOGS_DEFAULTS, type LogsOptions, type LogsSummary, streamLogs } from "../evm/logs.js";
import { type JsonValue, stringifyLossless } from "../json/lossless.js";
import { findMethod } from "../methods/index.js";
import { prepare } from "../methods/prepare.js";
import type { MethodDef } from "../methods/types.js";
import { progress } from "../output/progress.js";
import { isJsonObject, parseWhole } from "../util/text.js";
import { type Context, contextFor } from "./context.js";
import type { AbiFlags, LogsFlags } from "./evm.js";
import type { Run } from "./run.js";

type Flags = GlobalFlags & AbiFlags & LogsFlags;

function refuseCsv(run: Run, cmd: string): void {
  if (run.format === "csv")
    throw new UsageError(
      `--format csv is not available for ${cmd}; it is for \`reserves scan\` (json, jsonl or human here)`,
    );
}

/** The EVM-style group the flags (or env) name, for commands that ask no node; evm by default. */
function offlineChain(run: Run, flags: Flags, cmd: string): Chain {
  const chain = chainOf(chainFromFlags(flags, run.env) ?? "evm");
  if (!chain.evm) throw new UsageError(`${cmd} is for the EVM groups: --chain evm or evm-compat`);
  return chain;
}

/** The registry's definition of `method` for the run's group, and a client; the profile's chain counts too. */
function definitionAndContext(run: Run, flags: Flags, method: string, o: { pooled?: boolean } = {}) {
  let def: MethodDef = findMethod(method, chainFromFlags(flags, run.env) ?? "evm");
  const ctx = contextFor(run, flags, def.group, o);
  if (ctx.settings.chain && ctx.settings.chain !== def.group) def = findMethod(method, ctx.settings.chain);
  return { def, ctx, chain: chainOf(def.group) };
}

const asUsage = <T>(what: string, f: () => T): T => {
  try {
    return f();
  } catch (e) {
    if (e instanceof ParamProblem) throw new UsageError(`${what}: ${e.message}`);
    throw e;
  }
};

/** The function to call: a signature, or a name in --abi; plus the custom errors known for reverts. */
function functionOf(cmd: string, sig: string, argc: number, flags: Flags) {
  let fn: abi.Fn;
  let errors: ReturnType<typeof abi.errorsOfAbi> = [];
  if (flags.abi) {
    const a = abi.loadAbi(flags.abi);
    fn = sig.includes("(") ? abi.parseFunction(sig) : abi.functionFromAbi(a, sig, argc, flags.abi);
    errors = abi.errorsOfAbi(a);
  } else {
    if (!sig.includes("("))
      throw new UsageError(
        `${cmd}: ${JSON.stringify(sig)} is not a signature like "balanceOf(address)(uint256)"; give one, or --abi FILE`,
      );
    fn = abi.parseFunction(sig);
  }
  errors = [...errors, ...(flags.errorSig ?? []).map(abi.parseError)];
  return { fn, decoder: abi.customErrorDecoder(errors) };
}

/** The unit integer results are also shown in (--unit, --ether, --gwei), if any. */
function displayUnit(flags: Flags, chain: Chain, cmd: string): Unit | undefined {
  const name = flags.unit ?? (flags.ether ? coinUnit(chain).name : flags.gwei ? "gwei" : undefined);
  return name === undefined ? undefined : asUsage(`${cmd}: --unit`, () => unitOf(chain, name));
}

/** Decoded values as the run prints them: a JSON array for machines, one value a line for people. */
function printValues(run: Run, params: readonly abi.Param[], values: abi.Plain[], unit?: Unit): void {
  if (run.machine) {
    run.out(JSON.stringify(values));
    return;
  }
  const lines = values.map((v, i) => {
    const text = abi.valueText(params[i], v);
    if (unit && typeof v === "string" && /^u?int\d*$/.test(params[i].type) && /^-?\d+$/.test(v))
      return `${text}  (${formatUnits(BigInt(v), unit.decimals)} ${unit.name})`;
    return text;
  });
  run.out(lines.join("\n"));
}

/** `call` and `estimate`: encode, send through the registry's definition, decode. */
export async function runCall(
  run: Run,
  method: "eth_call" | "eth_estimateGas",
  to: string,
  sig: string | undefined,
  args: string[],
  flags: Flags,
): Promise<void> {
  const cmd = method === "eth_call" ? "call" : "estimate";
  refuseCsv(run, cmd);
  const { def, ctx, chain } = definitionAndContext(run, flags, method);
  let data = "0x";
  let fn: abi.Fn | undefined;
  let decoder: ReturnType<typeof abi.customErrorDecoder>;
  if (sig !== undefined) {
    ({ fn, decoder } = functionOf(cmd, sig, args.length, flags));
    data = abi.encodeCall(cmd, fn, args, chain);
  } else if (args.length) throw new UsageError(`${cmd}: arguments without a signature`);
  const unit = displayUnit(flags, chain, cmd);
  const value =
    flags.value === undefined
      ? undefined
      : asUsage(
          `${cmd}: --value`,
          () => amountWithUnit(chain, flags.value as string)?.toString() ?? flags.value,
        );
  const r = await evmCall(ctx.client, {
    def,
    to,
    data,
    from: flags.from,
    value,
    block: flags.block,
    scanTimeoutMs: ctx.settings.scanTimeoutMs,
    customErrors: decoder,
  });
  if (method === "eth_estimateGas") {
    const gas =
      typeof r.result === "string" && /^0x[0-9a-f]+$/i.test(r.result) ? BigInt(r.result).toString() : r.raw;
    const gasUnit = chain.evm?.gasUnit;
    return run.out(run.machine ? JSON.stringify(gas) : `${gas}${gasUnit ? ` ${gasUnit}` : ""}`);
  }
  const out = typeof r.result === "string" ? r.result : r.raw;
  if (!fn || fn.outputs.length === 0) return run.out(run.machine ? JSON.stringify(out) : out);
  if (out === "0x" && fn.outputs.length > 0)
    throw new UsageError(
      `call: the contract returned no data, so there is nothing to decode as (${fn.outputs.map((p) => p.type).join(",")}); is ${to} a contract with ${fn.name}?`,
    );
  let values: abi.Plain[];
  try {
    values = abi.decodeValues(fn.outputs, out);
  } catch (e) {
    // the node answered; its answer does not fit the signature's return types
    throw new IntegrityError(`call: ${(e as Error).message}`, {
      hint: "Check the return types in the signature (or the ABI) against the contract.",
    });
  }
  printValues(run, fn.outputs, values, unit);
}

export async function runCalldata(run: Run, sig: string, args: string[], flags: Flags): Promise<void> {
  refuseCsv(run, "calldata");
  const chain = offlineChain(run, flags, "calldata");
  const { fn } = functionOf("calldata", sig, args.length, flags);
  const data = abi.encodeCall("calldata", fn, args, chain);
  run.out(run.machine ? JSON.stringify(data) : data);
}

export async function runDecode(run: Run, sig: string, hex: string, flags: Flags): Promise<void> {
  refuseCsv(run, "decode");
  const chain = offlineChain(run, flags, "decode");
  if (!/^0x([0-9a-fA-F]{2})*$/.test(hex.trim()))
    throw new UsageError(`decode: expected 0x hex bytes, got ${JSON.stringify(hex.slice(0, 40))}`);
  const { fn } = functionOf("decode", sig, 0, flags);
  const asInput = flags.input || fn.outputs.length === 0;
  let data = hex.trim().toLowerCase();
  // calldata carries the selector first: check it and skip it
  if (asInput && data.slice(0, 10) === abi.selectorOf(fn)) data = `0x${data.slice(10)}`;
  const params = asInput ? fn.inputs : fn.outputs;
  const values = asUsage("decode", () => abi.decodeValues(params, data));
  printValues(run, params, values, displayUnit(flags, chain, "decode"));
}

export async function runUnits(
  run: Run,
  dir: "to" | "from",
  amount: string,
  unitName: string | undefined,
  flags: Flags,
) {
  refuseCsv(run, `${dir}-wei`);
  const chain = offlineChain(run, flags, `${dir}-wei`);
  const unit =
    unitName === undefined ? coinUnit(chain) : asUsage(`${dir}-wei`, () => unitOf(chain, unitName));
  let text: string;
  if (dir === "to") {
    text = asUsage(`to-wei: amount`, () => parseUnits(amount, unit.decimals, unit.name)).toString();
  } else {
    const t = amount.trim();
    if (!/^(\d{1,100}|0x[0-9a-fA-F]{1,100})$/.test(t))
      throw new UsageError(
        `from-wei: amount: expected ${baseUnit(chain).name} as a whole number (decimal or 0x hex), got ${JSON.stringify(amount.slice(0, 40))}`,
      );
    text = formatUnits(BigInt(t), unit.decimals);
  }
  run.out(run.machine ? JSON.stringify(text) : text);
}

// ---- logs ----------------------------------------------------------------------------------------

const windowFlag = (name: string, v: string | undefined, fallback: number) =>
  parseWhole(name, v, fallback, 1, 100_000_000);

/**
 * Streams a range's logs to stdout through the workflow: JSON lines, a JSON array, or a line per log;
 * progress on a TTY; an interrupt leaves what was printed whole and says where to resume.
 */
async function streamToStdout(
  run: Run,
  ctx: Context,
  label: string,
  o: LogsOptions,
  render: (log: JsonValue) => { json: string; human: string },
): Promise<LogsSummary> {
  const bar = progress();
  run.clearProgress = () => bar.clear();
  run.interrupt.handled = true;
  const write = async (text: string) => {
    bar.clear();
    if (!process.stdout.write(text)) await once(process.stdout, "drain");
  };
  let first = true;
  if (run.format === "json") await write("[");
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
          } else parts.push(`${run.format === "jsonl" ? r.json : r.human}\n`);
        }
        await write(parts.join(""));
      },
      (e) => {
        if (e.kind === "range") range = `${e.from}..${e.to}`;
        else if (e.kind === "clamp")
          run.err(
            `chaingw: ${label}: --to-block ${e.asked} is beyond the head (block ${e.head} when the run started): reading up to block ${e.head}`,
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
    run.err(
      `chaingw: ${label}: interrupted: ${done}; resume with --from-block ${s.next}${s.to >= s.next ? ` --to-block ${s.to}` : ""}`,
    );
    run.exitCode = EXIT.interrupted;
  } else if (process.stderr.isTTY || ctx.settings.verbose) {
    run.err(
      `chaingw: ${label}: ${s.logs} logs in blocks ${s.from}..${s.to} (${s.requests} requests, ${s.splits} splits)`,
    );
  }
  return s;
}

const num = (v: JsonValue | undefined): string =>
  typeof v === "string" && /^0x[0-9a-f]+$/i.test(v) ? BigInt(v).toString() : v === undefined ? "" : String(v);

/** `logs`: an event's logs over any range, decoded into named fields. */
export async function runLogs(
  run: Run,
  eventArg: string | undefined,
  filters: string[],
  flags: Flags,
): Promise<void> {
  refuseCsv(run, "logs");
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
  const { def, ctx, chain } = definitionAndContext(run, flags, "eth_getLogs", { pooled: true });
  let ev: abi.Event;
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
  const inputOf = new Map(ev.inputs.map((p, i) => [p.name || String(i), p as abi.Param]));
  await streamToStdout(run, ctx, "logs", o, (log) => {
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
    const addr = typeof l.address === "string" ? l.address : "";
    const own = show?.(addr);
    const argText = args
      ? Object.entries(args)
          .map(([k, v]) => `${k}: ${abi.valueText(inputOf.get(k) as abi.Param, v, false)}`)
          .join(", ")
      : `undecoded: topics ${JSON.stringify(l.topics)} data ${String(l.data)}`;
    return {
      json: JSON.stringify(line),
      human: `${num(l.blockNumber)}  ${num(l.logIndex)}  ${String(l.transactionHash)}  ${addr}${own ? ` (${own})` : ""}  ${ev.name}(${argText})`,
    };
  });
}

/** Checks the filter through the registry's eth_getLogs definition (exit 2, nothing sent) and splits off the range. */
function logsOptions(
  def: MethodDef,
  filter: Record<string, unknown>,
  flags: Flags & { split?: string | boolean },
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
  flags: Flags & { split?: string | boolean },
  opts: Record<string, unknown>,
): Promise<void> {
  refuseCsv(run, "eth_getLogs");
  const { def, ctx } = definitionAndContext(run, flags, "eth_getLogs", { pooled: true });
  const req = prepare(def, { params: texts, fromText: true, options: opts });
  const o = logsOptions(def, req.params[0] as Record<string, unknown>, flags, ctx);
  await streamToStdout(run, ctx, "eth_getLogs --split", o, (log) => {
    const l = (isJsonObject(log) ? log : {}) as Record<string, JsonValue>;
    const topics = Array.isArray(l.topics) ? (l.topics as JsonValue[]) : [];
    return {
      json: stringifyLossless(log),
      human: `${num(l.blockNumber)}  ${num(l.logIndex)}  ${String(l.transactionHash)}  ${String(l.address)}  ${topics.map(String).join(" ")}  ${String(l.data)}`,
    };
  });
}
