/**
 * `eth_call` / `eth_estimateGas` for the ABI-aware commands: the request goes through the registry's
 * own definition (its param checks, marks and revert explanation), and a revert is explained again with
 * the custom errors the user supplied (an ABI file, --error-sig).
 */
import { type CustomErrorDecoder, explainRevertWith } from "../chains/revert.js";
import { prepare, send } from "../methods/prepare.js";
import type { MethodDef } from "../methods/types.js";
import type { CallResult, JsonRpcClient } from "../rpc/client.js";

export interface EvmCallOptions {
  /** the registry's eth_call or eth_estimateGas of the chain group */
  def: MethodDef;
  to: string;
  /** calldata: selector + encoded arguments */
  data: string;
  from?: string;
  /** wei (sun), decimal or 0x hex */
  value?: string;
  /** eth_call only: a number, a tag or a block hash */
  block?: string;
  scanTimeoutMs: number;
  customErrors?: CustomErrorDecoder;
}

/** Sends the call; a revert comes back as the registry's explained RpcError, custom errors named. */
export async function evmCall(client: JsonRpcClient, o: EvmCallOptions): Promise<CallResult> {
  const options: Record<string, unknown> = { to: o.to, data: o.data };
  if (o.from !== undefined) options.from = o.from;
  if (o.value !== undefined) options.value = o.value;
  if (o.block !== undefined) options.block = o.block;
  const req = prepare(o.def, { params: [], options });
  try {
    return await send(client, req, { scanTimeoutMs: o.scanTimeoutMs });
  } catch (e) {
    throw o.customErrors ? explainRevertWith(e, req.chain, o.customErrors) : e;
  }
}
