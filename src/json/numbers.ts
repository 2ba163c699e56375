/**
 * JSON numbers as JS numbers, the one way: for heights, counts, progress and the registry's small params —
 * values a double holds. Amounts never come through here (they stay exact: util/units.ts, bigint base units).
 */
import { JsonNumber, type JsonValue } from "./value.js";

/** A number token (or a number already plain) as a number; undefined for anything else. */
export function numberOf(v: unknown): number | undefined {
  if (v instanceof JsonNumber) return Number(v.raw);
  return typeof v === "number" ? v : undefined;
}

/**
 * A number token, or an EVM QUANTITY of at most 15 hex digits ("0x1a"), as a number: a height or a tip as
 * either group's nodes print it; undefined for anything else.
 */
export function quantityOf(v: unknown): number | undefined {
  if (typeof v === "string") return /^0x[0-9a-fA-F]{1,15}$/.test(v) ? Number.parseInt(v, 16) : undefined;
  return numberOf(v);
}

/** A lossless value with every number token made a number, deep: for schema checks of small params. */
export function plainOf(v: JsonValue): unknown {
  if (v instanceof JsonNumber) return Number(v.raw);
  if (Array.isArray(v)) return v.map(plainOf);
  if (v !== null && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plainOf(x as JsonValue)]));
  return v;
}
