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
 *    once however many proofs name it; a token that mirrors the native coin (`nativeMirrors`: a known one, or
 *    balanceOf equal to the native balance at every address both are read for) is the native coin: one
 *    balance backs one asset;
 *  - **proven vs claimed**: *proven* is what a verifier found held on the chain under an address whose
 *    signature over the challenge it judged valid; *claimed* is every counted output or balance as the
 *    documents state it. Only proven reserves make an asset covered: SOLVENT needs every asset covered;
 *  - **one audit** (docs/proofs.md, "What binds a verdict to an audit"): the audit's challenge is the
 *    commitment's own (`liabilities build --challenge`) or `--challenge` (equal to the commitment's when both
 *    are given); a proof proves for these liabilities only when its signatures are over that exact text, and
 *    with no challenge at all nothing is proven;
 *  - **one time**: each snapshot's block time (re-read from the node) is within `--max-gap` of the
 *    commitment's `created`, which is not in the future; an output spent in a block whose time is at or
 *    before `created` does not back the liabilities.
 * Data in, data out: the face reads the files and runs the verifiers (as `reserves report` does).
 */

import {
  assetAt,
  type BackingRef,
  knownNativeMirror,
  type NetworkId,
  networkLabel,
  trustedContracts,
  trustedText,
} from "../chains/assets.js";
import { Ledger } from "../judge/holding.js";
import { beforeMomentFault, momentOf } from "../judge/moment.js";
import { readsFinding } from "../judge/reads.js";
import { type HoldingLine, largestGap } from "../judge/report.js";
import { assetCodeOf, assetStatus, chainSnapshots, snapshotFault } from "../judge/status.js";
import {
  type AssetFinding,
  AUDIT_FAULT_UNTOLD,
  type AuditFault,
  assetWords,
  auditFaultWords,
  type HoldingFinding,
  holdingWords,
  isAuditFault,
  mirrorWords,
  type NotForAudit,
  notForWords,
} from "../judge/words.js";
import { share } from "../reserves/claims.js";
import type { NativeMirror } from "../reserves/evm/mirrors.js";
import { rfc3339Seconds } from "../util/audit-time.js";
import { amountText } from "../util/units.js";
import { commitmentFaults } from "./commitment.js";
import {
  auditOf,
  challengesOf,
  isoOf,
  notForAudit,
  owedOf,
  snapshotOf,
  snapshotText,
} from "./solvency-audit.js";
import { HoldingList, OVERLAP_NAMED, READ, statedOf, type Tally, tallyProof } from "./solvency-holdings.js";
import {
  heightOf,
  ledgerFaults,
  nativeMirrors,
  networkOfBacking,
  tokenOf,
  trackingUnknown,
  whatIs,
} from "./solvency-identity.js";
import {
  type AssetRule,
  type Audit,
  type Backing,
  reserveStatus,
  type Snapshot,
  type SolvencyAsset,
  type SolvencyInput,
  type SolvencyReport,
  type SolvencyVerdict,
  STATUS_RANK,
} from "./solvency-types.js";

export { howTextsDiffer, snapshotText } from "./solvency-audit.js";
export { nativeMirrors, networkOfBacking, snapshotConflicts, whatIs } from "./solvency-identity.js";
export type {
  AssetRule,
  AssetStatus,
  Audit,
  Backing,
  ExchangeOwed,
  ReserveStatus,
  Snapshot,
  SolvencyAsset,
  SolvencyInput,
  SolvencyReport,
  SolvencyVerdict,
} from "./solvency-types.js";
export { CREATED_AHEAD_S, reserveStatus, SOLVENCY_VERDICT } from "./solvency-types.js";

interface Judging {
  rules: ReadonlyMap<string, AssetRule>;
  audit: Audit;
  createdS: number | null;
  /** the native mirrors among the proofs (`nativeMirrors`), and the asset each network's native coin backs */
  mirrors: Map<string, NativeMirror>;
  nativeOwner: Map<NetworkId, string>;
  /** the tokens whose node could not tell whether they read the native coin (`trackingUnknown`) */
  untracked: Map<string, string>;
  /** the tokens a shared ledger (or a node that cannot list storage reads) leaves untold (`ledgerFaults`) */
  shared: ReturnType<typeof ledgerFaults>;
  /** each chain's one snapshot (judge/status.ts `chainSnapshots`), of the proofs placed for their assets */
  latest: Map<string, number>;
  /** every output and balance of the audit once (judge/holding.ts): one ledger for every asset, as an address file's */
  ledger: Ledger;
  /** the liabilities' totals cannot be relied on (an exchange's root): every asset's status is cannot say */
  owedUnknown: boolean;
  /** the audit's one moment across chains, every asset's together (`auditMoment`) */
  moment: AssetRun["moment"];
}

/** A proof placed for an asset: the network it was found on, and the backing of the asset it is (if any). */
interface Placed {
  b: Backing;
  network: NetworkId | null;
  ref?: BackingRef;
}

/** What judging one asset's proofs shares: the asset, its rule, the tally, the joint heights, the snapshots. */
interface AssetRun {
  asset: { asset: string; decimals: number };
  rule: AssetRule;
  j: Judging;
  t: Tally;
  joint: Map<NetworkId, number>;
  snapshots: Map<NetworkId, Snapshot>;
  /** the native mirrors met among the counted proofs */
  mirrors: Set<string>;
  /** the audit's one moment across chains (`auditMoment`), or null: one chain, or times not read */
  moment: { s: number; network: NetworkId } | null;
  fmt: (v: bigint) => string;
}

function judgeAsset(
  asset: { asset: string; decimals: number },
  liab: bigint,
  rule: AssetRule,
  mine: Backing[],
  j: Judging,
  lines: HoldingLine[],
): SolvencyAsset {
  const t: Tally = {
    ledger: j.ledger,
    overlap: [],
    overlaps: 0,
    spentBefore: 0,
    spentBeforeCommitment: new Map(),
    movedBeforeMoment: [],
    datedAhead: [],
    list: new HoldingList(asset.asset, asset.decimals),
  };
  const fmt = (v: bigint) => amountText(v, asset.decimals);
  const placed: Placed[] = mine.map((b) => {
    const { network } = networkOfBacking(b);
    // the one identity rule (chains/assets.ts): the asset whose rule has this network and contract
    const at = assetAt(j.rules, network, tokenOf(b));
    return { b, network, ...(at?.asset === asset.asset ? { ref: at.ref } : {}) };
  });
  // one snapshot per chain (judge/status.ts): the joint height of each network its proofs are of
  const joint = new Map<NetworkId, number>();
  for (const p of placed)
    if (p.ref && p.network) joint.set(p.network, j.latest.get(p.network) ?? heightOf(p.b));
  const snapshots = new Map(
    [...joint].map(([n, h]) => [n, snapshotOf(n, h, placed, j.createdS, j.audit.max_gap_seconds)]),
  );
  const { moment } = j;
  const run: AssetRun = { asset, rule, j, t, joint, snapshots, moment, mirrors: new Set(), fmt };
  const proofs = placed.map((p) => {
    const from = t.list.lines.length;
    // the finding of a proof not counted, or of one counted that proves nothing for this audit, is the judge's
    const line = proofLine(run, p);
    // a proof none of whose holdings was listed: the proof as one line
    const f: HoldingFinding =
      line.finding ??
      ({
        code: "proof-check",
        check: line.check,
        ...(line.summary ? { summary: line.summary } : {}),
      } as const);
    t.list.proof(from, p.b, line.is, { ...line, finding: f });
    return line;
  });
  // by loop: push(...list) overflows the stack past ~120,000 holdings (a proof of that many outputs)
  for (const l of t.list.lines) lines.push(l);
  const { claimed, proven, unknown } = t.ledger.sums(asset.asset, asset.decimals);
  // a proof whose network nobody could tell was not judged: "cannot say" with --verify, "unjudged" without
  const untold = placed.some((p) => p.network === null && !p.b.entry.verify);
  if (t.overlaps > OVERLAP_NAMED) t.overlap.push(`and ${t.overlaps - OVERLAP_NAMED} more counted once`);
  return {
    asset: asset.asset,
    decimals: asset.decimals,
    backing: { source: rule.source, by: rule.refs.map((r) => r.label) },
    liabilities: { amount: fmt(liab), base_units: liab.toString() },
    proven: { amount: fmt(proven), base_units: proven.toString() },
    claimed: { amount: fmt(claimed), base_units: claimed.toString() },
    coverage: liab === 0n ? "n/a" : share(proven, liab),
    claimed_coverage: liab === 0n ? "n/a" : share(claimed, liab),
    proven_share: share(proven, claimed),
    shortfall: proven >= liab ? null : fmt(liab - proven),
    // the one status rule (judge/status.ts)
    status: assetStatus({
      liabilities: liab,
      claimed,
      proven,
      unknown,
      fails: proofs.some((p) => p.check === "fails"),
      unplaced: proofs.some((p) => p.check === "cannot-say" && !p.counted),
      unjudged: untold,
      owedUnknown: j.owedUnknown,
    }),
    proofs,
    snapshots: [...snapshots.values()],
    overlap: t.overlap,
    spent_before_snapshot: t.spentBefore,
    spent_before_commitment: [...t.spentBeforeCommitment.values()],
    moment: moment === null ? null : { time: isoOf(moment.s), network: networkLabel(moment.network) },
    moved_before_moment: t.movedBeforeMoment,
    spent_dated_ahead: t.datedAhead,
    mirrors: [...run.mirrors],
    code: "covered",
    why: "",
  };
}

/** An asset's finding as the report keeps it: its code and its words (judge/words.ts). */
const findingWords = (f: AssetFinding) => ({ code: f.code, why: assetWords(f) });

/**
 * A token the verifier's probe saw read another of its proof's tokens: that token's coins again, not counted
 * (judge/reads.ts, the rule an exchange's token rows meet too), or undefined.
 */
function readsOther(
  b: Backing,
  asset: string,
  network: NetworkId,
  token: string | undefined,
): HoldingFinding | undefined {
  if (token === undefined) return undefined;
  const v = b.entry.verify;
  const block = String(heightOf(b));
  const held = {
    asset,
    coin: b.evm?.assets.find((a) => a.id === token)?.symbol ?? token,
    is: { network, token },
  };
  // the native coin: the same finding, in the same words, as an exchange's token row the probe saw read it
  const native = v?.tracks_native?.[token];
  if (native !== undefined && !knownNativeMirror(network, token)) {
    const follows = v?.tracks_follows?.[token];
    return readsFinding(
      { of: "native", address: native, ...(follows === undefined ? {} : { follows }), block },
      held,
    );
  }
  const reads = v?.reads_token?.[token];
  if (!reads) return undefined;
  return readsFinding({ of: "token", token: reads.token, address: reads.address, block }, held);
}

/** One proof's line of an asset: counted (its coins tallied once) or why not. */
function proofLine(run: AssetRun, { b, network, ref }: Placed): SolvencyAsset["proofs"][number] {
  const { asset, rule, j, t, fmt } = run;
  const check = reserveStatus(b);
  const t0 = b.entry.verify?.block_time ?? null;
  const base = {
    file: b.file,
    ...(b.id ? { id: b.id } : {}),
    is: whatIs(b, network),
    height: heightOf(b),
    block_time: t0 === null ? null : isoOf(t0),
    challenge: b.entry.claims.challenge,
    check,
    ...(b.entry.verify ? { summary: b.entry.verify.summary } : {}),
  };
  const notCounted = (f: HoldingFinding) => {
    for (const x of statedOf(b)) t.list.notCounted(base.is, x, { code: "proof-not-counted", proof: f });
    return {
      ...base,
      counted: false,
      code: f.code,
      why: holdingWords(f),
      finding: f,
      claimed: fmt(0n),
      proven: fmt(0n),
    };
  };
  if (!ref || network === null)
    return notCounted(
      network === null
        ? { code: "network-untold", summary: b.entry.verify ? b.entry.verify.summary : null }
        : { code: "not-the-asset", asset: asset.asset, rule },
    );
  const at = run.joint.get(network) as number;
  const token = tokenOf(b);
  const mirror = token === undefined ? undefined : j.mirrors.get(`${network} ${token}`);
  if (mirror !== undefined) run.mirrors.add(mirrorWords(mirror));
  // a token the probe saw read the native coin (not a known mirror contract: what its balanceOf shows at an
  // address may be another address's coins, a follower listed first counting them at its holder's key), or
  // another declared token: the coins it reads count once, as themselves (judge/reads.ts, both paths' rule)
  const reads = readsOther(b, asset.asset, network, token);
  if (reads) return notCounted(reads);
  const owner = j.nativeOwner.get(network);
  if (mirror !== undefined && owner !== undefined && owner !== asset.asset)
    return notCounted({ code: "mirror-backs-other", mirror, network, owner });
  // one snapshot per chain: a balance read below its chain's (the face refuses such EVM proofs before sending)
  const moved = b.evm ? snapshotFault("balance", heightOf(b), at, "proofs") : undefined;
  const snap = run.snapshots.get(network);
  const early = earlierThanMoment(run, snap);
  // a declared token its node could not probe may be the native coin again (a well-known one is not)
  const why =
    token === undefined || mirror !== undefined ? undefined : j.untracked.get(`${network} ${token}`);
  // or a facade of a ledger an earlier declared token reads (judge/reads.ts `sharedLedgers`), or not told
  const shared = token === undefined ? undefined : j.shared.get(`${network} ${token}`);
  const untold: AuditFault | undefined =
    rule.source === "well-known" || token === undefined
      ? undefined
      : why !== undefined
        ? { code: "tracking-untold", network: networkLabel(network), reason: why }
        : shared;
  const notFor =
    check === "holds"
      ? (moved ?? notForAudit(b, j.audit, snap) ?? (b.evm ? (early?.evm ?? untold) : undefined))
      : undefined;
  // no time for its block (or the moment, or whether it is the native coin again, not told): the proof holds,
  // and whether it backs these liabilities cannot be said
  const unknown = notFor !== undefined && AUDIT_FAULT_UNTOLD.has(notFor.code);
  const own = tallyProof(
    t,
    b,
    network,
    at,
    { check, notFor, challenge: j.audit.challenge, scale: asset.decimals },
    { createdS: j.createdS, momentS: early ? early.s : null },
    mirror !== undefined,
  );
  return {
    ...base,
    ...(unknown ? { check: "cannot-say" as const } : {}),
    ...(notFor === undefined ? {} : { not_for_this_audit: auditFaultWords(notFor), finding: notFor }),
    counted: true,
    claimed: fmt(own.claimed),
    proven: fmt(own.proven),
  };
}

/**
 * The audit's one moment across chains (judge/moment.ts): the latest snapshot time of every chain backing any
 * asset owed, at its one snapshot (`latest`) — one for the audit, not one per asset: 5 LTC proven on Litecoin,
 * spent to a bridge and proven again later as another asset owed on an EVM chain, would count as both.
 */
function auditMoment(
  backings: Backing[],
  latest: Map<string, number>,
  createdS: number | null,
  maxGapS: number,
): AssetRun["moment"] {
  const placed = backings.map((b) => ({ b, network: networkOfBacking(b).network }));
  const m = momentOf(
    [...latest].map(([n, h]) => {
      const t = snapshotOf(n as NetworkId, h, placed, createdS, maxGapS).block_time;
      return [n as NetworkId, t === null ? null : rfc3339Seconds(t)] as const;
    }),
  );
  return m === null ? null : { s: m.s, network: m.chain };
}

/**
 * A network read before the audit's moment: its UTXO outputs count only if not spent by then (`s`); its
 * balances, read at a block that is not the node's tip (a later block exists, at or before the moment or not),
 * are not shown held at the moment: cannot say (`evm`, the reason, `beforeMomentFault`). undefined: read at
 * the moment.
 */
function earlierThanMoment(
  run: AssetRun,
  snap: Snapshot | undefined,
): { s: number; evm?: AuditFault } | undefined {
  const m = run.moment;
  if (m === null || snap?.block_time == null || rfc3339Seconds(snap.block_time) >= m.s) return undefined;
  const evm = beforeMomentFault(
    rfc3339Seconds(snap.block_time),
    { s: m.s, chain: m.network },
    networkLabel(m.network),
    snap.below_tip !== 0,
  );
  return { s: m.s, ...(evm ? { evm } : {}) };
}

/** Why an asset's holding proofs prove nothing for this audit, once each (typed: judge/words.ts words them). */
function notForList(a: SolvencyAsset): NotForAudit[] {
  const seen = new Set<string>();
  const why = a.proofs.flatMap((p): NotForAudit[] => {
    const f = p.finding;
    if (!p.counted || f === undefined || !isAuditFault(f) || f.code === "audit-terms") return [];
    const n = { file: p.file, fault: f };
    const key = notForWords(n);
    if (seen.has(key)) return [];
    seen.add(key);
    return [n];
  });
  const spent = a.spent_before_commitment;
  const moved = a.moved_before_moment;
  const ahead = a.spent_dated_ahead;
  // how many outputs, the first one's block, and whether others are in later blocks
  const outputs = (l: { height: number }[]) => ({
    outputs: l.length,
    block: l[0]!.height,
    more: l.length > 1,
  });
  return [
    ...why,
    ...(spent.length ? [{ code: "spent-before-liabilities" as const, ...outputs(spent) }] : []),
    ...(moved.length
      ? [{ code: "moved-before-moment" as const, ...outputs(moved), moment: a.moment?.time ?? null }]
      : []),
    ...(ahead.length ? [{ code: "spend-dated-ahead" as const, ...outputs(ahead) }] : []),
  ];
}

/** The asset's finding, typed (judge/words.ts turns it into words). */
function findingOf(a: SolvencyAsset, verified: boolean, owedUnknown: boolean): AssetFinding {
  return {
    // a proof's node could not say, or every one answered and a holding's time could not be placed (judge/moment.ts)
    code: assetCodeOf(
      a.status,
      owedUnknown,
      a.proofs.some((p) => p.check === "cannot-say"),
    ),
    asset: a.asset,
    decimals: a.decimals,
    numbers: {
      liabilities: a.liabilities.amount,
      proven: a.proven.amount,
      claimed: a.claimed.amount,
      shortfall: a.shortfall,
      coverage: a.coverage,
    },
    none: !a.proofs.some((p) => p.counted),
    notFor: notForList(a),
    ...(verified ? {} : { unprovable: "no-verify" as const }),
  };
}

export function solvency(i: SolvencyInput): SolvencyReport {
  return judgeSolvency(i).report;
}

/** The report, and every output and balance as the judge judged it (rows.csv reads these, never re-derives). */
export function judgeSolvency(i: SolvencyInput): { report: SolvencyReport; holdings: HoldingLine[] } {
  const holdings: HoldingLine[] = [];
  const owed = owedOf(i);
  const audit = auditOf(i, owed);
  // the asset each network's native coin backs: a mirror of that coin counts there, and for no other asset
  const nativeOwner = new Map<NetworkId, string>();
  for (const [asset, rule] of i.rules)
    for (const r of rule.refs)
      if (r.token === undefined && !nativeOwner.has(r.network)) nativeOwner.set(r.network, asset);
  const j: Judging = {
    rules: i.rules,
    audit,
    createdS: owed.created === null ? null : rfc3339Seconds(owed.created),
    mirrors: nativeMirrors(i.backings),
    nativeOwner,
    untracked: trackingUnknown(i.backings),
    shared: ledgerFaults(i.backings),
    owedUnknown: !owed.fails && owed.cannotSay !== undefined,
    ledger: new Ledger(audit.challenge),
    latest: chainSnapshots(
      i.backings.flatMap((b) => {
        const { network } = networkOfBacking(b);
        return network !== null && assetAt(i.rules, network, tokenOf(b))?.asset === b.asset
          ? [{ chain: network, height: heightOf(b), read: READ[reserveStatus(b)] }]
          : [];
      }),
    ),
    moment: null,
  };
  j.moment = auditMoment(i.backings, j.latest, j.createdS, audit.max_gap_seconds);
  const assets = owed.assets.map((asset, k) =>
    judgeAsset(
      asset,
      owed.totals[k]!.base_units,
      i.rules.get(asset.asset) ?? { refs: [], source: "none" },
      i.backings.filter((b) => b.asset === asset.asset),
      j,
      holdings,
    ),
  );
  for (const a of assets) Object.assign(a, findingWords(findingOf(a, i.verified, j.owedUnknown)));
  audit.gap = largestGap(assets.flatMap((a) => a.snapshots));
  const worst = Math.max(
    owed.fails ? 3 : 0,
    audit.faults.length ? 2 : 0,
    ...assets.map((a) => STATUS_RANK[a.status]),
  );
  // totals nobody can rely on answer nothing, covered or not
  const verdict: SolvencyVerdict =
    !owed.fails && owed.cannotSay
      ? "cannot-say"
      : (["solvent", "cannot-say", "unproven", "not-solvent"] as const)[worst]!;
  const snapshots = [...new Set(assets.flatMap((a) => a.snapshots.map(snapshotText)))].join("; ");
  // a declared contract is trusted to be the asset: every verdict names it
  const trusted = trustedContracts(i.rules);
  const summary = [
    (owed.fails ?? owed.cannotSay) ||
      (verdict === "solvent"
        ? `every asset covered (${assets.length}) by proven reserves: signed over the audit's challenge, re-read on chain (${snapshots})`
        : [...audit.faults, ...assets.filter((a) => a.status !== "covered").map((a) => a.why)].join("; ")),
    ...(trusted.length ? [trustedText(trusted)] : []),
  ].join("; ");
  const c = i.commitment;
  const x = i.exchange;
  const report: SolvencyReport = {
    verdict,
    summary,
    verified: i.verified,
    audit,
    challenges: challengesOf(i.backings, audit),
    trusted,
    ...(c
      ? {
          commitment: {
            root: c.root,
            digest: c.digest,
            ...(c.label ? { label: c.label } : {}),
            challenge: c.challenge ?? null,
            created: c.created,
            digest_ok: commitmentFaults(c).length === 0,
            ...(i.commitmentTotals ? { totals: i.commitmentTotals } : {}),
          },
        }
      : {}),
    ...(x
      ? {
          exchange_liabilities: {
            source: x.source,
            root: x.root,
            date: x.date,
            ...(x.fails || x.cannot_say ? { note: (x.fails ?? x.cannot_say) as string } : {}),
          },
        }
      : {}),
    assets,
  };
  return { report, holdings };
}
