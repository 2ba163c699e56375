/** The EVM group's eth_ methods, as ../shared/spec/gateway-jsonrpc.md lists them. */

import { evmChain } from "../chains/evm.js";
import { renderNumber, renderQuantity } from "../chains/evm-render.js";
import { blockRefOrHash } from "../chains/evm-values.js";
import { explainRevert } from "../chains/revert.js";
import { ParamProblem } from "../errors/index.js";
import { short } from "../util/text.js";
import {
  blockCountKind,
  blockNumberKind,
  blockOrHashKind,
  blockOverridesKind,
  CALL_OPTIONS,
  callFromOptions,
  callKind,
  hashKind,
  jsonListKind,
  percentilesKind,
  requireCallTarget,
  stateBlockParam,
  stateOverrideKind,
} from "./eth-params.js";
import {
  addressParam,
  ethGetBlockByHash,
  ethGetBlockByNumber,
  ethGetLogs,
  ethGetTransactionByHash,
  ethGetTransactionReceipt,
  ethStandardReads,
  ownRead,
} from "./eth-shared.js";
import { evmCompatMethods } from "./evm-compat.js";
import { asUsage, param } from "./params.js";
import type { MethodDef } from "./types.js";

const evm = (m: Omit<MethodDef, "group">): MethodDef => ({ ...m, group: "evm" });

let built: readonly MethodDef[] | undefined;

/**
 * The EVM and EVM-compat groups' eth_ methods, made on first use: a plain call of a UTXO method (the fast
 * path) never builds them.
 */
export function evmMethods(): readonly MethodDef[] {
  if (built) return built;
  /** eth_call's and eth_estimateGas's first param: the same call object, given as JSON or by options. */
  const callObjectParam = param(
    "callObject",
    "OBJECT",
    true,
    'call parameters {"from","to","data","value"} as JSON; or use --from/--to/--data/--value',
    callKind(evmChain),
    { default: {} },
  );

  /** eth_call's and eth_estimateGas's optional third param: a state override set, sent as given. */
  const stateOverrideParam = param(
    "stateOverride",
    "OBJECT",
    false,
    'state override {"0x<address>": {"balance", "nonce", "code", "state" | "stateDiff"}} as JSON',
    stateOverrideKind(evmChain),
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
        stateOverrideParam,
        param(
          "blockOverrides",
          "OBJECT",
          false,
          'block override {"number", "time", "gasLimit", "feeRecipient", "baseFeePerGas", ...} as JSON (geth, anvil)',
          blockOverridesKind,
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
      // the block (what `cast estimate` and `cast send` send) and a state override, as execution-apis has them
      params: [
        callObjectParam,
        param(
          "blockNumber",
          "QUANTITY or TAG",
          false,
          "block number, tag or block hash to estimate at (the node's default: latest)",
          blockOrHashKind(evmChain),
        ),
        stateOverrideParam,
      ],
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
    ...ethStandardReads(evmChain),
    ownRead(evmChain, {
      name: "eth_getBlockTransactionCountByHash",
      summary: "Number of transactions in a block given by its hash; null when the block is unknown.",
      params: [param("blockHash", "DATA(32 bytes)", true, "the block's hash", hashKind("block hash"))],
      result: "QUANTITY or null",
      render: renderNumber(),
    }),
    ownRead(evmChain, {
      name: "eth_getTransactionCount",
      summary: "An account's nonce: the number of transactions it has sent.",
      params: [addressParam(evmChain), stateBlockParam(evmChain)],
      result: "QUANTITY: the nonce",
      render: renderNumber(),
    }),
    ownRead(evmChain, {
      name: "eth_maxPriorityFeePerGas",
      summary: "The node's suggested priority fee (tip) per gas, EIP-1559.",
      params: [],
      result: "QUANTITY: wei per gas",
      render: renderNumber(() => "wei"),
    }),
    ownRead(evmChain, {
      name: "eth_feeHistory",
      summary: "Base fees, gas-used ratios and priority-fee percentiles of recent blocks (EIP-1559).",
      params: [
        param(
          "blockCount",
          "QUANTITY",
          true,
          "number of blocks (0x hex or decimal; the node clamps it to its own cap, geth's is 1024)",
          blockCountKind,
        ),
        param(
          "newestBlock",
          "QUANTITY or TAG",
          true,
          "the newest block of the range (default latest, always sent)",
          blockNumberKind(evmChain),
          { default: "latest" },
        ),
        param(
          "rewardPercentiles",
          "ARRAY",
          true,
          "priority-fee percentiles to sample, like [25,50,75] (default [], always sent)",
          percentilesKind,
          { default: [] },
        ),
      ],
      result: "OBJECT: oldestBlock, baseFeePerGas[], gasUsedRatio[], reward[][]",
    }),
    ownRead(evmChain, {
      name: "eth_getProof",
      summary: "Merkle proof of an account and some of its storage slots (EIP-1186).",
      params: [
        addressParam(evmChain),
        param(
          "storageKeys",
          "ARRAY",
          true,
          'storage slots as hex of at most 32 bytes, like ["0x00..00"] or ["0x0"] (default [], always sent)',
          jsonListKind(
            'a JSON array of slots of at most 32 bytes like ["0x' + "0".repeat(64) + '"]',
            // execution-apis' bytesMax32: 0x and up to 64 hex digits, sent as given
            (x, i) => {
              if (typeof x === "string" && /^0x[0-9a-fA-F]{0,64}$/.test(x)) return x;
              throw new ParamProblem(
                `storageKeys[${i}]: expected 0x and at most 64 hex digits (a 32-byte slot), got ${short(x)}`,
              );
            },
            1000,
          ),
          { default: [] },
        ),
        stateBlockParam(evmChain),
      ],
      result: "OBJECT: address, balance, codeHash, nonce, storageHash, accountProof, storageProof",
    }),
  ];

  built = [...evmGroupMethods, ...evmOwnMethods, ...evmCompatMethods()];
  return built;
}
