/**
 * `solvency`: the committed liabilities held against reserve proofs, per asset — liabilities, reserves (each
 * output or address-and-asset balance counted once across the proofs backing one asset, the overlap named),
 * the share proven owned by signatures, the coverage, and one verdict. Data in, data out: the face reads the
 * files and runs the reserve verifiers (as `reserves report` does) and maps their verdicts through
 * {@link reserveStatus}.
 */

import { formatUnits } from "../chains/units.js";
import type { Proof } from "../proof/document.js";
import type { EvmProof } from "../proof/evm-document.js";
import { share } from "../reserves/claims.js";
import type { ProofCheck, ReportEntry } from "../reserves/combined.js";
import type { Verdict } from "../reserves/verdict.js";
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

/** What a reserve proof's check means for solvency. */
export type ReserveStatus = "holds" | "fails" | "cannot-say" | "not-verified";

/** The one mapping from a reserve verifier's answer (or none, without --verify) to solvency's terms. */
export function reserveStatus(b: Backing): ReserveStatus {
  if (!b.entry.digest_ok) return "fails";
  const v = b.entry.verify?.verdict;
  if (v === undefined) return "not-verified";
  return v === "holds" ? "holds" : v === "fails" ? "fails" : "cannot-say";
}

export type AssetStatus = "covered" | "not-covered" | "reserves-fail" | "cannot-say";

export interface SolvencyAsset {
  asset: string;
  decimals: number;
  liabilities: { amount: string; base_units: string };
  reserves: { amount: string; base_units: string };
  /** share of the reserves held by addresses with a valid ownership signature, or null without signatures */
  proven_owned: string | null;
  /** reserves ÷ liabilities ("100.00%"), "n/a" for no liabilities */
  coverage: string;
  /** how much is missing, in the asset's units; null when covered */
  shortfall: string | null;
  status: AssetStatus;
  proofs: { file: string; id?: string; reserves: string; check: ReserveStatus; summary?: string }[];
  /** outputs or balances that appear in more than one proof, counted once */
  overlap: string[];
}

/** Solvency's verdict in the one verdict type of every check (reserves/verdict.ts), for the one exit table. */
export const SOLVENCY_VERDICT: Record<SolvencyReport["verdict"], Verdict> = {
  solvent: "holds",
  "not-solvent": "fails",
  "cannot-say": "cannot-say",
};

export interface SolvencyReport {
  verdict: "solvent" | "not-solvent" | "cannot-say";
  summary: string;
  verified: boolean;
  commitment: { root: string; digest: string; label?: string; digest_ok: boolean };
  assets: SolvencyAsset[];
}

const STATUS_RANK: Record<AssetStatus, number> = {
  covered: 0,
  "cannot-say": 1,
  "not-covered": 2,
  "reserves-fail": 2,
};

export function solvency(c: Commitment, backings: Backing[], verified: boolean): SolvencyReport {
  const digestOk = commitmentFaults(c).length === 0;
  const assets = c.assets.map((asset, i): SolvencyAsset => {
    const liab = BigInt(c.totals[i].base_units);
    const mine = backings.filter((b) => b.asset === asset.asset);
    // every output (UTXO) or address-and-asset balance (EVM) once
    const seen = new Map<string, string>();
    const overlap: string[] = [];
    let reserves = 0n;
    let proven = 0n;
    let signatures = false;
    const proofs: SolvencyAsset["proofs"] = [];
    for (const b of mine) {
      let own = 0n;
      const count = (key: string, v: bigint) => {
        const first = seen.get(key);
        if (first !== undefined) {
          overlap.push(`${key} is in ${first} and ${b.file}: counted once`);
          return;
        }
        seen.set(key, b.file);
        own += v;
      };
      if (b.utxo) {
        for (const o of b.utxo.outputs) count(`${o.txid}:${o.vout}`, BigInt(o.amount_sats));
        if (b.utxo.ownership) {
          signatures = true;
          proven += BigInt(b.utxo.ownership.proven_sats);
        }
      } else if (b.evm) {
        const a = b.evm.assets.find((x) => x.id === b.id)!;
        for (const bal of a.balances) count(`${bal.address} ${a.symbol ?? a.id}`, BigInt(bal.base_units));
      }
      reserves += own;
      const check = reserveStatus(b);
      proofs.push({
        file: b.file,
        ...(b.id ? { id: b.id } : {}),
        reserves: formatUnits(own, asset.decimals),
        check,
        ...(b.entry.verify ? { summary: b.entry.verify.summary } : {}),
      });
    }
    if (proven > reserves) proven = reserves;
    const covered = reserves >= liab;
    const checks = proofs.map((p) => p.check);
    const status: AssetStatus = checks.includes("fails")
      ? "reserves-fail"
      : !covered
        ? "not-covered"
        : checks.includes("cannot-say")
          ? "cannot-say"
          : "covered";
    return {
      asset: asset.asset,
      decimals: asset.decimals,
      liabilities: { amount: c.totals[i].amount, base_units: liab.toString() },
      reserves: { amount: formatUnits(reserves, asset.decimals), base_units: reserves.toString() },
      proven_owned: signatures ? share(proven, reserves) : null,
      coverage: liab === 0n ? "n/a" : share(reserves, liab),
      shortfall: covered ? null : formatUnits(liab - reserves, asset.decimals),
      status,
      proofs,
      overlap,
    };
  });
  const worst = Math.max(digestOk ? 0 : 2, ...assets.map((a) => STATUS_RANK[a.status]));
  const verdict = worst === 0 ? "solvent" : worst === 1 ? "cannot-say" : "not-solvent";
  const bad = assets.filter((a) => a.status !== "covered");
  const summary = !digestOk
    ? "the liabilities commitment was edited: its digest does not match its content"
    : verdict === "solvent"
      ? `every asset covered (${assets.length}), ${verified ? "reserves verified against their chains now" : "reserves as their proofs say (--verify checks them against the chains)"}`
      : bad
          .map((a) =>
            a.status === "not-covered"
              ? `${a.asset} not covered: short ${a.shortfall} ${a.asset}${a.proofs.length ? "" : " (no reserves)"}`
              : a.status === "reserves-fail"
                ? `${a.asset}: a reserve proof does not hold`
                : `${a.asset}: a node could not say whether its reserves hold`,
          )
          .join("; ");
  return {
    verdict,
    summary,
    verified,
    commitment: {
      root: c.root,
      digest: c.digest,
      ...(c.label ? { label: c.label } : {}),
      digest_ok: digestOk,
    },
    assets,
  };
}
