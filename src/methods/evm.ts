/** The EVM group's eth_ methods, as ../shared/spec/gateway-jsonrpc.md lists them. */
import {
  blockNumberKind,
  CALL_OPTIONS,
  callFromOptions,
  callKind,
  filterKind,
  fullTransactionsParam,
  hashKind,
  LOG_OPTIONS,
  logsFromOptions,
  requireCallTarget,
} from "../evm/params.js";
import { renderBlock, renderLogs, renderQuantity, renderTransaction } from "../evm/render.js";
import { explainRevert } from "../evm/revert.js";
import { blockRef } from "../evm/values.js";
import { UsageError } from "../rpc/errors.js";
import { evmCompatMethods } from "./evm-compat.js";
import { ParamProblem, param } from "./params.js";
import type { MethodDef } from "./types.js";

const evm = (m: Omit<MethodDef, "group">): MethodDef => ({ ...m, group: "evm" });

const evmGroupMethods: MethodDef[] = [
  evm({
    name: "eth_getLogs",
    marks: { idempotent: true, heavy: true },
    summary:
      "Event logs matching a filter (block range, addresses, position-aware topics); a point for per-product limits.",
    params: [
      param(
        "filter",
        "OBJECT",
        false,
        "filter object {fromBlock, toBlock (default latest), address, topics}; or use --from-block/--to-block/--address/--topic",
        filterKind("evm"),
        { default: {} },
      ),
    ],
    options: LOG_OPTIONS,
    fromOptions: (opts, params) => logsFromOptions("evm", opts, params),
    result: "ARRAY of log objects (address, blockNumber, topics, data)",
    render: renderLogs,
  }),
  evm({
    name: "eth_getTransactionByHash",
    marks: { idempotent: true, heavy: false },
    summary: "A transaction by hash, in a block or still in the mempool; null when unknown.",
    params: [param("txHash", "DATA(32 bytes)", true, "transaction hash", hashKind("transaction hash"))],
    result: "OBJECT (hash, blockNumber, from, to, value) or null",
    render: renderTransaction,
  }),
  evm({
    name: "eth_getBlockByNumber",
    marks: { idempotent: false, heavy: false },
    summary: "A block by number or tag, with transaction hashes or full transactions; null when not found.",
    params: [
      param(
        "blockNumber",
        "QUANTITY or TAG",
        true,
        "block number (0x hex or decimal), or latest, earliest, pending (EVM); latest, earliest (EVM-compat)",
        blockNumberKind("evm"),
      ),
      fullTransactionsParam(),
    ],
    result: "OBJECT (number, hash, timestamp, transactions) or null",
    range: { toParam: (h) => `0x${h.toString(16)}` },
    render: renderBlock("eth_getBlockByNumber"),
  }),
  evm({
    name: "eth_call",
    marks: { idempotent: true, heavy: false },
    summary:
      "Execute a call against contract state without creating a transaction; returns the output bytes.",
    params: [
      param(
        "callObject",
        "OBJECT",
        true,
        'call parameters {"from","to","data","value"} as JSON; or use --from/--to/--data/--value',
        callKind("evm"),
        { default: {} },
      ),
      param(
        "blockNumber",
        "QUANTITY or TAG",
        true,
        "block number or tag to run the call at (default latest, always sent); or --block",
        blockNumberKind("evm"),
        { default: "latest" },
      ),
    ],
    options: [...CALL_OPTIONS, { flags: "--block <block>", help: "blockNumber: block number or tag" }],
    fromOptions(opts, params) {
      const out = callFromOptions("eth_call", "evm", opts, params);
      if (opts.block !== undefined) {
        try {
          out[1] = blockRef("evm", opts.block);
        } catch (e) {
          if (e instanceof ParamProblem) throw new UsageError(`eth_call: invalid --block: ${e.message}`);
          throw e;
        }
      }
      return out;
    },
    refine: (params) => requireCallTarget("eth_call", params),
    result: "DATA: the return value",
    explainError: (e) => explainRevert(e, "evm"),
  }),
  evm({
    name: "eth_estimateGas",
    marks: { idempotent: false, heavy: false },
    summary: "Approximate gas a transaction would use (actual usage may differ).",
    params: [
      param(
        "callObject",
        "OBJECT",
        true,
        'call parameters {"from","to","data","value"} as JSON; or use --from/--to/--data/--value',
        callKind("evm"),
        { default: {} },
      ),
    ],
    options: CALL_OPTIONS,
    fromOptions: (opts, params) => callFromOptions("eth_estimateGas", "evm", opts, params),
    refine: (params) => requireCallTarget("eth_estimateGas", params),
    result: "QUANTITY: the gas estimate",
    render: renderQuantity,
    explainError: (e) => explainRevert(e, "evm"),
  }),
];

/** The EVM and EVM-compat groups' eth_ methods. */
export const evmMethods: MethodDef[] = [...evmGroupMethods, ...evmCompatMethods];
