/**
 * The one step from a method definition and user input to a ready request, and from a ready request to
 * a checked result. Every caller goes through here — a single call, `rpc`, `batch` lines, `--range`,
 * the workflows — so param coercion, named options, cross-param rules, the long-running mark, the
 * definition's clearer errors and its result checks are applied in one place.
 */
import { type ChainGroup, chainForMethodName, type GroupName, groupOf } from "../chains/index.js";
import { RpcError } from "../errors/index.js";
import type { BatchEntry, CallOptions, CallResult, JsonRpcClient } from "../rpc/client.js";
import { definitions, UNKNOWN_MARKS, writesOf } from "./index.js";
import { buildParams } from "./params.js";
import type { MethodDef } from "./types.js";

/** A request ready to send (also a batch entry). */
export interface Prepared extends BatchEntry {
  /** the group whose rules apply to the answer */
  chain: ChainGroup;
  /** the registry's definition, when the method is in it */
  def?: MethodDef;
}

export interface PrepareInput {
  /** positional params: command-line texts (`fromText`) or JSON values (batch lines, workflows) */
  params: readonly unknown[];
  fromText?: boolean;
  /** named options that fold into the params (--to, --data, --from-block, ...) */
  options?: Record<string, unknown>;
  /** the params hold plain JS values only (the batch fast path): JSON.stringify is enough */
  plain?: boolean;
}

/** A call's `read` (sent again after a reset before any answer) and `writes` flags, the registry's mark asked once. */
function readOrWrites(
  def: MethodDef | undefined,
  params: readonly unknown[],
  known: boolean,
): { read: boolean; writes?: true } {
  return writesOf(def, params) ? { read: false, writes: true } : { read: known };
}

/** Builds and checks a registry method's request; throws UsageError naming the parameter. */
export function prepare(def: MethodDef, input: PrepareInput): Prepared {
  let params = buildParams(def, input.params as unknown[], input.fromText ?? false);
  if (def.fromOptions && input.options) params = def.fromOptions(input.options, params);
  def.refine?.(params);
  return {
    method: def.name,
    params,
    marks: def.marks,
    // a call that only reads is sent again after a kept-alive connection closed under it; one the registry
    // marks `writes` (scantxoutset start, abort) never
    ...readOrWrites(def, params, true),
    ...(def.slow ? { slow: true } : {}),
    long: def.longRunning?.(params) ?? false,
    plain: input.plain,
    chain: groupOf(def.group),
    def,
  };
}

/**
 * The params after the first of a `--range` method (the first comes from the range): coerced and checked
 * as on the command line.
 */
export function prepareRangeRest(def: MethodDef, texts: readonly string[]): unknown[] {
  return buildParams({ name: def.name, params: def.params.slice(1) }, texts as string[], true);
}

/**
 * A request sent verbatim (`chaingw rpc`, batch lines for methods outside the registry): a registered
 * method keeps its marks; anything else is neither idempotent nor heavy. The group is the one given,
 * else the definition's, else what the method's namespace suggests.
 */
export function prepareRaw(method: string, params: unknown[], group?: GroupName): Prepared {
  const def = definitions(method).find((d) => !group || d.group === group);
  const chain = group ? groupOf(group) : def ? groupOf(def.group) : chainForMethodName(method);
  return {
    method,
    params,
    marks: def?.marks ?? UNKNOWN_MARKS,
    // a method outside the registry may change the node's state (sendrawtransaction): never sent twice; nor
    // a registry call marked `writes`
    ...readOrWrites(def, params, def !== undefined),
    ...(def?.slow ? { slow: true } : {}),
    long: def?.longRunning?.(params) ?? false,
    chain,
    def,
  };
}

/**
 * The client options of a request: its marks; a long-running one (scantxoutset start) is bounded by the
 * scan timeout alone, not by the request timeout and the overall deadline.
 */
export function callOptionsOf(
  p: BatchEntry,
  scanTimeoutMs: number,
  extra: Partial<CallOptions> = {},
): CallOptions {
  const base: CallOptions = {
    ...p.marks,
    ...(p.read ? { read: true } : {}),
    ...(p.writes ? { writes: true } : {}),
    ...(p.slow ? { slow: true } : {}),
    ...extra,
  };
  return p.long ? { ...base, timeoutMs: scanTimeoutMs, deadlineMs: 0 } : base;
}

/** A clearer error for a node error the method knows (a revert's decoded reason); else `e` itself. */
export function explainError(p: Prepared, e: unknown): unknown {
  if (!(e instanceof RpcError)) return e;
  // eth_call sent raw on the EVM-compat chain is outside the spec's registry, but its reverts read as the
  // EVM definition explains them
  const explain = p.def?.explainError ?? definitions(p.method).find((d) => d.explainError)?.explainError;
  return explain?.(e, p.chain) ?? e;
}

export interface SendOptions {
  scanTimeoutMs: number;
  /** the chain's checks on the result (MethodDef.verify); default on */
  verify?: boolean;
  /** extra client options (pinned endpoint, fresh connection) */
  call?: Partial<CallOptions>;
}

/** Sends a prepared request and applies the definition's error explanation and result checks. */
export async function send(client: JsonRpcClient, p: Prepared, o: SendOptions): Promise<CallResult> {
  let r: CallResult;
  try {
    r = await client.call(p.method, p.params, callOptionsOf(p, o.scanTimeoutMs, o.call));
  } catch (e) {
    throw explainError(p, e);
  }
  if (o.verify !== false) p.def?.verify?.(r.result, p.params);
  return r;
}

/** The marks of a registry method in a group, for workflow calls (getblockchaininfo, gettxout, ...). */
export const marksOf = (method: string, group: GroupName) =>
  definitions(method).find((d) => d.group === group)?.marks ?? UNKNOWN_MARKS;
