/**
 * The EVM-compat group (TRON's JSON-RPC): the same eth_ names with the chain's own rules. `pending` is
 * refused before sending, addresses may be given as T-addresses, gasUsed carries energy, and a block's
 * hash must start with its number.
 */

import { evmCompatChain } from "../chains/evm-compat.js";
import type { JsonValue } from "../json/lossless.js";
import {
  ethGetBlockByHash,
  ethGetBlockByNumber,
  ethGetLogs,
  ethGetTransactionByHash,
  ethGetTransactionReceipt,
  ethStandardReads,
} from "./eth-shared.js";
import type { MethodDef } from "./types.js";

/** The chain's block rule (src/chains/evm-compat.ts), on the block asked for. */
const verifyBlock =
  (by: "number" | "hash", method: string) =>
  (result: JsonValue, params: unknown[]): void =>
    evmCompatChain.evm?.verifyBlock?.(result, params[0], by, method);

let built: MethodDef[] | undefined;

/** The EVM-compat group's methods, made on first use (with the EVM group's: methods/evm.ts). */
export const evmCompatMethods = (): MethodDef[] =>
  (built ??= [
    ethGetLogs(
      evmCompatChain,
      { idempotent: false, heavy: true },
      "filter object {fromBlock, toBlock (default latest), address (20-byte hex, 41-hex or T-address; or a list), topics}",
    ),
    ethGetTransactionByHash(
      evmCompatChain,
      { idempotent: true, heavy: false },
      "A transaction by hash, in a block or not yet included; null when unknown.",
    ),
    ethGetBlockByNumber(
      evmCompatChain,
      { idempotent: false, heavy: false },
      "block number (0x hex or decimal), or latest, earliest (pending is refused on this chain)",
      {
        result: "OBJECT (number, hash, gasUsed, transactions) or null; the hash must start with the number",
        verify: verifyBlock("number", "eth_getBlockByNumber"),
      },
    ),
    ethGetBlockByHash(
      evmCompatChain,
      { idempotent: true, heavy: false },
      {
        summary: "A block by hash; on this chain the hash's first 8 bytes are the block number (checked).",
        result: "OBJECT or null; the hash must start with the number",
        verify: verifyBlock("hash", "eth_getBlockByHash"),
      },
    ),
    ethGetTransactionReceipt(
      evmCompatChain,
      { idempotent: false, heavy: false },
      {
        summary: "A transaction's receipt: status, energy used (gasUsed), event logs; null until confirmed.",
        result: "OBJECT (transactionHash, status, gasUsed = energy, logs) or null",
      },
    ),
    // java-tron answers these standard reads too (no eth_getTransactionCount, eth_feeHistory, eth_getProof)
    ...ethStandardReads(evmCompatChain),
  ]);
