/**
 * What the EVM commands (`call`, `estimate`, `calldata`, `decode`, `logs`, `to-wei`, `from-wei`) share
 * at declaration: their flags' types and the option groups several of them take. Light: no ABI code.
 */
import type { Command } from "commander";
import type { GlobalFlags } from "../../../config/config.js";
import { collect } from "../../options.js";

export interface AbiFlags {
  abi?: string;
  errorSig?: string[];
  from?: string;
  value?: string;
  block?: string;
  unit?: string;
  ether?: boolean;
  gwei?: boolean;
  input?: boolean;
}

export interface LogsFlags {
  event?: string;
  abi?: string;
  address?: string[];
  fromBlock?: string;
  toBlock?: string;
  window?: string;
  maxWindow?: string;
}

export const SIG_HELP =
  'function signature as cast takes it, "balanceOf(address)(uint256)", or with --abi the function name';

export const unitOptions = (c: Command) =>
  c
    .option("--unit <unit>", "show integer results also in this unit (ether, gwei, wei; trx, sun)")
    .option("--ether", "show integer results also in ether (TRX on the EVM-compat chain) = --unit <coin>")
    .option("--gwei", "show integer results also in gwei = --unit gwei");

export const callOptions = (c: Command) =>
  c
    .option("--abi <file>", 'a JSON ABI (or an artifact with "abi"): the function by name, its custom errors')
    .option("--error-sig <sig>", 'a custom error to decode reverts with, "Name(types)"; repeatable', collect)
    .option("--from <address>", "callObject.from: the sender")
    .option("--value <amount>", "callObject.value: base units (wei, sun), or with a unit: 1.5ether, 2trx");

/** The flags of an EVM command: the global ones and its own. */
export type EvmFlags = GlobalFlags & AbiFlags & LogsFlags;

export const evmFlags = (command: Command): EvmFlags => command.optsWithGlobals() as EvmFlags;
