/**
 * The eth_ methods the spec defines once and lists in both EVM groups ("same parameters and result as in
 * the EVM group"). Each group's file states the method's marks itself, where a reader compares them with
 * the spec; what differs per group (tags, address forms) comes from the group's param kinds.
 */

import { renderBlock, renderLogs, renderReceipt, renderTransaction } from "../chains/evm-render.js";
import { quantity } from "../chains/evm-values.js";
import type { Chain } from "../chains/index.js";
import {
  blockNumberKind,
  filterKind,
  fullTransactionsParam,
  hashKind,
  LOG_OPTIONS,
  logsFromOptions,
  txHashParam,
} from "./eth-params.js";
import { param } from "./params.js";
import type { Marks, MethodDef } from "./types.js";

export const ethGetLogs = (chain: Chain, marks: Marks, filterHelp: string): MethodDef => ({
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
});

export const ethGetTransactionByHash = (chain: Chain, marks: Marks, summary: string): MethodDef => ({
  name: "eth_getTransactionByHash",
  group: chain.name,
  marks,
  summary,
  params: [txHashParam()],
  result: "OBJECT (hash, blockNumber, from, to, value) or null",
  render: renderTransaction,
});

export const ethGetBlockByNumber = (
  chain: Chain,
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
  ...extra,
});

export const ethGetBlockByHash = (chain: Chain, marks: Marks, extra: Partial<MethodDef> = {}): MethodDef => ({
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
  ...extra,
});

export const ethGetTransactionReceipt = (
  chain: Chain,
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
  ...extra,
});
