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
import { nativeMirrorsOf } from "../reserves/evm/mirrors.js";
import { counted, type Verdict } from "../reserves/verdict.js";
import { spanText } from "../util/text.js";
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
 * could not say, and proven reserves alone do not cover it; unjudged (without --verify): a proof whose
 * addresses do not say which coin it is was not judged, and proven reserves alone do not cover it.
 */
export type AssetStatus =
  | "covered"
  | "claimed-only"
  | "not-covered"
  | "reserves-fail"
  | "cannot-say"
  | "unjudged";

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
    /** that block's time as the verifying node gives it (RFC 3339), null without --verify */
    block_time: string | null;
    /** the text its signatures are over (null: none) */
    challenge: string | null;
    /** why what it holds proves nothing for these liabilities (another challenge, out of time), if so */
    not_for_this_audit?: string;
    /** what this proof states at the joint height, and how much of it it proves (overlaps with others included) */
    claimed: string;
    proven: string;
    check: ReserveStatus;
    summary?: string;
  }[];
  /** per network: the one height the asset's proofs were judged at, its block time and its gap */
  snapshots: Snapshot[];
  /** outputs or balances named by more than one proof, counted once (the first 20 named, then a count) */
  overlap: string[];
  /** outputs of a lower proof spent at or below the joint height: not counted there */
  spent_before_snapshot: number;
  /** outputs spent in a block whose time is at or before the commitment's `created`: they back nothing */
  spent_before_commitment: { output: string; height: number; time: string | null }[];
  /** tokens among its proofs that mirror a native coin, each named: counted as that coin, once */
  mirrors: string[];
}

/** One network's snapshot: the height its proofs were judged at, that block's time, and its gap to `created`. */
export interface Snapshot {
  network: string;
  kind: "height" | "block";
  height: number;
  /** how far below the verifying node's tip (null without --verify) */
  below_tip: number | null;
  /** the block's time as the node gives it (RFC 3339); null without --verify */
  block_time: string | null;
  /** seconds from the commitment's `created` to the block's time (negative: the reserves are older) */
  gap_seconds: number | null;
  /** "3 min before the liabilities were counted" */
  gap: string | null;
  within_max_gap: boolean | null;
}

/** The audit the verdict answers: its challenge, where it came from, and why nothing is proven for it, if so. */
export interface Audit {
  /** the text the reserves' signatures must be over, or null: no audit challenge */
  challenge: string | null;
  from: "commitment" | "--challenge" | "commitment and --challenge" | null;
  /** the commitment's own challenge (under its digest), and --challenge */
  commitment_challenge: string | null;
  given_challenge: string | null;
  /** the liabilities' created (an exchange's root: the date given for it, or null), the bound on the gap */
  created: string | null;
  max_gap: string;
  max_gap_seconds: number;
  /** lines that each make the verdict at best NOT PROVEN SOLVENT */
  faults: string[];
}

/**
 * An exchange's liabilities: the totals per coin at the root of its inclusion proof (each in the decimals of
 * the reserve proofs that back it), taken only with the root given from outside; the date the auditor gives
 * for that root (the exchanges' files state none), or null.
 */
export interface ExchangeOwed {
  source: string;
  root: string | null;
  date: string | null;
  totals: { asset: string; decimals: number; base_units: bigint }[];
  /** why the totals do not hold (another root), or why they cannot be relied on (the file's own root) */
  fails?: string;
  cannot_say?: string;
}

/** What solvency is given: the liabilities, the backings (read, verified when asked) and the audit's terms. */
export interface SolvencyInput {
  /** chaingw's commitment, or `exchange`: an exchange's root totals (one of the two) */
  commitment?: Commitment;
  exchange?: ExchangeOwed;
  backings: Backing[];
  verified: boolean;
  rules: Map<string, AssetRule>;
  /** solvency --challenge */
  challenge?: string;
  /** --max-gap, its text and seconds */
  maxGap: { text: string; seconds: number };
  /** the auditor's clock */
  now: Date;
}

/**
 * How far past the auditor's clock a commitment's `created` may be before it is "in the future": the two
 * hours a block's time may run ahead of the network's (Bitcoin Core's MAX_FUTURE_BLOCK_TIME).
 */
export const CREATED_AHEAD_S = 7200;

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
  /** which audit was judged: its challenge, the commitment's time, and what keeps it from being proven */
  audit: Audit;
  /** The texts the proofs' signatures are over (null: a proof without one), each with its files. */
  challenges: { text: string | null; files: string[]; for_this_audit: boolean }[];
  /** chaingw's commitment, when the liabilities are one */
  commitment?: {
    root: string;
    digest: string;
    label?: string;
    challenge: string | null;
    created: string;
    digest_ok: boolean;
  };
  /** an exchange's liabilities root, when they are one: its file, the root, the date given, why not relied on */
  exchange_liabilities?: { source: string; root: string | null; date: string | null; note?: string };
  assets: SolvencyAsset[];
}

const STATUS_RANK: Record<AssetStatus, number> = {
  covered: 0,
  "cannot-say": 1,
  "claimed-only": 2,
  unjudged: 2,
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

/** The native mirrors among the backings' EVM proofs (reserves/evm/mirrors.ts), by `network token`. */
export function nativeMirrors(backings: Backing[]): Map<string, string> {
  return nativeMirrorsOf(
    backings.flatMap((b) => {
      const { network } = networkOfBacking(b);
      return b.evm && network ? [{ doc: b.evm, network }] : [];
    }),
  );
}

/** Every counted output or balance once: its amount, the first proof naming it, and whether any proof proved it. */
interface Tally {
  coins: Map<string, { amount: bigint; file: string; proven: boolean }>;
  overlap: string[];
  overlaps: number;
  spentBefore: number;
  spentBeforeCommitment: Map<string, SolvencyAsset["spent_before_commitment"][number]>;
}

const OVERLAP_NAMED = 20;

/** Unix seconds as RFC 3339 (to the second). */
const isoOf = (s: number): string => new Date(s * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");

/**
 * What one counted proof states at its network's joint height `at` (its own claimed and proven base units,
 * overlaps included); the tally keeps each coin once, proven when any proof that proves for this audit
 * (`proving`: it holds, over the audit's challenge, in time) proved it. An output spent at or below `at`, or
 * in a block whose time is at or before the commitment's `created` (`createdS`), is not counted.
 */
function tallyProof(
  t: Tally,
  b: Backing,
  network: NetworkId,
  at: number,
  proving: boolean,
  createdS: number | null,
  mirror: boolean,
): { claimed: bigint; proven: bigint } {
  const v = b.entry.verify;
  const owned = new Set(v?.owned ?? []);
  let claimed = 0n;
  let proven = 0n;
  const add = (key: string, owner: string, amount: bigint) => {
    const isProven = proving && owned.has(owner);
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
      const key = `${o.txid}:${o.vout}`;
      const spent = v?.spent[key];
      // spent in block S: unspent below S; at the joint height only if S > at
      if (spent !== undefined && spent.height <= at) {
        t.spentBefore++;
        continue;
      }
      // gone when the liabilities were counted (or when, the node did not say): it backs nothing; liabilities
      // of no date prove nothing for the audit (NO_LIABILITIES_DATE), and the output stands as claimed
      if (spent !== undefined && createdS !== null && (spent.time === null || spent.time <= createdS)) {
        t.spentBeforeCommitment.set(`${networkLabel(network)} ${key}`, {
          output: key,
          height: spent.height,
          time: spent.time === null ? null : isoOf(spent.time),
        });
        continue;
      }
      add(key, o.matched, BigInt(o.amount_sats));
    }
  } else {
    const a = b.evm!.assets.find((x) => x.id === b.id)!;
    // a native mirror's balance is the native coin's: one key, so native and mirror count once
    const id = mirror ? "native" : a.id;
    for (const bal of a.balances) add(`${id} ${bal.address}`, bal.address, BigInt(bal.base_units));
  }
  return { claimed, proven };
}

/**
 * How two texts that are not equal differ, when it is by a thing the eye misses: a Unicode normalisation
 * form, white space, letter case ("" otherwise). Equality itself is byte for byte.
 */
export function howTextsDiffer(a: string, b: string): string {
  if (a.normalize("NFC") === b.normalize("NFC"))
    return " (the same letters in another Unicode normalisation form: another text to a signature)";
  const ws = (x: string) => x.replace(/\s+/gu, " ").trim();
  if (ws(a) === ws(b)) return " (they differ in white space only: another text to a signature)";
  if (a.toLowerCase() === b.toLowerCase()) return " (they differ in letter case only)";
  return "";
}

const q = (t: string) => JSON.stringify(t);

/** The liabilities as solvency judges them, whichever document they come from. */
interface Owed {
  assets: { asset: string; decimals: number }[];
  totals: { amount: string; base_units: bigint }[];
  created: string | null;
  challenge: string | null;
  /** what they are called in a fault: "the commitment", "the exchange's liabilities root" */
  name: string;
  /** NOT SOLVENT: the document does not hold; CANNOT SAY: it cannot be relied on */
  fails?: string;
  cannotSay?: string;
}

function owedOf(i: SolvencyInput): Owed {
  if (i.commitment) {
    const c = i.commitment;
    return {
      assets: c.assets,
      totals: c.totals.map((t) => ({ amount: t.amount, base_units: BigInt(t.base_units) })),
      created: c.created,
      challenge: c.challenge ?? null,
      name: "the commitment",
      ...(commitmentFaults(c).length
        ? { fails: "the liabilities commitment was edited: its digest does not match its content" }
        : {}),
    };
  }
  const x = i.exchange as ExchangeOwed;
  return {
    assets: x.totals.map((t) => ({ asset: t.asset, decimals: t.decimals })),
    totals: x.totals.map((t) => ({
      amount: formatUnits(t.base_units, t.decimals),
      base_units: t.base_units,
    })),
    created: x.date,
    challenge: null,
    name: "the exchange's liabilities root",
    ...(x.fails ? { fails: `the liabilities do not hold: ${x.fails}` } : {}),
    ...(x.cannot_say ? { cannotSay: `the liabilities cannot be relied on: ${x.cannot_say}` } : {}),
  };
}

/** The audit the verdict answers: the challenge (the commitment's, --challenge's, equal when both) and its time. */
function auditOf(i: SolvencyInput, owed: Owed): Audit {
  const mine = owed.challenge;
  const given = i.challenge ?? null;
  const faults: string[] = [];
  let challenge: string | null = null;
  let from: Audit["from"] = null;
  if (mine !== null && given !== null) {
    if (mine === given) [challenge, from] = [mine, "commitment and --challenge"];
    else
      faults.push(
        `--challenge ${q(given)} is not the commitment's challenge ${q(mine)}${howTextsDiffer(given, mine)}: these liabilities were committed for another audit`,
      );
  } else if (mine !== null) [challenge, from] = [mine, "commitment"];
  else if (given !== null) [challenge, from] = [given, "--challenge"];
  else
    faults.push(
      `no audit challenge: ${owed.name} has none${i.commitment ? " (liabilities build --challenge)" : ""} and no --challenge was given, so no signature can be bound to these liabilities`,
    );
  const createdS = owed.created === null ? null : Date.parse(owed.created) / 1000;
  const nowS = Math.floor(i.now.getTime() / 1000);
  if (createdS !== null && createdS > nowS + CREATED_AHEAD_S)
    faults.push(
      `${owed.name} is dated ${owed.created}, ${spanText(createdS - nowS)} after this computer's clock (${isoOf(nowS)}): liabilities cannot have been counted then`,
    );
  return {
    challenge,
    from,
    commitment_challenge: mine,
    given_challenge: given,
    created: owed.created,
    max_gap: i.maxGap.text,
    max_gap_seconds: i.maxGap.seconds,
    faults,
  };
}

/** A holding proof whose block's time the node did not give: whether it is within --max-gap, nobody can say. */
const NO_BLOCK_TIME =
  "the node did not give its block's time: whether it is within --max-gap of the liabilities' created cannot be said";

/** Liabilities that state no date (an exchange's root without --liabilities-date): no gap can be judged. */
const NO_LIABILITIES_DATE =
  "the liabilities state no date (give the one their root was published for: --liabilities-date): whether its block is within --max-gap of them cannot be said";

/** Why a holding proof proves nothing for this audit (undefined when it does). */
function notForAudit(b: Backing, audit: Audit, snap: Snapshot | undefined): string | undefined {
  if (audit.faults.length) return "the audit's terms do not hold (above)";
  const text = b.entry.claims.challenge;
  if (audit.challenge === null) return "no audit challenge";
  if (text === null) return "it has no challenge: no signature in it is over the audit's";
  if (text !== audit.challenge)
    return `its signatures are over ${q(text)}, not the audit's challenge ${q(audit.challenge)}${howTextsDiffer(text, audit.challenge)}`;
  if (snap?.block_time === null) return NO_BLOCK_TIME;
  if (audit.created === null) return NO_LIABILITIES_DATE;
  if (snap?.within_max_gap === false)
    return `its snapshot's block is ${snap.gap}: beyond --max-gap ${audit.max_gap}`;
  return undefined;
}

/** "3 min before the liabilities' created", "2 d 1 h after the liabilities' created". */
const gapText = (seconds: number) =>
  seconds === 0
    ? "at the liabilities' created"
    : `${spanText(seconds)} ${seconds < 0 ? "before" : "after"} the liabilities' created`;

/** One network's snapshot at its joint height, with the time the verifying node gives its block. */
function snapshotOf(
  n: NetworkId,
  h: number,
  at: { b: Backing; network: NetworkId | null }[],
  createdS: number | null,
  maxGapS: number,
): Snapshot {
  const mine = at.filter((p) => p.network === n);
  const tips = mine.flatMap((p) => (p.b.entry.verify?.chain.tip ? [p.b.entry.verify.chain.tip] : []));
  const verified = mine.filter((p) => heightOf(p.b) === h && p.b.entry.verify);
  const time = verified.map((p) => p.b.entry.verify!.block_time).find((t) => t !== null) ?? null;
  const gap = time === null || createdS === null ? null : time - createdS;
  return {
    network: networkLabel(n),
    kind: n.startsWith("utxo:") ? "height" : "block",
    height: h,
    below_tip: tips.length ? Math.max(...tips) - h : null,
    block_time: time === null ? null : isoOf(time),
    gap_seconds: gap,
    gap: gap === null ? null : gapText(gap),
    within_max_gap: gap === null ? null : Math.abs(gap) <= maxGapS,
  };
}

/** "Litecoin regtest at height 111 (0 blocks below the node's tip)". */
export const snapshotText = (s: Snapshot): string =>
  `${s.network} at ${s.kind} ${s.height}${s.below_tip === null ? "" : ` (${counted(s.below_tip, "block")} below the node's tip)`}`;

interface Judging {
  audit: Audit;
  createdS: number | null;
  /** the native mirrors among the proofs (`nativeMirrors`), and the asset each network's native coin backs */
  mirrors: Map<string, string>;
  nativeOwner: Map<NetworkId, string>;
}

function judgeAsset(
  asset: { asset: string; decimals: number },
  liab: bigint,
  amountText: string,
  rule: AssetRule,
  mine: Backing[],
  j: Judging,
): SolvencyAsset {
  const t: Tally = {
    coins: new Map(),
    overlap: [],
    overlaps: 0,
    spentBefore: 0,
    spentBeforeCommitment: new Map(),
  };
  const mirrors = new Set<string>();
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
  const snapshots = new Map(
    [...joint].map(([n, h]) => [n, snapshotOf(n, h, placed, j.createdS, j.audit.max_gap_seconds)]),
  );
  const proofs: SolvencyAsset["proofs"] = placed.map(({ b, network, ref }) => {
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
    if (!ref || network === null) {
      const wanted = rule.refs.length ? rule.refs.map((r) => r.label).join(" or ") : "nothing declared";
      const why =
        network === null
          ? b.entry.verify
            ? `its node: ${b.entry.verify.summary}`
            : "not judged without --verify"
          : rule.source === "none"
            ? `nothing backs ${asset.asset}: it is not a well-known asset; declare what does with --backing ${asset.asset}=NETWORK[:TOKEN]`
            : `not ${wanted}`;
      return { ...base, counted: false, why, claimed: "0", proven: "0" };
    }
    const at = joint.get(network) as number;
    const token = tokenOf(b);
    const mirror = token === undefined ? undefined : j.mirrors.get(`${network} ${token}`);
    if (mirror !== undefined) mirrors.add(mirror);
    const owner = j.nativeOwner.get(network);
    if (mirror !== undefined && owner !== undefined && owner !== asset.asset)
      return {
        ...base,
        counted: false,
        why: `one balance backs one asset: ${mirror}, and the native coin of ${networkLabel(network)} backs ${owner}`,
        claimed: "0",
        proven: "0",
      };
    if (b.evm && heightOf(b) !== at)
      return {
        ...base,
        counted: false,
        why: `at block ${heightOf(b)}, not the joint block ${at}`,
        claimed: "0",
        proven: "0",
      };
    const notFor = check === "holds" ? notForAudit(b, j.audit, snapshots.get(network)) : undefined;
    const own = tallyProof(
      t,
      b,
      network,
      at,
      check === "holds" && notFor === undefined,
      j.createdS,
      mirror !== undefined,
    );
    return {
      ...base,
      // no time for its block: the proof holds, and whether it backs these liabilities cannot be said
      ...(notFor === NO_BLOCK_TIME || notFor === NO_LIABILITIES_DATE ? { check: "cannot-say" as const } : {}),
      ...(notFor === undefined ? {} : { not_for_this_audit: notFor }),
      counted: true,
      claimed: fmt(own.claimed),
      proven: fmt(own.proven),
    };
  });
  let claimed = 0n;
  let proven = 0n;
  for (const c of t.coins.values()) {
    claimed += c.amount;
    if (c.proven) proven += c.amount;
  }
  const checks = proofs.map((p) => p.check);
  // a proof whose network nobody could tell was not judged: "cannot say" with --verify, "unjudged" without
  const untold = placed.some((p) => p.network === null && !p.b.entry.verify);
  const status: AssetStatus = checks.includes("fails")
    ? "reserves-fail"
    : proven >= liab
      ? "covered"
      : checks.includes("cannot-say")
        ? "cannot-say"
        : untold
          ? "unjudged"
          : claimed < liab
            ? "not-covered"
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
    snapshots: [...snapshots.values()],
    overlap: t.overlap,
    spent_before_snapshot: t.spentBefore,
    spent_before_commitment: [...t.spentBeforeCommitment.values()],
    mirrors: [...mirrors],
  };
}

/** Why an asset's holding proofs prove nothing for this audit, once each ("" when none). */
function notForAuditText(a: SolvencyAsset): string {
  const why = [
    ...new Set(
      a.proofs.flatMap((p) =>
        p.not_for_this_audit && p.not_for_this_audit !== "the audit's terms do not hold (above)"
          ? [`${p.file}: ${p.not_for_this_audit}`]
          : [],
      ),
    ),
  ];
  const spent = a.spent_before_commitment.length
    ? [
        `${counted(a.spent_before_commitment.length, "output")} spent at or before the liabilities' created (block ${a.spent_before_commitment[0]!.height}${a.spent_before_commitment.length > 1 ? ", …" : ""})`,
      ]
    : [];
  const all = [...why, ...spent];
  return all.length ? `; not proven for this audit: ${all.join("; ")}` : "";
}

function assetLine(a: SolvencyAsset, verified: boolean): string {
  switch (a.status) {
    case "not-covered":
      return `${a.asset} not covered: short ${a.shortfall} ${a.asset}${a.proofs.some((p) => p.counted) ? ` (claimed reserves ${a.claimed.amount} of ${a.liabilities.amount})` : " (no reserves count for it)"}${notForAuditText(a)}`;
    case "reserves-fail":
      return `${a.asset}: a reserve proof does not hold`;
    case "cannot-say":
      return `${a.asset}: a node could not say whether its reserves hold; proven ${a.proven.amount} of ${a.liabilities.amount} ${a.asset}`;
    case "unjudged":
      return `${a.asset}: a proof whose addresses do not say which coin it is was not judged (--verify asks its node); proven ${a.proven.amount} of ${a.liabilities.amount} ${a.asset}`;
    case "claimed-only":
      return `${a.asset} covered only by claimed reserves: proven ${a.proven.amount} of ${a.liabilities.amount} ${a.asset} (${a.coverage})${verified ? "" : "; nothing is proven without --verify"}${notForAuditText(a)}`;
    default:
      return `${a.asset} covered`;
  }
}

/** The proofs' challenges, each with the files signed over it, in the order first met. */
function challengesOf(backings: Backing[], audit: Audit): SolvencyReport["challenges"] {
  const by = new Map<string | null, Set<string>>();
  for (const b of backings) {
    const t = b.entry.claims.challenge;
    by.set(t, (by.get(t) ?? new Set()).add(b.file));
  }
  return [...by].map(([text, files]) => ({
    text,
    files: [...files],
    for_this_audit: text !== null && text === audit.challenge && !audit.faults.length,
  }));
}

export function solvency(i: SolvencyInput): SolvencyReport {
  const owed = owedOf(i);
  const audit = auditOf(i, owed);
  // the asset each network's native coin backs: a mirror of that coin counts there, and for no other asset
  const nativeOwner = new Map<NetworkId, string>();
  for (const [asset, rule] of i.rules)
    for (const r of rule.refs)
      if (r.token === undefined && !nativeOwner.has(r.network)) nativeOwner.set(r.network, asset);
  const j: Judging = {
    audit,
    createdS: owed.created === null ? null : Date.parse(owed.created) / 1000,
    mirrors: nativeMirrors(i.backings),
    nativeOwner,
  };
  const assets = owed.assets.map((asset, k) =>
    judgeAsset(
      asset,
      owed.totals[k]!.base_units,
      owed.totals[k]!.amount,
      i.rules.get(asset.asset) ?? { refs: [], source: "none" },
      i.backings.filter((b) => b.asset === asset.asset),
      j,
    ),
  );
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
  const summary =
    (owed.fails ?? owed.cannotSay) ||
    (verdict === "solvent"
      ? `every asset covered (${assets.length}) by proven reserves: signed over the audit's challenge, re-read on chain (${snapshots})`
      : [
          ...audit.faults,
          ...assets.filter((a) => a.status !== "covered").map((a) => assetLine(a, i.verified)),
        ].join("; "));
  const c = i.commitment;
  const x = i.exchange;
  return {
    verdict,
    summary,
    verified: i.verified,
    audit,
    challenges: challengesOf(i.backings, audit),
    ...(c
      ? {
          commitment: {
            root: c.root,
            digest: c.digest,
            ...(c.label ? { label: c.label } : {}),
            challenge: c.challenge ?? null,
            created: c.created,
            digest_ok: !owed.fails,
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
}
