/** commitment.json: the published part of a liabilities build, and its checks when read back. */

import { UsageError } from "../errors/index.js";
import { digestOf } from "../proof/jcs.js";
import { quoted, short } from "../util/text.js";
import { formatUnits, parseUnits } from "../util/units.js";
import {
  AMOUNT_BYTES,
  assetTableRoot,
  bindsAssets,
  COMMITMENT_FORMAT,
  CONSTRUCTION_V1_1,
  CONSTRUCTION_V2_1,
  CONSTRUCTIONS,
  type Construction,
  FORMAT_VERSION,
  forestRoot,
  getAmount,
  hex,
  isForest,
  MAX_AMOUNT,
} from "./format.js";
import { ASSET_NAME, type Asset, MAX_DECIMALS } from "./input.js";
import { isObj, isRfc3339, strictJson, unknownMember } from "./read.js";

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
  construction: Construction;
  label?: string;
  /**
   * the audit's challenge: the exact text the reserves' signatures must be over for them to count as proven
   * for these liabilities (`liabilities build --challenge`); under the digest like every member
   */
  challenge?: string;
  created: string;
  assets: Asset[];
  totals: Total[];
  /** v2: per asset in order, its tree: 2^height leaves, its root hash (lowercase hex) */
  trees?: TreeEntry[];
  /** the padded leaf count, a power of two (v2: of all trees together) */
  leaves: number;
  /** v2: the tallest tree's */
  height: number;
  /**
   * the announced root, lowercase hex: v1.1 and v2.1 SHA-256(0x03 ‖ the asset table ‖ the tree's top hash or
   * the forest root) (format.ts `assetTableRoot`); v1 the tree's top hash, v2 the forest root
   */
  root: string;
  /**
   * v1: the root's two children, left then right — each its hash (lowercase hex) and every asset's sum (base
   * units, in the assets' order). The root is SHA-256(0x01 ‖ left record ‖ right record), so they bind the
   * totals to the root from this file alone (commitment-totals.ts); every customer's path already shows them
   * (its top sibling is one, its own side the other). Absent in commitments built before they were written.
   */
  children?: RootChild[];
  /** SHA-256 of the RFC 8785 form of this document without `digest` */
  digest: string;
}

/** One of a v1 root's two children: its hash and every asset's sum, base units as decimal strings. */
export interface RootChild {
  hash: string;
  sums: string[];
}

export interface TreeEntry {
  asset: string;
  height: number;
  root: string;
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
  /** the tree's top hash (v2: the forest root), lowercase hex: the announced root is over it and the assets */
  inner: string;
  created: Date;
  label?: string;
  challenge?: string;
  trees?: TreeEntry[];
  /** v1: the root's two children's records (hash ‖ every asset's u128 sum) */
  children?: [Uint8Array, Uint8Array];
}): Commitment {
  const body = {
    format: COMMITMENT_FORMAT,
    version: FORMAT_VERSION,
    construction: o.trees ? CONSTRUCTION_V2_1 : CONSTRUCTION_V1_1,
    ...(o.label !== undefined ? { label: o.label } : {}),
    ...(o.challenge !== undefined ? { challenge: o.challenge } : {}),
    created: o.created.toISOString().replace(/\.\d{3}Z$/, "Z"),
    assets: o.assets.map((a) => ({ asset: a.asset, decimals: a.decimals })),
    totals: o.assets.map((a, i) => totalOf(a, o.totals[i])),
    ...(o.trees ? { trees: o.trees } : {}),
    leaves: o.leaves,
    height: o.height,
    root: hex(assetTableRoot(o.assets, Buffer.from(o.inner, "hex"))),
    ...(o.children ? { children: o.children.map((r) => childOf(r, o.assets.length)) } : {}),
  } as const;
  return { ...body, digest: digestOf(body) };
}

/** A node record (hash ‖ `assets` u128 sums) as the commitment writes a root's child. */
const childOf = (record: Uint8Array, assets: number): RootChild => ({
  hash: Buffer.from(record.subarray(0, 32)).toString("hex"),
  sums: Array.from({ length: assets }, (_, a) => getAmount(record, 32 + a * AMOUNT_BYTES).toString()),
});

const HEX32 = /^[0-9a-f]{64}$/;
const BASE_UNITS = /^(0|[1-9]\d*)$/;
const DECIMAL_TEXT = /^(0|[1-9]\d*)(\.\d+)?$/;
const MEMBERS = [
  "format",
  "version",
  "construction",
  "label",
  "challenge",
  "created",
  "assets",
  "totals",
  "trees",
  "leaves",
  "height",
  "root",
  "children",
  "digest",
] as const;

/** The deepest tree a commitment may describe (leaf indices stay exact integers). */
export const MAX_HEIGHT = 31;

/**
 * Reads a commitment document whole: throws UsageError (exit 2) naming the field when `text` is not one —
 * not strict JSON (a member repeated at any depth), a member the format does not have, an unknown format,
 * version or construction, an asset named twice or outside the build's names (exact ASCII, 1 to 32), a
 * total whose `amount` is not its `base_units`, `created` not RFC 3339. Its digest is not checked here:
 * {@link commitmentFaults} says whether the content still matches it.
 */
export function parseCommitment(text: string, file: string): Commitment {
  const v = strictJson(text, file);
  const bad = (why: string): never => {
    throw new UsageError(`${file}: not a liabilities commitment: ${why}`);
  };
  if (!isObj(v)) return bad("not a JSON object");
  const extra = unknownMember(v, MEMBERS);
  if (extra !== undefined) bad(`member ${quoted(extra)} is not part of the format`);
  if (v.format !== COMMITMENT_FORMAT) bad(`format is ${short(v.format)}, expected "${COMMITMENT_FORMAT}"`);
  if (v.version !== FORMAT_VERSION) bad(`version ${short(v.version)} (this chaingw reads ${FORMAT_VERSION})`);
  if (!CONSTRUCTIONS.includes(v.construction as Construction))
    bad(`construction ${short(v.construction)}, expected one of ${CONSTRUCTIONS.join(", ")}`);
  if (typeof v.created !== "string" || !isRfc3339(v.created))
    bad(`created ${short(v.created)} is not an RFC 3339 date-time (like 2026-11-30T00:00:00Z)`);
  if (!Array.isArray(v.assets) || !v.assets.length) bad("assets is not a list of assets");
  const names = new Set<string>();
  (v.assets as unknown[]).forEach((a, i) => {
    if (!isObj(a) || unknownMember(a, ["asset", "decimals"]) !== undefined)
      bad(`assets[${i}] is not {asset, decimals}`);
    const { asset, decimals } = a as Record<string, unknown>;
    if (typeof asset !== "string" || !ASSET_NAME.test(asset))
      bad(`assets[${i}].asset ${short(asset)}: letters, digits and . _ : - only, 1 to 32`);
    if (names.has(asset as string)) bad(`assets[${i}]: asset ${asset} is listed twice`);
    names.add(asset as string);
    if (!Number.isInteger(decimals) || (decimals as number) < 0 || (decimals as number) > MAX_DECIMALS)
      bad(`assets[${i}].decimals ${short(decimals)}: a whole number from 0 to ${MAX_DECIMALS}`);
  });
  const assets = v.assets as Asset[];
  if (!Array.isArray(v.totals) || v.totals.length !== assets.length)
    bad("totals does not list one total per asset");
  (v.totals as unknown[]).forEach((t, i) => {
    const { asset, decimals } = assets[i];
    if (!isObj(t) || unknownMember(t, ["asset", "amount", "base_units"]) !== undefined || t.asset !== asset)
      bad(`totals[${i}] is not the ${asset} total {asset, amount, base_units}`);
    const { amount, base_units } = t as Record<string, unknown>;
    if (typeof base_units !== "string" || !BASE_UNITS.test(base_units))
      bad(`totals[${i}].base_units ${short(base_units)} is not a whole number of base units`);
    if (BigInt(base_units as string) > MAX_AMOUNT) bad(`totals[${i}].base_units overflows 128 bits`);
    if (typeof amount !== "string" || !DECIMAL_TEXT.test(amount) || amount.length > 100)
      bad(`totals[${i}].amount ${short(amount)} is not decimal text`);
    let units: bigint | undefined;
    try {
      units = parseUnits(amount as string, decimals);
    } catch {
      units = undefined;
    }
    if (units?.toString() !== base_units)
      bad(
        `totals[${i}]: amount ${amount} ${asset} is not base_units ${base_units} at ${decimals} decimals (${formatUnits(BigInt(base_units as string), decimals)})`,
      );
  });
  if (!Number.isInteger(v.height) || (v.height as number) < 1 || (v.height as number) > MAX_HEIGHT)
    bad(`height ${short(v.height)} is not 1 to ${MAX_HEIGHT}`);
  if (isForest(v.construction as Construction)) {
    treesOf(v, assets, bad);
    if (v.children !== undefined) bad(`children: not part of ${v.construction} (its root hashes its totals)`);
  } else if (v.trees !== undefined) bad(`trees: not part of ${v.construction}`);
  else if (v.leaves !== 2 ** (v.height as number)) bad("leaves is not 2^height");
  else if (v.children !== undefined) childrenOf(v.children, assets, bad);
  if (typeof v.root !== "string" || !HEX32.test(v.root)) bad("root is not 64 lowercase hex digits");
  if (typeof v.digest !== "string" || !HEX32.test(v.digest)) bad("digest is not 64 lowercase hex digits");
  if (v.label !== undefined && typeof v.label !== "string") bad("label is not text");
  if (v.challenge !== undefined) {
    const why = typeof v.challenge === "string" ? challengeFault(v.challenge) : "is not text";
    if (why) bad(`challenge ${why}`);
  }
  return v as unknown as Commitment;
}

/** v1's children: the root's left and right, each {hash, sums} with one whole number of base units per asset. */
function childrenOf(v: unknown, assets: Asset[], bad: (why: string) => never): void {
  if (!Array.isArray(v) || v.length !== 2) bad("children is not the root's two children [left, right]");
  (v as unknown[]).forEach((c, i) => {
    if (!isObj(c) || unknownMember(c, ["hash", "sums"]) !== undefined)
      bad(`children[${i}] is not {hash, sums}`);
    const { hash, sums } = c as Record<string, unknown>;
    if (typeof hash !== "string" || !HEX32.test(hash))
      bad(`children[${i}].hash is not 64 lowercase hex digits`);
    if (!Array.isArray(sums) || sums.length !== assets.length)
      bad(`children[${i}].sums does not list one sum per asset (${assets.length})`);
    (sums as unknown[]).forEach((x, a) => {
      if (typeof x !== "string" || !BASE_UNITS.test(x) || x.length > 40 || BigInt(x) > MAX_AMOUNT)
        bad(
          `children[${i}].sums[${a}] ${short(x)} is not a whole number of ${assets[a].asset} base units below 2^128`,
        );
    });
  });
}

/** v2's trees: one per asset in order, each {asset, height, root}; leaves and height what they add up to. */
function treesOf(v: Record<string, unknown>, assets: Asset[], bad: (why: string) => never): void {
  if (!Array.isArray(v.trees) || v.trees.length !== assets.length)
    bad("trees does not list one tree per asset");
  let leaves = 0;
  let height = 0;
  (v.trees as unknown[]).forEach((t, i) => {
    if (
      !isObj(t) ||
      unknownMember(t, ["asset", "height", "root"]) !== undefined ||
      t.asset !== assets[i].asset
    )
      bad(`trees[${i}] is not the ${assets[i].asset} tree {asset, height, root}`);
    const { height: h, root } = t as Record<string, unknown>;
    if (!Number.isInteger(h) || (h as number) < 1 || (h as number) > MAX_HEIGHT)
      bad(`trees[${i}].height ${short(h)} is not 1 to ${MAX_HEIGHT}`);
    if (typeof root !== "string" || !HEX32.test(root)) bad(`trees[${i}].root is not 64 lowercase hex digits`);
    leaves += 2 ** (h as number);
    height = Math.max(height, h as number);
  });
  if (v.leaves !== leaves) bad("leaves is not the trees' leaves together");
  if (v.height !== height) bad("height is not the tallest tree's");
}

/** v2, v2.1: the root announced over the trees and totals (v2.1: and the asset table), lowercase hex. */
export const forestRootOf = (c: Pick<Commitment, "trees" | "totals" | "assets" | "construction">): string =>
  announcedRoot(
    c,
    forestRoot(
      (c.trees ?? []).map((t, a) => ({
        height: t.height,
        root: Buffer.from(t.root, "hex"),
        total: BigInt(c.totals[a].base_units),
      })),
    ),
  );

/**
 * The root a commitment announces over `inner` (the tree's top hash, or v2's forest root), lowercase hex: v1.1
 * and v2.1 hash the asset table with it (format.ts `assetTableRoot`); v1 and v2 announce `inner` itself.
 */
export const announcedRoot = (c: Pick<Commitment, "assets" | "construction">, inner: Uint8Array): string =>
  hex(bindsAssets(c.construction) ? assetTableRoot(c.assets, inner) : inner.subarray(0, 32));

/**
 * Why a text cannot be an audit's challenge (undefined when it can): empty or only white space — signatures
 * over it prove nothing fresh (as `reserves scan --challenge` refuses it). Any other text is taken byte for
 * byte: no trimming, no Unicode normalisation; it is shown escaped.
 */
export function challengeFault(text: string): string | undefined {
  return text.trim() === "" ? "is empty: signatures over no text prove nothing fresh" : undefined;
}

/**
 * What is wrong with a commitment's integrity: its digest no longer matches its content. Whether its root binds
 * its totals (v2's forest root, v1's children) is commitment-totals.ts's `rootBindsTotals`.
 */
export function commitmentFaults(c: Commitment): string[] {
  const d = digestOf(c);
  return d === c.digest
    ? []
    : [
        `the commitment was edited: its content hashes to ${d.slice(0, 16)}…, its digest says ${c.digest.slice(0, 16)}…`,
      ];
}
