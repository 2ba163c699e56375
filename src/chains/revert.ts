/**
 * Reverts of eth_call / eth_estimateGas, shown as "execution reverted: <reason>".
 *
 * EVM nodes answer code 3 with `data` = the revert bytes (EIP-1474; older geth used -32000 with the same
 * message). java-tron answers -32000 "REVERT opcode executed[: reason]", sometimes with the bytes in
 * `data`, often without: then the message is all there is.
 */

import { RpcError } from "../errors/index.js";
import { evmTraits, HEX_DATA } from "./evm-values.js";
import type { ChainGroup } from "./types.js";

const ERROR_STRING = "08c379a0"; // Error(string)
const PANIC = "4e487b71"; // Panic(uint256)

/** Solidity's panic codes (docs: "Panic via assert and Error via require"). */
const PANIC_CODES: Record<number, string> = {
  1: "assertion failed",
  17: "arithmetic overflow or underflow",
  18: "division or modulo by zero",
  33: "invalid enum value",
  34: "bad storage byte array encoding",
  49: "pop on empty array",
  50: "array index out of bounds",
  65: "out of memory",
  81: "call to a zero-initialised function",
};

/**
 * Names a custom error from its revert bytes ("InsufficientBalance(account: 0x.., have: 5, want: 10)"),
 * or undefined when it does not know the selector. The ABI-aware commands supply one, built from an ABI
 * file or --error-sig (src/evm/abi.ts), so this module needs no ABI library.
 */
export type CustomErrorDecoder = (hex: string) => string | undefined;

/** The reason carried by revert bytes, or undefined when there are none. */
function decodeRevertData(hex: unknown, custom?: CustomErrorDecoder): string | undefined {
  if (typeof hex !== "string" || !HEX_DATA.test(hex) || hex.length < 10) return undefined;
  const body = hex.slice(2).toLowerCase();
  const selector = body.slice(0, 8);
  const args = body.slice(8);
  try {
    if (selector === ERROR_STRING) {
      const offset = Number(BigInt(`0x${args.slice(0, 64)}`));
      const len = Number(BigInt(`0x${args.slice(offset * 2, offset * 2 + 64)}`));
      const start = offset * 2 + 64;
      const bytes = Buffer.from(args.slice(start, start + len * 2), "hex");
      if (bytes.length === len) return new TextDecoder("utf-8", { fatal: false }).decode(bytes);
    } else if (selector === PANIC && args.length >= 64) {
      const code = Number(BigInt(`0x${args.slice(0, 64)}`));
      return `panic 0x${code.toString(16).padStart(2, "0")} (${PANIC_CODES[code] ?? "unknown panic code"})`;
    }
  } catch {
    // malformed ABI: fall through to the raw selector
  }
  const named = custom?.(hex);
  if (named !== undefined) return named;
  return `custom error 0x${selector}${args.length ? ` (${args.length / 2} bytes of arguments)` : ""}`;
}

/**
 * The same error with a human message naming the revert reason, or undefined when `e` is no revert.
 * The node's code, message and data stay as they were (`--json` prints those).
 */
export function explainRevert(
  e: RpcError,
  chain: ChainGroup,
  custom?: CustomErrorDecoder,
): RpcError | undefined {
  if (!chain.evm || !evmTraits(chain).isRevert(e)) return undefined;
  let reason = decodeRevertData(e.data, custom);
  if (reason === undefined) {
    // "execution reverted: nope" (EVM) / "REVERT opcode executed: reason" (java-tron)
    const m = /^[^:]*revert[^:]*:\s*(.+)$/is.exec(e.rpcMessage);
    reason = m?.[1]?.trim() || undefined;
  }
  const err = new RpcError(
    e.code,
    e.rpcMessage,
    e.data,
    e.endpoint,
    `execution reverted${reason ? `: ${reason}` : " (no reason given)"}${
      // unnamed (cast prints the selector and the bytes alone): say how to name it
      reason?.startsWith("custom error 0x")
        ? `; \`call … --error-sig "Name(types)"\` or \`--abi FILE\` names it`
        : ""
    }`,
  );
  err.hint = `(${e.endpoint}: error ${e.code}: ${e.rpcMessage}${typeof e.data === "string" && e.data.startsWith("0x") ? `; data ${e.data.length > 80 ? `${e.data.slice(0, 77)}...` : e.data}` : ""})`;
  err.cause = e;
  // the decoded reason as a fact of its own, for --json error objects
  err.facts = { reason: reason ?? null };
  return err;
}

/** A revert explained again with a custom-error decoder (the node's own error is the explained one's cause). */
export function explainRevertWith(e: unknown, chain: ChainGroup, custom: CustomErrorDecoder): unknown {
  if (!(e instanceof RpcError)) return e;
  const original = e.cause instanceof RpcError ? e.cause : e;
  return explainRevert(original, chain, custom) ?? e;
}
