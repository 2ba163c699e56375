/**
 * The ABI side of `call`, `estimate`, `calldata` and `decode` (ox through src/evm/abi.ts): the function
 * from a signature or an ABI file, encoding, the call through the registry, decoded values printed.
 * Imported when one of these commands runs.
 */
import { amountWithUnit, type Unit } from "../../../chains/units.js";
import { IntegrityError, UsageError } from "../../../errors/index.js";
import * as abi from "../../../evm/abi.js";
import { evmCall } from "../../../evm/call.js";
import { stringifyLossless } from "../../../json/lossless.js";
import { formatUnits } from "../../../util/units.js";
import { refuseCsv } from "../../options.js";
import type { Run } from "../../run.js";
import { definitionAndContext, displayUnit, paramUsage } from "./common.js";
import type { EvmFlags } from "./options.js";

export { abi };

/** The function to call: a signature, or a name in --abi; plus the custom errors known for reverts. */
export function functionOf(cmd: string, sig: string, argc: number, flags: EvmFlags) {
  let fn: abi.Fn;
  let errors: ReturnType<typeof abi.errorsOfAbi> = [];
  if (flags.abi) {
    const a = abi.loadAbi(flags.abi);
    fn = sig.includes("(") ? abi.parseFunction(sig) : abi.functionFromAbi(a, sig, argc, flags.abi);
    errors = abi.errorsOfAbi(a);
  } else {
    if (!sig.includes("("))
      throw new UsageError(
        `${cmd}: ${JSON.stringify(sig)} is not a signature like "balanceOf(address)(uint256)"; give one, or --abi FILE`,
      );
    fn = abi.parseFunction(sig);
  }
  errors = [...errors, ...(flags.errorSig ?? []).map(abi.parseError)];
  return { fn, decoder: abi.customErrorDecoder(errors) };
}

/** Decoded values as the run prints them: a JSON array for machines, one value a line for people. */
/**
 * Decoded values as the run prints them: a JSON array for machines, one value a line for people. With a unit
 * (--ether, --gwei, --unit U) each integer also in that unit, exact: beside the value for people; for
 * machines an object, `{"result": [the array], "ether": [exact decimal text, or null where not an integer]}`.
 */
export function printValues(run: Run, params: readonly abi.Param[], values: abi.Plain[], unit?: Unit): void {
  const inUnit = (v: abi.Plain, i: number): string | undefined =>
    unit && typeof v === "string" && /^u?int\d*$/.test(params[i].type) && /^-?\d+$/.test(v)
      ? formatUnits(BigInt(v), unit.decimals)
      : undefined;
  if (run.machine) {
    const result = values.map((v, i) => abi.jsonOf(params[i], v));
    run.out(
      stringifyLossless(unit ? { result, [unit.name]: values.map((v, i) => inUnit(v, i) ?? null) } : result),
    );
    return;
  }
  const lines = values.map((v, i) => {
    const text = abi.valueText(params[i], v);
    const u = inUnit(v, i);
    return u === undefined ? text : `${text}  (${u} ${unit?.name})`;
  });
  run.out(lines.join("\n"));
}

/** `call` and `estimate`: encode, send through the registry's definition, decode. */
export async function runAbiCall(
  run: Run,
  method: "eth_call" | "eth_estimateGas",
  to: string,
  sig: string | undefined,
  args: string[],
  flags: EvmFlags,
): Promise<void> {
  const cmd = method === "eth_call" ? "call" : "estimate";
  refuseCsv(run, cmd);
  const { def, ctx, chain } = definitionAndContext(run, flags, method);
  let data = "0x";
  let fn: abi.Fn | undefined;
  let decoder: ReturnType<typeof abi.customErrorDecoder>;
  if (sig !== undefined) {
    ({ fn, decoder } = functionOf(cmd, sig, args.length, flags));
    data = abi.encodeCall(cmd, fn, args, chain);
  } else if (args.length) throw new UsageError(`${cmd}: arguments without a signature`);
  const unit = displayUnit(flags, chain, cmd);
  const value =
    flags.value === undefined
      ? undefined
      : paramUsage(
          `${cmd}: --value`,
          () => amountWithUnit(chain, flags.value as string)?.toString() ?? flags.value,
        );
  const r = await evmCall(ctx.client, {
    def,
    to,
    data,
    from: flags.from,
    value,
    block: flags.block,
    scanTimeoutMs: ctx.settings.scanTimeoutMs,
    customErrors: decoder,
  });
  if (method === "eth_estimateGas") {
    const gas =
      typeof r.result === "string" && /^0x[0-9a-f]+$/i.test(r.result) ? BigInt(r.result).toString() : r.raw;
    const gasUnit = chain.evm?.gasUnit;
    return run.print(gas, () => `${gas}${gasUnit ? ` ${gasUnit}` : ""}`);
  }
  const out = typeof r.result === "string" ? r.result : r.raw;
  if (!fn || fn.outputs.length === 0) return run.print(out, () => out);
  if (out === "0x" && fn.outputs.length > 0)
    throw new UsageError(
      `call: the contract returned no data, so there is nothing to decode as (${fn.outputs.map((p) => p.type).join(",")}); is ${to} a contract with ${fn.name}?`,
    );
  let values: abi.Plain[];
  try {
    values = abi.decodeValues(fn.outputs, out);
  } catch (e) {
    // the node answered; its answer does not fit the signature's return types
    throw new IntegrityError(`call: ${(e as Error).message}`, {
      hint: "Check the return types in the signature (or the ABI) against the contract.",
    });
  }
  printValues(run, fn.outputs, values, unit);
}
