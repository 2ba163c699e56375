/** The EVM group's eth_ methods, as ../shared/spec/gateway-jsonrpc.md lists them. */

import { evmChain } from "../chains/evm.js";
import { renderQuantity } from "../chains/evm-render.js";
import { blockRefOrHash } from "../chains/evm-values.js";
import { explainRevert } from "../chains/revert.js";
import { blockOrHashKind, CALL_OPTIONS, callFromOptions, callKind, requireCallTarget } from "./eth-params.js";
import {
  ethGetBlockByHash,
  ethGetBlockByNumber,
  ethGetLogs,
  ethGetTransactionByHash,
  ethGetTransactionReceipt,
} from "./eth-shared.js";
import { evmCompatMethods } from "./evm-compat.js";
import { asUsage, param } from "./params.js";
import type { MethodDef } from "./types.js";

const evm = (m: Omit<MethodDef, "group">): MethodDef => ({ ...m, group: "evm" });

/** eth_call's and eth_estimateGas's first param: the same call object, given as JSON or by options. */
const callObjectParam = param(
  "callObject",
  "OBJECT",
  true,
  'call parameters {"from","to","data","value"} as JSON; or use --from/--to/--data/--value',
  callKind(evmChain),
  { default: {} },
);

const evmGroupMethods: MethodDef[] = [
  ethGetLogs(
    evmChain,
    { idempotent: true, heavy: true },
    "filter object {fromBlock, toBlock (default latest), address, topics}; or use --from-block/--to-block/--address/--topic",
  ),
  ethGetTransactionByHash(
    evmChain,
    { idempotent: true, heavy: false },
    "A transaction by hash, in a block or still in the mempool; null when unknown.",
  ),
  ethGetBlockByNumber(
    evmChain,
    { idempotent: false, heavy: false },
    "block number (0x hex or decimal), or latest, earliest, pending",
    { result: "OBJECT (number, hash, timestamp, transactions) or null" },
  ),
  evm({
    name: "eth_call",
    marks: { idempotent: true, heavy: false },
    summary:
      "Execute a call against contract state without creating a transaction; returns the output bytes.",
    params: [
      callObjectParam,
      param(
        "blockNumber",
        "QUANTITY or TAG",
        true,
        "block number, tag or block hash (sent as EIP-1898 {blockHash}) to run the call at (default latest, always sent); or --block",
        blockOrHashKind(evmChain),
        { default: "latest" },
      ),
    ],
    options: [
      ...CALL_OPTIONS,
      { flags: "--block <block>", help: "blockNumber: block number, tag or block hash" },
    ],
    fromOptions(opts, params) {
      const out = callFromOptions("eth_call", evmChain, opts, params);
      if (opts.block !== undefined)
        out[1] = asUsage("eth_call", "--block", () => blockRefOrHash(evmChain, opts.block));
      return out;
    },
    refine: (params) => requireCallTarget("eth_call", params),
    result: "DATA: the return value",
    explainError: explainRevert,
  }),
  evm({
    name: "eth_estimateGas",
    marks: { idempotent: false, heavy: false },
    summary: "Approximate gas a transaction would use (actual usage may differ).",
    params: [callObjectParam],
    options: CALL_OPTIONS,
    fromOptions: (opts, params) => callFromOptions("eth_estimateGas", evmChain, opts, params),
    refine: (params) => requireCallTarget("eth_estimateGas", params),
    result: "QUANTITY: the gas estimate",
    render: renderQuantity,
    explainError: explainRevert,
  }),
];

/**
 * Reads the gateway spec lists for the EVM-compat group only; on an EVM node they are the same standard
 * methods (EIP-1474), so the EVM group has them too, with chaingw's own marks (reads: idempotent) and
 * none of the TRON rules.
 */
const evmOwnMethods: MethodDef[] = [
  ethGetBlockByHash(evmChain, { idempotent: true, heavy: false }, { spec: false }),
  ethGetTransactionReceipt(evmChain, { idempotent: true, heavy: false }, { spec: false }),
];

/** The EVM and EVM-compat groups' eth_ methods. */
export const evmMethods: MethodDef[] = [...evmGroupMethods, ...evmOwnMethods, ...evmCompatMethods];
