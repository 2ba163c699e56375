/**
 * `liabilities verify`'s reading of a chaingw proof's asset table (issue 55: the asset names bound by the root):
 * v1.1 and v2.1's announced root hashes it (format.ts `assetTableRoot`), v1 and v2's binds each amount by its
 * asset's position only; and the frame a dense proof is checked in against an announced root alone.
 */
import type { Finding } from "../reserves/verdict.js";
import { claim, ok } from "../reserves/verifier.js";
import { quoted } from "../util/text.js";
import { formatUnits } from "../util/units.js";
import type { Commitment } from "./commitment.js";
import { bindsAssets, type Construction, FORMAT_VERSION, isForest } from "./format.js";
import { ASSET_NAME, type Asset, MAX_DECIMALS } from "./input.js";
import type { ProofDocument } from "./proof.js";
import { isObj, unknownMember } from "./read.js";

/**
 * A v1.1 proof's asset table (`assets`: the commitment's, which its root hashes): a list of {asset, decimals},
 * each name as a build writes it, none twice; a v1, v2 or v2.1 proof carries none (v2.1's is the commitment's).
 */
export function tableFrom(v: unknown, construction: Construction, bad: (why: string) => never): void {
  if (!bindsAssets(construction) || isForest(construction)) {
    if (v !== undefined) bad(`member "assets" is not part of ${construction}`);
    return;
  }
  if (!Array.isArray(v) || !v.length) bad(`assets is not the asset table ${construction}'s root hashes`);
  const names = new Set<string>();
  (v as unknown[]).forEach((a, i) => {
    if (
      !isObj(a) ||
      unknownMember(a, ["asset", "decimals"]) !== undefined ||
      typeof a.asset !== "string" ||
      !ASSET_NAME.test(a.asset) ||
      names.has(a.asset) ||
      !Number.isInteger(a.decimals) ||
      (a.decimals as number) < 0 ||
      (a.decimals as number) > MAX_DECIMALS
    )
      bad(
        `assets[${i}] is not {asset, decimals} (a name of the build's, once; decimals 0 to ${MAX_DECIMALS})`,
      );
    names.add((a as { asset: string }).asset);
  });
}

export const tableText = (assets: readonly Asset[]) =>
  assets.map((a) => `${quoted(a.asset)} at ${a.decimals} decimals`).join(", ");
export const sameTable = (a: readonly Asset[] | undefined, b: readonly Asset[]) =>
  a !== undefined &&
  a.length === b.length &&
  a.every((x, i) => x.asset === b[i].asset && x.decimals === b[i].decimals);

/**
 * Whether the root binds the asset table (each asset's name and decimals), said in every verdict: v1.1 and
 * v2.1's root hashes it, so the balances are of the assets named; v1 and v2's binds each amount by its asset's
 * position only — the leaf holds, but the names are the commitment's word (a claim, not a failure: the customer's
 * balances, named in the proof, are what they check against their account).
 */
export const namesFindings = (c: Commitment): Finding[] =>
  bindsAssets(c.construction)
    ? [
        ok(
          "names",
          `the root binds the asset table (${tableText(c.assets)}): every amount is of the asset named`,
          "assets",
        ),
      ]
    : [
        claim(
          "names",
          `the leaf holds, but the root (${c.construction}) does not bind the assets' names or decimals: it binds each amount by its asset's position (${tableText(c.assets)} as the commitment states them), so the same root stands under a relabelled table`,
          "assets",
        ),
      ];

/**
 * `--root` without `--commitment`: the frame a proof is checked in against the announced root alone — its
 * assets and decimals as its balances state them, its tree's height from its paths. Nothing here is trusted
 * beyond that: the leaves are recomputed and walked to `root` as ever (`rootOnly` skips the document's checks).
 */
export function rootFrame(p: ProofDocument, root: string): Commitment {
  const height = p.leaves[0]?.path.length ?? 0;
  return {
    format: "chaingw-liabilities",
    version: FORMAT_VERSION,
    construction: p.construction,
    ...(p.label === undefined ? {} : { label: p.label }),
    created: "",
    // v1.1: the table the root hashes, as the proof carries it (the walk to the root checks it)
    assets:
      p.assets?.map((a) => ({ ...a })) ??
      p.balances.map((b) => ({ asset: b.asset, decimals: decimalsOf(b.amount, b.base_units) })),
    totals: p.balances.map((b) => ({ ...b })),
    leaves: 2 ** height,
    height,
    root,
    digest: p.commitment,
  };
}

/**
 * The decimals with which `amount` writes `base` base units (0 when none does: the balances step names it);
 * for a balance not zero there is one, the asset's as the commitment states them.
 */
export function decimalsOf(amount: string, base: string): number {
  if (!/^\d{1,40}$/.test(base)) return 0;
  for (let d = 0; d <= 36; d++) if (formatUnits(BigInt(base), d) === amount) return d;
  return 0;
}
