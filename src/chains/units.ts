/**
 * The coin's units, exactly: decimal text ⇄ base units (wei, sun) as BigInt, never through a float.
 * Unit names come from the chain object (EvmTraits.units), so TRON's sun/TRX work like wei/gwei/ether; the
 * conversions are util/units.ts's.
 */
import { ParamProblem } from "../errors/index.js";
import { parseUnits } from "../util/units.js";
import { evmTraits } from "./evm-values.js";
import type { ChainGroup } from "./types.js";

export interface Unit {
  name: string;
  decimals: number;
}

/** A unit of the chain by name (case-insensitive; "eth" for ether); throws ParamProblem listing them. */
export function unitOf(chain: ChainGroup, name: string): Unit {
  const units = evmTraits(chain).units;
  const n = name.trim().toLowerCase();
  const u = units.find((x) => x.name === n || (n === "eth" && x.name === "ether"));
  if (u) return u;
  throw new ParamProblem(
    `unknown unit ${JSON.stringify(name)} on the ${chain.name} chain; expected ${units.map((x) => x.name).join(", ")}`,
  );
}

/** The coin's own unit (ether, trx): the last of the chain's units. */
export const coinUnit = (chain: ChainGroup): Unit => evmTraits(chain).units.at(-1) as Unit;
/** The chain's base unit (wei, sun). */
export const baseUnit = (chain: ChainGroup): Unit => evmTraits(chain).units[0];

/**
 * An amount with an optional unit suffix ("1.5ether", "10 gwei", "2trx") or a plain integer in base units
 * (decimal or 0x hex), as an argument to a contract call or a --value: base units.
 */
export function amountWithUnit(chain: ChainGroup, text: string): bigint | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]+)\s*$/.exec(text);
  if (!m) return undefined;
  const u = unitOf(chain, m[2]);
  return parseUnits(m[1], u.decimals, u.name);
}
