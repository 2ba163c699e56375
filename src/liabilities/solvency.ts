/**
 * `solvency`: the committed liabilities held against reserve proofs, per asset. The rules (docs/proofs.md,
 * "Solvency"):
 *  - **identity**: a proof counts for an asset only when its network (re-derived by the verifier from the
 *    node: a UTXO chain's genesis block hash, an EVM chain id; without --verify, what the document claims)
 *    and, for a token, its contract are one of the asset's backings (`--backing`, else the well-known table
 *    of src/chains/assets.ts). Anything else is named for what it is and not counted;
 *  - **one snapshot per chain**: the UTXO proofs of one network are judged together at the highest of their
 *    heights (an output of a lower proof counts only if the verifier found it unspent at that height); EVM
 *    proofs of one chain must share a block (the face refuses others before sending anything);
 *  - **each coin once**: an output (network, txid:vout) or a balance (network, contract, address) is counted
 *    once however many proofs name it;
 *  - **proven vs claimed**: *proven* is what a verifier found held on the chain under an address whose
 *    signature over the challenge it judged valid; *claimed* is every counted output or balance as the
 *    documents state it. Only proven reserves make an asset covered: SOLVENT needs every asset covered.
 * Data in, data out: the face reads the files and runs the verifiers (as `reserves report` does).
 */

import {
  type BackingRef,
  type NetworkId,
  nativeCoinLabel,
  networkLabel,
  wellKnownAt,
} from "../chains/assets.js";
import { MESSAGE_COINS, type NetworkName } from "../chains/coins.js";
import type { Proof } from "../proof/document.js";
import type { EvmProof } from "../proof/evm-document.js";
import { share, unitOf } from "../reserves/claims.js";
import type { ProofCheck, ReportEntry } from "../reserves/combined.js";
import { counted, type Verdict } from "../reserves/verdict.js";
import { formatUnits } from "../util/units.js";
import { type Commitment, commitmentFaults } from "./commitment.js";

/** One `--reserves ASSET=PROOF[#ID]`, read (and verified when asked). */
export interface Backing {
  asset: string;
  file: string;
  /** an EVM proof's asset: "native" or the token contract */
  id?: string;
  utxo?: Proof;
  evm?: EvmProof;
  entry: ReportEntry & { verify?: ProofCheck };
}

/** What backs one liabilities asset: the auditor's `--backing`, else the well-known table, else nothing. */
export interface AssetRule {
  refs: BackingRef[];
  source: "declared" | "well-known" | "none";
}

/** What a reserve proof's check means for solvency. */
export type ReserveStatus = "holds" | "fails" | "cannot-say" | "not-verified";

/** The one mapping from a reserve verifier's answer (or none, without --verify) to solvency's terms. */
export function reserveStatus(b: Backing): ReserveStatus {
  if (!b.entry.digest_ok) return "fails";
  const v = b.entry.verify?.verdict;
  if (v === undefined) return "not-verified";
  return v === "holds" ? "holds" : v === "fails" ? "fails" : "cannot-say";
}

/**
 * covered: proven reserves cover the liabilities; claimed-only: only claimed (unproven) reserves do;
 * not-covered: not even the claimed ones; reserves-fail: a proof backing it does not hold; cannot-say: a node
 * could not say, and proven reserves alone do not cover it.
 */
export type AssetStatus = "covered" | "claimed-only" | "not-covered" | "reserves-fail" | "cannot-say";

export interface Amount {
  amount: string;
  base_units: string;
}

export interface SolvencyAsset {
  asset: string;
  decimals: number;
  /** what backs it and where that rule came from */
  backing: { source: AssetRule["source"]; by: string[] };
  liabilities: Amount;
  /** held on the chain under addresses whose signature over the challenge the verifier judged valid */
  proven: Amount;
  /** every counted output or balance as the documents state it (the proven ones included) */
  claimed: Amount;
  /** proven ÷ liabilities ("112.50%"); "n/a" for no liabilities */
  coverage: string;
  /** claimed ÷ liabilities */
  claimed_coverage: string;
  /** proven ÷ claimed; "n/a" when nothing is claimed */
  proven_share: string;
  /** how much proven reserves miss, in the asset's units; null when covered */
  shortfall: string | null;
  status: AssetStatus;
  proofs: {
    file: string;
    id?: string;
    /** what the proof is: its network (and token), as re-derived or, without --verify, as claimed */
    is: string;
    counted: boolean;
    /** why it does not count */
    why?: string;
    /** the proof's own height or block */
    height: number;
    /** what this proof states at the joint height, and how much of it it proves (overlaps with others included) */
    claimed: string;
    proven: string;
    check: ReserveStatus;
    summary?: string;
  }[];
  /** per network: the one height the asset's proofs were judged at */
  snapshots: string[];
  /** outputs or balances named by more than one proof, counted once (the first 20 named, then a count) */
  overlap: string[];
  /** outputs of a lower proof spent at or below the joint height: not counted there */
  spent_before_snapshot: number;
}

export type SolvencyVerdict = "solvent" | "unproven" | "not-solvent" | "cannot-say";

/** Solvency's verdict in the one verdict type of every check (reserves/verdict.ts), for the one exit table. */
export const SOLVENCY_VERDICT: Record<SolvencyVerdict, Verdict> = {
  solvent: "holds",
  // covered only by reserves nobody proved: solvency is not shown
  unproven: "fails",
  "not-solvent": "fails",
  "cannot-say": "cannot-say",
};

export interface SolvencyReport {
  verdict: SolvencyVerdict;
  summary: string;
  verified: boolean;
  /**
   * The texts the proofs' signatures are over (null: a proof without one), each with its files, and the one
   * `--challenge` required (a proof over another text does not hold), or null when none was.
   */
  challenges: { text: string | null; files: string[] }[];
  challenge_required: string | null;
  commitment: { root: string; digest: string; label?: string; digest_ok: boolean };
  assets: SolvencyAsset[];
}

const STATUS_RANK: Record<AssetStatus, number> = {
  covered: 0,
  "cannot-say": 1,
  "claimed-only": 2,
  "not-covered": 3,
  "reserves-fail": 3,
};

/** The network a UTXO proof claims: its coin (from its addresses' form) and its `chain` field, by the coin table. */
function claimedUtxoNetwork(p: Proof): NetworkId | null {
  const coin = MESSAGE_COINS.find((c) => c.ticker === unitOf(p));
  const genesis = coin?.networks[p.chain as NetworkName]?.genesis;
  return genesis ? `utxo:${genesis}` : null;
}

/** A backing's network: the verifier's, re-derived from the node, else what the document claims. */
export function networkOfBacking(b: Backing): { network: NetworkId | null; rederived: boolean } {
  const v = b.entry.verify?.chain.network;
  if (v) return { network: v, rederived: true };
  return { network: b.utxo ? claimedUtxoNetwork(b.utxo) : `evm:${b.evm!.chain.chain_id}`, rederived: false };
}

const tokenOf = (b: Backing): string | undefined => (b.evm && b.id !== "native" ? b.id : undefined);
const heightOf = (b: Backing): number => (b.utxo ? b.utxo.height : b.evm!.block.number);

/** "Tether's USDT on Ethereum", or "a token named USDT at 0x…, on anvil (chain id 31337)", or "LTC on Litecoin regtest". */
export function whatIs(b: Backing, network: NetworkId | null): string {
  if (network === null)
    return b.entry.verify
      ? "a proof whose network could not be told (its node could not say)"
      : "a proof whose addresses do not say which coin (--verify asks its node)";
  const token = tokenOf(b);
  const known = wellKnownAt(network, token);
  if (known) return known.label;
  const on = networkLabel(network);
  if (!token) return b.utxo ? nativeCoinLabel(network) : `the native coin of ${on}`;
  const sym = b.evm!.assets.find((a) => a.id === token)?.symbol;
  return `a token${sym ? ` named ${sym}` : ""} at ${token} on ${on}`;
}

/**
 * Proofs of one network at different heights or blocks that cannot be joined: EVM proofs always, UTXO proofs
 * without --verify (only the verifier can say which outputs were still unspent at the joint height). One line
 * per network, or none. Grouped by the network each document claims, before anything is sent.
 */
export function snapshotConflicts(backings: Backing[], verify: boolean): string[] {
  const by = new Map<string, Backing[]>();
  for (const b of backings) {
    // a UTXO proof whose addresses do not tell the coin: grouped by its network field, to be safe
    const n = networkOfBacking(b).network ?? `the "${b.utxo?.chain}" network`;
    by.set(n, [...(by.get(n) ?? []), b]);
  }
  const out: string[] = [];
  for (const [n, bs] of by) {
    const heights = new Set(bs.map(heightOf));
    if (heights.size < 2 || (verify && bs.every((b) => b.utxo))) continue;
    const list = [...new Map(bs.map((b) => [b.file, heightOf(b)])).entries()].map(([f, h]) => `${f} at ${h}`);
    out.push(
      `${networkLabel(n)}: proofs at different ${bs[0]!.utxo ? "heights" : "blocks"} (${list.join(", ")}) cannot be counted together — ${bs[0]!.utxo ? "give --verify to judge them at the highest, or proofs of one height" : "make them at one block"}`,
    );
  }
  return out;
}

/** Every counted output or balance once: its amount, the first proof naming it, and whether any proof proved it. */
interface Tally {
  coins: Map<string, { amount: bigint; file: string; proven: boolean }>;
  overlap: string[];
  overlaps: number;
  spentBefore: number;
}

const OVERLAP_NAMED = 20;

/**
 * What one counted proof states at its network's joint height `at` (its own claimed and proven base units,
 * overlaps included); the tally keeps each coin once, proven when any proof that holds proved it.
 */
function tallyProof(
  t: Tally,
  b: Backing,
  network: NetworkId,
  at: number,
): { claimed: bigint; proven: bigint } {
  const v = b.entry.verify;
  const holds = reserveStatus(b) === "holds";
  const owned = new Set(v?.owned ?? []);
  let claimed = 0n;
  let proven = 0n;
  const add = (key: string, owner: string, amount: bigint) => {
    const isProven = holds && owned.has(owner);
    claimed += amount;
    if (isProven) proven += amount;
    const k = `${networkLabel(network)} ${key}`;
    const first = t.coins.get(k);
    if (first === undefined) {
      t.coins.set(k, { amount, file: b.file, proven: isProven });
      return;
    }
    // proven at the amount a holding proof re-read on the chain, never at an earlier document's word for it
    if (isProven && !first.proven) Object.assign(first, { amount, proven: true });
    if (t.overlaps++ < OVERLAP_NAMED) t.overlap.push(`${k} is in ${first.file} and ${b.file}: counted once`);
  };
  if (b.utxo) {
    for (const o of b.utxo.outputs) {
      const spentAt = v?.spent[`${o.txid}:${o.vout}`];
      // spent in block S: unspent below S; at the joint height only if S > at
      if (spentAt !== undefined && spentAt <= at) {
        t.spentBefore++;
        continue;
      }
      add(`${o.txid}:${o.vout}`, o.matched, BigInt(o.amount_sats));
    }
  } else {
    const a = b.evm!.assets.find((x) => x.id === b.id)!;
    for (const bal of a.balances) add(`${a.id} ${bal.address}`, bal.address, BigInt(bal.base_units));
  }
  return { claimed, proven };
}

function judgeAsset(
  asset: { asset: string; decimals: number },
  liab: bigint,
  amountText: string,
  rule: AssetRule,
  mine: Backing[],
): SolvencyAsset {
  const t: Tally = { coins: new Map(), overlap: [], overlaps: 0, spentBefore: 0 };
  const fmt = (v: bigint) => formatUnits(v, asset.decimals);
  const placed = mine.map((b) => {
    const { network } = networkOfBacking(b);
    const token = tokenOf(b);
    const ref = rule.refs.find((r) => r.network === network && r.token === token);
    return { b, network, ref };
  });
  // one joint height per network: the highest of its counted proofs
  const joint = new Map<NetworkId, number>();
  for (const p of placed)
    if (p.ref && p.network) joint.set(p.network, Math.max(joint.get(p.network) ?? -1, heightOf(p.b)));
  const proofs: SolvencyAsset["proofs"] = placed.map(({ b, network, ref }) => {
    const check = reserveStatus(b);
    const base = {
      file: b.file,
      ...(b.id ? { id: b.id } : {}),
      is: whatIs(b, network),
      height: heightOf(b),
      check,
      ...(b.entry.verify ? { summary: b.entry.verify.summary } : {}),
    };
    if (!ref || network === null) {
      const wanted = rule.refs.length ? rule.refs.map((r) => r.label).join(" or ") : "nothing declared";
      const why =
        rule.source === "none"
          ? `nothing backs ${asset.asset}: it is not a well-known asset; declare what does with --backing ${asset.asset}=NETWORK[:TOKEN]`
          : `not ${wanted}`;
      return { ...base, counted: false, why, claimed: "0", proven: "0" };
    }
    const at = joint.get(network) as number;
    if (b.evm && heightOf(b) !== at)
      return {
        ...base,
        counted: false,
        why: `at block ${heightOf(b)}, not the joint block ${at}`,
        claimed: "0",
        proven: "0",
      };
    const own = tallyProof(t, b, network, at);
    return { ...base, counted: true, claimed: fmt(own.claimed), proven: fmt(own.proven) };
  });
  let claimed = 0n;
  let proven = 0n;
  for (const c of t.coins.values()) {
    claimed += c.amount;
    if (c.proven) proven += c.amount;
  }
  const checks = proofs.map((p) => p.check);
  const status: AssetStatus = checks.includes("fails")
    ? "reserves-fail"
    : proven >= liab
      ? "covered"
      : claimed < liab
        ? "not-covered"
        : checks.includes("cannot-say")
          ? "cannot-say"
          : "claimed-only";
  if (t.overlaps > OVERLAP_NAMED) t.overlap.push(`and ${t.overlaps - OVERLAP_NAMED} more counted once`);
  return {
    asset: asset.asset,
    decimals: asset.decimals,
    backing: { source: rule.source, by: rule.refs.map((r) => r.label) },
    liabilities: { amount: amountText, base_units: liab.toString() },
    proven: { amount: fmt(proven), base_units: proven.toString() },
    claimed: { amount: fmt(claimed), base_units: claimed.toString() },
    coverage: liab === 0n ? "n/a" : share(proven, liab),
    claimed_coverage: liab === 0n ? "n/a" : share(claimed, liab),
    proven_share: share(proven, claimed),
    shortfall: proven >= liab ? null : fmt(liab - proven),
    status,
    proofs,
    snapshots: [...joint].map(([n, h]) => {
      // how far below the verifying node's tip the joint height is: the reserves are as of then, not now
      const tips = placed.flatMap((p) =>
        p.network === n && p.b.entry.verify?.chain.tip ? [p.b.entry.verify.chain.tip] : [],
      );
      const below = tips.length ? ` (${counted(Math.max(...tips) - h, "block")} below the node's tip)` : "";
      return `${networkLabel(n)} at ${n.startsWith("utxo:") ? "height" : "block"} ${h}${below}`;
    }),
    overlap: t.overlap,
    spent_before_snapshot: t.spentBefore,
  };
}

function assetLine(a: SolvencyAsset, verified: boolean): string {
  switch (a.status) {
    case "not-covered":
      return `${a.asset} not covered: short ${a.shortfall} ${a.asset}${a.proofs.some((p) => p.counted) ? ` (claimed reserves ${a.claimed.amount} of ${a.liabilities.amount})` : " (no reserves count for it)"}`;
    case "reserves-fail":
      return `${a.asset}: a reserve proof does not hold`;
    case "cannot-say":
      return `${a.asset}: a node could not say whether its reserves hold; proven ${a.proven.amount} of ${a.liabilities.amount} ${a.asset}`;
    case "claimed-only":
      return `${a.asset} covered only by claimed reserves: proven ${a.proven.amount} of ${a.liabilities.amount} ${a.asset} (${a.coverage})${verified ? "" : "; nothing is proven without --verify"}`;
    default:
      return `${a.asset} covered`;
  }
}

/** The proofs' challenges, each with the files signed over it, in the order first met. */
function challengesOf(backings: Backing[]): SolvencyReport["challenges"] {
  const by = new Map<string | null, Set<string>>();
  for (const b of backings) {
    const t = b.entry.claims.challenge;
    by.set(t, (by.get(t) ?? new Set()).add(b.file));
  }
  return [...by].map(([text, files]) => ({ text, files: [...files] }));
}

export function solvency(
  c: Commitment,
  backings: Backing[],
  verified: boolean,
  rules: Map<string, AssetRule>,
  challenge?: string,
): SolvencyReport {
  const digestOk = commitmentFaults(c).length === 0;
  const assets = c.assets.map((asset, i) =>
    judgeAsset(
      asset,
      BigInt(c.totals[i]!.base_units),
      c.totals[i]!.amount,
      rules.get(asset.asset) ?? { refs: [], source: "none" },
      backings.filter((b) => b.asset === asset.asset),
    ),
  );
  const worst = Math.max(digestOk ? 0 : 3, ...assets.map((a) => STATUS_RANK[a.status]));
  const verdict: SolvencyVerdict = (["solvent", "cannot-say", "unproven", "not-solvent"] as const)[worst]!;
  const snapshots = [...new Set(assets.flatMap((a) => a.snapshots))].join("; ");
  const summary = !digestOk
    ? "the liabilities commitment was edited: its digest does not match its content"
    : verdict === "solvent"
      ? `every asset covered (${assets.length}) by proven reserves: signed for, re-read on chain (${snapshots})`
      : assets
          .filter((a) => a.status !== "covered")
          .map((a) => assetLine(a, verified))
          .join("; ");
  return {
    verdict,
    summary,
    verified,
    challenges: challengesOf(backings),
    challenge_required: challenge ?? null,
    commitment: {
      root: c.root,
      digest: c.digest,
      ...(c.label ? { label: c.label } : {}),
      digest_ok: digestOk,
    },
    assets,
  };
}
