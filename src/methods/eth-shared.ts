/**
 * The eth_ methods the spec defines once and lists in both EVM groups ("same parameters and result as in
 * the EVM group"). Each group's file states the method's marks itself, where a reader compares them with
 * the spec; what differs per group (tags, address forms) comes from the group's param kinds.
 */

import {
  blockCells,
  logsCells,
  receiptCells,
  renderBlock,
  renderLogs,
  renderNumber,
  renderReceipt,
  renderTransaction,
} from "../chains/evm-render.js";
import { quantity } from "../chains/evm-values.js";
import type { ChainGroup, RenderCtx } from "../chains/index.js";
import { coinUnit } from "../chains/units.js";
import type { JsonValue } from "../json/lossless.js";
import { renderValue } from "../output/human.js";
import { formatUnits } from "../util/units.js";
import {
  addressKind,
  blockNumberKind,
  filterKind,
  fullTransactionsParam,
  hashKind,
  LOG_OPTIONS,
  logsFromOptions,
  slotKind,
  stateBlockParam,
  txHashParam,
} from "./eth-params.js";
import { param } from "./params.js";
import type { Marks, MethodDef, ParamDef } from "./types.js";

export const ethGetLogs = (chain: ChainGroup, marks: Marks, filterHelp: string): MethodDef => ({
  name: "eth_getLogs",
  group: chain.name,
  marks,
  summary:
    "Event logs matching a filter (block range, addresses, position-aware topics); a point for per-product limits.",
  params: [param("filter", "OBJECT", false, filterHelp, filterKind(chain), { default: {} })],
  options: LOG_OPTIONS,
  fromOptions: (opts, params) => logsFromOptions(chain, opts, params),
  result: "ARRAY of log objects (address, blockNumber, topics, data)",
  render: renderLogs,
  table: logsCells,
});

export const ethGetTransactionByHash = (chain: ChainGroup, marks: Marks, summary: string): MethodDef => ({
  name: "eth_getTransactionByHash",
  group: chain.name,
  marks,
  summary,
  params: [txHashParam()],
  result: "OBJECT (hash, blockNumber, from, to, value) or null",
  render: renderTransaction,
});

export const ethGetBlockByNumber = (
  chain: ChainGroup,
  marks: Marks,
  blockHelp: string,
  extra: Pick<MethodDef, "result"> & Partial<MethodDef>,
): MethodDef => ({
  name: "eth_getBlockByNumber",
  group: chain.name,
  marks,
  summary: "A block by number or tag, with transaction hashes or full transactions; null when not found.",
  params: [
    param("blockNumber", "QUANTITY or TAG", true, blockHelp, blockNumberKind(chain)),
    fullTransactionsParam(),
  ],
  range: { toParam: (h) => quantity(h) },
  render: renderBlock,
  table: blockCells,
  ...extra,
});

export const ethGetBlockByHash = (
  chain: ChainGroup,
  marks: Marks,
  extra: Partial<MethodDef> = {},
): MethodDef => ({
  name: "eth_getBlockByHash",
  group: chain.name,
  marks,
  summary: "A block by hash, with transaction hashes or full transactions; null when not found.",
  params: [
    param("blockHash", "DATA(32 bytes)", true, "block hash", hashKind("block hash")),
    fullTransactionsParam(),
  ],
  result: "OBJECT (number, hash, timestamp, transactions) or null",
  render: renderBlock,
  table: blockCells,
  ...extra,
});

export const ethGetTransactionReceipt = (
  chain: ChainGroup,
  marks: Marks,
  extra: Partial<MethodDef> = {},
): MethodDef => ({
  name: "eth_getTransactionReceipt",
  group: chain.name,
  marks,
  summary: "A transaction's receipt: status, gas used, event logs; null until it is in a block.",
  params: [txHashParam()],
  result: "OBJECT (transactionHash, status, gasUsed, logs) or null",
  render: renderReceipt,
  table: receiptCells,
  ...extra,
});

/**
 * The standard reads (EIP-1474) that every EVM-style node answers and the gateway spec does not list:
 * chaingw's own marks (reads: idempotent, not heavy), `spec: false`. `group` makes one per chain.
 */
const READ: Marks = Object.freeze({ idempotent: true, heavy: false });
const ownRead = (chain: ChainGroup, m: Omit<MethodDef, "group" | "marks" | "spec">): MethodDef => ({
  ...m,
  group: chain.name,
  marks: READ,
  spec: false,
});
const baseUnit = (ctx: { chain: ChainGroup }) => ctx.chain.evm?.baseUnit ?? "";

/** A quantity in the coin's unit with all its decimals, as cast prints `balance --ether` (10000.000000000000000000). */
function inCoinUnit(result: JsonValue, ctx: RenderCtx): string {
  if (typeof result !== "string" || !/^0x[0-9a-f]+$/i.test(result)) return renderValue(result, ctx.color);
  const { decimals } = coinUnit(ctx.chain);
  const v = BigInt(result);
  const unit = 10n ** BigInt(decimals);
  return decimals ? `${v / unit}.${(v % unit).toString().padStart(decimals, "0")}` : String(v);
}
export const addressParam = (chain: ChainGroup): ParamDef =>
  param("address", "DATA(20 bytes)", true, "account or contract address", addressKind(chain));

/** The reads both EVM-style groups have. */
export const ethStandardReads = (chain: ChainGroup): MethodDef[] => [
  ownRead(chain, {
    name: "eth_blockNumber",
    summary: "Number of the most recent block.",
    params: [],
    result: "QUANTITY: the block number",
    render: renderNumber(),
  }),
  ownRead(chain, {
    name: "eth_chainId",
    summary: "The chain id (EIP-155) the node signs for.",
    params: [],
    result: "QUANTITY: the chain id",
    render: renderNumber(),
  }),
  ownRead(chain, {
    name: "net_version",
    summary: "The network id, as a decimal string.",
    params: [],
    result: "STRING: the network id",
  }),
  ownRead(chain, {
    name: "web3_clientVersion",
    summary: "The node's client name and version.",
    params: [],
    result: "STRING",
  }),
  ownRead(chain, {
    name: "eth_syncing",
    summary: "false when the node is in sync, else its sync progress.",
    params: [],
    result: "false, or OBJECT: startingBlock, currentBlock, highestBlock",
  }),
  ownRead(chain, {
    name: "eth_gasPrice",
    summary: "The node's current gas price suggestion.",
    params: [],
    result: "QUANTITY: the price in the base unit (wei; sun per energy on TRON)",
    render: renderNumber(baseUnit),
  }),
  ownRead(chain, {
    name: "eth_getBalance",
    summary: "An account's balance in the base unit (wei; sun on TRON); --ether: in the coin's unit.",
    params: [addressParam(chain), stateBlockParam(chain)],
    result: "QUANTITY: the balance",
    options: [
      {
        flags: "--ether",
        help: "print the balance in the coin's unit (ether; TRX on TRON), exact, as `cast balance --ether`",
      },
    ],
    fromOptions: (_opts, params) => params,
    render: (result, ctx) =>
      ctx.options?.ether ? inCoinUnit(result, ctx) : renderNumber(baseUnit)(result, ctx),
    inUnits: (result, ctx) => {
      if (!ctx.options?.ether || typeof result !== "string" || !/^0x[0-9a-f]+$/i.test(result))
        return undefined;
      const unit = coinUnit(ctx.chain);
      return { [unit.name]: formatUnits(BigInt(result), unit.decimals) };
    },
  }),
  ownRead(chain, {
    name: "eth_getCode",
    summary: "The code at an address (0x for an account without code).",
    params: [addressParam(chain), stateBlockParam(chain)],
    result: "DATA: the code",
  }),
  ownRead(chain, {
    name: "eth_getStorageAt",
    summary: "One 32-byte storage slot of a contract.",
    params: [
      addressParam(chain),
      param("position", "QUANTITY", true, "the storage slot (0x hex or decimal)", slotKind),
      stateBlockParam(chain),
    ],
    result: "DATA(32 bytes): the slot's value",
  }),
  ownRead(chain, {
    name: "eth_getBlockTransactionCountByNumber",
    summary: "Number of transactions in a block; null when the block is unknown.",
    params: [
      param(
        "blockNumber",
        "QUANTITY or TAG",
        true,
        "block number (0x hex or decimal) or tag",
        blockNumberKind(chain),
      ),
    ],
    result: "QUANTITY or null",
    render: renderNumber(),
  }),
];
export { ownRead };
