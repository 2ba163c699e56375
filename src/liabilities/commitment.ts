/** commitment.json: the published part of a liabilities build, and its checks when read back. */
import { formatUnits } from "../chains/units.js";
import { UsageError } from "../errors/index.js";
import { digestOf } from "../proof/jcs.js";
import { COMMITMENT_FORMAT, CONSTRUCTION, FORMAT_VERSION, MAX_AMOUNT } from "./format.js";
import type { Asset } from "./input.js";

export interface Total {
  asset: string;
  /** decimal text in the asset's units */
  amount: string;
  /** integer base units, as a decimal string */
  base_units: string;
}

export interface Commitment {
  format: typeof COMMITMENT_FORMAT;
  version: typeof FORMAT_VERSION;
  construction: typeof CONSTRUCTION;
  label?: string;
  created: string;
  assets: Asset[];
  totals: Total[];
  /** the padded leaf count, a power of two */
  leaves: number;
  height: number;
  /** the root's hash, lowercase hex */
  root: string;
  /** SHA-256 of the RFC 8785 form of this document without `digest` */
  digest: string;
}

export const totalOf = (asset: Asset, base: bigint): Total => ({
  asset: asset.asset,
  amount: formatUnits(base, asset.decimals),
  base_units: base.toString(),
});

export function makeCommitment(o: {
  assets: Asset[];
  totals: bigint[];
  leaves: number;
  height: number;
  root: string;
  created: Date;
  label?: string;
}): Commitment {
  const body = {
    format: COMMITMENT_FORMAT,
    version: FORMAT_VERSION,
    construction: CONSTRUCTION,
    ...(o.label !== undefined ? { label: o.label } : {}),
    created: o.created.toISOString().replace(/\.\d{3}Z$/, "Z"),
    assets: o.assets.map((a) => ({ asset: a.asset, decimals: a.decimals })),
    totals: o.assets.map((a, i) => totalOf(a, o.totals[i])),
    leaves: o.leaves,
    height: o.height,
    root: o.root,
  } as const;
  return { ...body, digest: digestOf(body) };
}

const HEX32 = /^[0-9a-f]{64}$/;
const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Reads a commitment document: throws UsageError (exit 2) when `text` is not one. Its digest is not checked
 * here: {@link commitmentFaults} says whether the content still matches it.
 */
export function parseCommitment(text: string, file: string): Commitment {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${file}: not JSON (${(e as Error).message})`);
  }
  const bad = (why: string): never => {
    throw new UsageError(`${file}: not a liabilities commitment: ${why}`);
  };
  if (!isObj(v)) return bad("not a JSON object");
  if (v.format !== COMMITMENT_FORMAT)
    bad(`format is ${JSON.stringify(v.format)}, expected "${COMMITMENT_FORMAT}"`);
  if (v.version !== FORMAT_VERSION)
    bad(`version ${JSON.stringify(v.version)} (this chaingw reads ${FORMAT_VERSION})`);
  if (v.construction !== CONSTRUCTION)
    bad(`construction ${JSON.stringify(v.construction)}, expected ${CONSTRUCTION}`);
  if (!Array.isArray(v.assets) || !v.assets.length) bad("assets is not a list of assets");
  for (const a of v.assets as unknown[])
    if (!isObj(a) || typeof a.asset !== "string" || !Number.isInteger(a.decimals))
      bad("an asset lacks asset or decimals");
  const assets = v.assets as Asset[];
  if (!Array.isArray(v.totals) || v.totals.length !== assets.length)
    bad("totals does not list one total per asset");
  (v.totals as unknown[]).forEach((t, i) => {
    if (
      !isObj(t) ||
      t.asset !== assets[i].asset ||
      typeof t.base_units !== "string" ||
      !/^\d+$/.test(t.base_units)
    )
      bad(`totals[${i}] is not the ${assets[i].asset} total in base units`);
    if (BigInt((t as { base_units: string }).base_units) > MAX_AMOUNT) bad(`totals[${i}] overflows 128 bits`);
  });
  if (!Number.isInteger(v.height) || (v.height as number) < 1 || (v.height as number) > 31)
    bad("height is not 1 to 31");
  if (v.leaves !== 2 ** (v.height as number)) bad("leaves is not 2^height");
  if (typeof v.root !== "string" || !HEX32.test(v.root)) bad("root is not 64 lowercase hex digits");
  if (typeof v.digest !== "string" || !HEX32.test(v.digest)) bad("digest is not 64 lowercase hex digits");
  if (v.label !== undefined && typeof v.label !== "string") bad("label is not text");
  return v as unknown as Commitment;
}

/** What is wrong with a commitment's integrity: its digest no longer matches its content. */
export function commitmentFaults(c: Commitment): string[] {
  const d = digestOf(c);
  return d === c.digest
    ? []
    : [
        `the commitment was edited: its content hashes to ${d.slice(0, 16)}…, its digest says ${c.digest.slice(0, 16)}…`,
      ];
}
