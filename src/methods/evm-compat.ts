/**
 * The EVM-compat group (TRON's JSON-RPC): the same eth_ names with the chain's own rules. `pending` is
 * refused before sending, addresses may be given as T-addresses, gasUsed carries energy, and a block's
 * hash must start with its number.
 */

import { IntegrityError } from "../errors/index.js";
import { fullTransactionsParam, hashKind, txHashParam } from "../evm/params.js";
import { renderBlock, renderReceipt } from "../evm/render.js";
import { JsonNumber, type JsonValue } from "../json/lossless.js";
import { ethGetBlockByNumber, ethGetLogs, ethGetTransactionByHash } from "./eth-shared.js";
import { param } from "./params.js";
import type { MethodDef } from "./types.js";

const compat = (m: Omit<MethodDef, "group">): MethodDef => ({ ...m, group: "evm-compat" });

const asString = (v: JsonValue | undefined): string | undefined => (typeof v === "string" ? v : undefined);

/**
 * The chain's rule: bytes 0-7 of a block hash are its number, big-endian. Also the block answered must
 * be the one asked for (by hash, or by explicit number).
 */
function verifyTronBlock(result: JsonValue, params: unknown[], by: "number" | "hash"): void {
  if (result === null || typeof result !== "object" || Array.isArray(result) || result instanceof JsonNumber)
    return;
  const number = asString(result.number);
  const hash = asString(result.hash);
  const name = by === "hash" ? "eth_getBlockByHash" : "eth_getBlockByNumber";
  const fail = (why: string) =>
    new IntegrityError(`${name}: upstream integrity error in block ${number ?? "?"}: ${why}`, {
      hint: "The upstream's answer breaks a rule of the chain; try another endpoint. --no-verify skips this check.",
    });
  if (!number || !/^0x[0-9a-fA-F]{1,16}$/.test(number))
    throw fail(`number ${JSON.stringify(result.number)} is not a QUANTITY`);
  if (!hash || !/^0x[0-9a-fA-F]{64}$/.test(hash))
    throw fail(`hash ${JSON.stringify(result.hash)} is not 32 bytes`);
  const n = BigInt(number);
  const prefix = BigInt(hash.slice(0, 18));
  if (prefix !== n)
    throw fail(
      `hash ${hash} starts with 0x${hash.slice(2, 18)} (${prefix}), not the block number ${number} (${n})`,
    );
  const asked = params[0];
  if (by === "hash" && typeof asked === "string" && asked.toLowerCase() !== hash.toLowerCase())
    throw fail(`asked for block ${asked}, got ${hash}`);
  if (by === "number" && typeof asked === "string" && asked.startsWith("0x") && BigInt(asked) !== n)
    throw fail(`asked for block ${asked}, got ${number}`);
}

export const evmCompatMethods: MethodDef[] = [
  ethGetLogs(
    "evm-compat",
    { idempotent: false, heavy: true },
    "filter object {fromBlock, toBlock (default latest), address (20-byte hex, 41-hex or T-address; or a list), topics}",
  ),
  ethGetTransactionByHash(
    "evm-compat",
    { idempotent: true, heavy: false },
    "A transaction by hash, in a block or not yet included; null when unknown.",
  ),
  ethGetBlockByNumber(
    "evm-compat",
    { idempotent: false, heavy: false },
    "block number (0x hex or decimal), or latest, earliest (pending is refused on this chain)",
    {
      result: "OBJECT (number, hash, gasUsed, transactions) or null; the hash must start with the number",
      verify: (result, params) => verifyTronBlock(result, params, "number"),
    },
  ),
  compat({
    name: "eth_getBlockByHash",
    marks: { idempotent: true, heavy: false },
    summary: "A block by hash; on this chain the hash's first 8 bytes are the block number (checked).",
    params: [
      param("blockHash", "DATA(32 bytes)", true, "block hash", hashKind("block hash")),
      fullTransactionsParam(),
    ],
    result: "OBJECT or null; the hash must start with the number",
    render: renderBlock,
    verify: (result, params) => verifyTronBlock(result, params, "hash"),
  }),
  compat({
    name: "eth_getTransactionReceipt",
    marks: { idempotent: false, heavy: false },
    summary: "A transaction's receipt: status, energy used (gasUsed), event logs; null until confirmed.",
    params: [txHashParam()],
    result: "OBJECT (transactionHash, status, gasUsed = energy, logs) or null",
    render: renderReceipt,
  }),
];
