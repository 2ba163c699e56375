/**
 * Human rendering of eth_ results: QUANTITY fields with their decimal value beside the hex, blocks,
 * transactions and receipts as key/value summaries, logs and transaction lists as tables. On the
 * EVM-compat chain addresses also show their T-address form and gasUsed is labelled as energy.
 * `--json` never comes here.
 */
import { JsonNumber, type JsonValue } from "../json/lossless.js";
import { type Annotate, type Cells, renderValue, scalarText, style, table } from "../output/human.js";
import { isJsonObject } from "../util/text.js";
import { formatUnits } from "../util/units.js";
import { HEX_QTY } from "./evm-values.js";
import type { RenderCtx } from "./types.js";
import { baseUnit, coinUnit, unitOf } from "./units.js";

type Obj = { [key: string]: JsonValue };

/** Fields that are QUANTITY in blocks, transactions, receipts and logs. */
const QUANTITY_KEYS = new Set([
  "number",
  "blockNumber",
  "transactionIndex",
  "logIndex",
  "gas",
  "gasUsed",
  "cumulativeGasUsed",
  "gasLimit",
  "gasPrice",
  "effectiveGasPrice",
  "maxFeePerGas",
  "maxPriorityFeePerGas",
  "maxFeePerBlobGas",
  "baseFeePerGas",
  "blobGasUsed",
  "excessBlobGas",
  "blobGasPrice",
  "value",
  "size",
  "difficulty",
  "totalDifficulty",
  "chainId",
  "timestamp",
  "blockTimestamp",
]);
const ADDRESS_KEYS = new Set(["from", "to", "miner", "address", "contractAddress"]);
/** Amounts of the coin (shown also in ether / TRX) and fee prices (shown also in gwei on Ethereum). */
const VALUE_KEYS = new Set(["value", "balance"]);
const FEE_KEYS = new Set([
  "gasPrice",
  "effectiveGasPrice",
  "maxFeePerGas",
  "maxPriorityFeePerGas",
  "baseFeePerGas",
  "maxFeePerBlobGas",
  "blobGasPrice",
]);

/**
 * A base-unit amount in both units, exactly: "1500000000000000000 wei = 1.5 ether"; fee prices in the
 * chain's fee unit ("30000000000 wei = 30 gwei"). The unit names come from the chain object.
 */
export function inUnits(ctx: RenderCtx, key: string, d: string): string | undefined {
  const evm = ctx.chain.evm;
  if (!evm || !/^\d+$/.test(d)) return undefined;
  const to = VALUE_KEYS.has(key)
    ? coinUnit(ctx.chain)
    : FEE_KEYS.has(key) && evm.feeUnit
      ? unitOf(ctx.chain, evm.feeUnit)
      : undefined;
  if (!to) return undefined;
  return `${d} ${baseUnit(ctx.chain).name} = ${formatUnits(BigInt(d), to.decimals)} ${to.name}`;
}

const isObj = (v: JsonValue | undefined): v is Obj => isJsonObject(v);

/** Decimal text of a QUANTITY string (or a number token, as anvil sends blockTimestamp), else undefined. */
function decimal(v: JsonValue | undefined): string | undefined {
  if (v instanceof JsonNumber) return v.raw;
  if (typeof v === "string" && HEX_QTY.test(v)) return BigInt(v).toString(10);
  return undefined;
}

/** The chain's own form of an address value, where it has one (TRON's T-address). */
function ownForm(ctx: RenderCtx, v: JsonValue | undefined): string | undefined {
  const show = ctx.chain.evm?.displayAddress;
  return show && typeof v === "string" ? show(v) : undefined;
}

function annotator(ctx: RenderCtx): Annotate {
  return (key, v) => {
    if (ADDRESS_KEYS.has(key)) {
      const own = ownForm(ctx, v);
      if (own) return own;
    }
    if (key === "status" && (v === "0x1" || v === "0x0")) return v === "0x1" ? "success" : "failed";
    if (!QUANTITY_KEYS.has(key) || v instanceof JsonNumber) return undefined;
    const d = decimal(v);
    if (d === undefined) return undefined;
    if (key === "timestamp" || key === "blockTimestamp") {
      const s = Number(d);
      return Number.isSafeInteger(s) && s < 1e11 ? `${d}, ${new Date(s * 1000).toISOString()}` : d;
    }
    const unit = ctx.chain.evm?.gasUnit;
    if (unit && (key === "gasUsed" || key === "cumulativeGasUsed")) return `${d} ${unit}`;
    return inUnits(ctx, key, d) ?? d;
  };
}

const notFound = (name: string, why: string): string => `null (${name}: not found — ${why})`;

/** A bloom filter is 512 hex digits of noise to a person: say whether it is empty instead. */
function bloomText(v: JsonValue): JsonValue {
  if (typeof v !== "string" || v.length < 66) return v;
  return /^0x0*$/.test(v) ? "(empty)" : `${v.slice(0, 18)}... (${(v.length - 2) / 2} bytes)`;
}

function summary(o: Obj, ctx: RenderCtx, omit: string[]): string {
  const copy: Obj = {};
  for (const [k, v] of Object.entries(o)) {
    if (omit.includes(k)) continue;
    copy[k] = k === "logsBloom" ? bloomText(v) : v;
  }
  return renderValue(copy, ctx.color, annotator(ctx));
}

const cell = (v: JsonValue | undefined): string => (v === undefined ? "" : scalarText(v));
const withDecimal = (v: JsonValue | undefined): string => {
  const d = decimal(v);
  return d === undefined ? cell(v) : d;
};

export const LOG_HEAD = ["block", "log", "address", "topics", "data", "transaction"];

/**
 * Logs' cells, one row per log. For a person (`person`, the render's context): topics one per line, data
 * shortened, the chain's own address form under the address; for CSV (no context): every topic
 * (space-separated) and all the data, as the node sent them.
 */
export function logCells(logs: JsonValue[], person?: RenderCtx): Cells {
  const shown = person !== undefined;
  const rows = logs.map((l) => {
    const o = isObj(l) ? l : {};
    const topics = Array.isArray(o.topics) ? o.topics.map(cell).join(shown ? "\n" : " ") : "";
    const d = cell(o.data);
    const addr = cell(o.address);
    const t = person ? ownForm(person, o.address) : undefined;
    return [
      withDecimal(o.blockNumber),
      withDecimal(o.logIndex),
      t ? `${addr}\n${t}` : addr,
      topics,
      shown && d.length > 66 ? `${d.slice(0, 66)}…\n(${(d.length - 2) / 2} bytes)` : d,
      cell(o.transactionHash),
    ];
  });
  return { head: LOG_HEAD, rows };
}

/** Logs as a table: one row per log, topics one per line, data shortened. */
function logsTable(logs: JsonValue[], ctx: RenderCtx): string {
  const st = style(ctx.color);
  if (logs.length === 0) return st.dim("(no logs)");
  const c = logCells(logs, ctx);
  return `${table(c.head, c.rows, ctx.color)}\n${st.dim(`${logs.length} log${logs.length === 1 ? "" : "s"}`)}`;
}

/** A block's transactions: full objects a row each (#, hash, from, to, value, gas), hashes a row each (#, hash). */
function txCells(txs: JsonValue[]): Cells {
  if (txs.every((t) => typeof t === "string"))
    return { head: ["#", "hash"], rows: txs.map((t, i) => [String(i), cell(t)]) };
  const rows = txs.map((t) => {
    const o = isObj(t) ? t : {};
    return [
      withDecimal(o.transactionIndex),
      cell(o.hash),
      cell(o.from),
      cell(o.to),
      withDecimal(o.value),
      withDecimal(o.gas),
    ];
  });
  return { head: ["#", "hash", "from", "to", "value", "gas"], rows };
}

/** The table `--format csv` writes of a block: its transactions (see txCells); undefined when not a block. */
export const blockCells = (result: JsonValue): Cells | undefined =>
  isObj(result) && Array.isArray(result.transactions) ? txCells(result.transactions) : undefined;

/** The table `--format csv` writes of a receipt: its logs; undefined when not a receipt. */
export const receiptCells = (result: JsonValue): Cells | undefined =>
  isObj(result) && Array.isArray(result.logs) ? logCells(result.logs) : undefined;

/** The table `--format csv` writes of eth_getLogs' answer; undefined when not a list. */
export const logsCells = (result: JsonValue): Cells | undefined =>
  Array.isArray(result) ? logCells(result) : undefined;

export function renderBlock(result: JsonValue, ctx: RenderCtx): string {
  if (result === null) return notFound(ctx.method, "no such block");
  if (!isObj(result)) return renderValue(result, ctx.color);
  const st = style(ctx.color);
  const txs = Array.isArray(result.transactions) ? result.transactions : [];
  const out = [summary(result, ctx, ["transactions"])];
  out.push("", st.key(`transactions (${txs.length})`));
  if (txs.length === 0) out.push(st.dim("  none"));
  else if (txs.every((t) => typeof t === "string")) for (const t of txs) out.push(`  ${t}`);
  else {
    const c = txCells(txs);
    out.push(table(c.head, c.rows, ctx.color));
  }
  return out.join("\n");
}

export function renderTransaction(result: JsonValue, ctx: RenderCtx): string {
  if (result === null) return notFound(ctx.method, "unknown transaction hash");
  if (!isObj(result)) return renderValue(result, ctx.color);
  const text = summary(result, ctx, []);
  // java-tron answers a known but unmined transaction with "0x" block fields
  const pending = result.blockNumber === null || result.blockNumber === "0x";
  return pending ? `${text}\n${style(ctx.color).dim("(not in a block yet)")}` : text;
}

export function renderReceipt(result: JsonValue, ctx: RenderCtx): string {
  if (result === null) return notFound(ctx.method, "unknown transaction hash, or not confirmed yet");
  if (!isObj(result)) return renderValue(result, ctx.color);
  const logs = Array.isArray(result.logs) ? result.logs : [];
  return [
    summary(result, ctx, ["logs"]),
    "",
    style(ctx.color).key(`logs (${logs.length})`),
    logsTable(logs, ctx),
  ].join("\n");
}

export function renderLogs(result: JsonValue, ctx: RenderCtx): string {
  if (!Array.isArray(result)) return renderValue(result, ctx.color);
  return logsTable(result, ctx);
}

/** eth_estimateGas: the QUANTITY with its decimal (energy on the EVM-compat chain). */
export function renderQuantity(result: JsonValue, ctx: RenderCtx): string {
  const d = decimal(result);
  if (d === undefined) return renderValue(result, ctx.color);
  return `${scalarText(result)}${style(ctx.color).dim(`  (${d}${ctx.chain.evm?.gasUnit ? ` ${ctx.chain.evm.gasUnit}` : ""})`)}`;
}

/** A QUANTITY result (a height, a chain id, a nonce, a balance) with its decimal; `unit` after it. */
export const renderNumber =
  (unit?: (ctx: RenderCtx) => string) =>
  (result: JsonValue, ctx: RenderCtx): string => {
    const d = decimal(result);
    if (d === undefined) return renderValue(result, ctx.color);
    const u = unit?.(ctx);
    return `${scalarText(result)}${style(ctx.color).dim(`  (${d}${u ? ` ${u}` : ""})`)}`;
  };
