/**
 * Solvency's finding about each asset owed, typed — a code, the asset, its numbers — and turned into words
 * here, once, for both paths (chaingw's own proofs, an exchange's address file): the verdict's summary, the
 * report's `why` (--json), the text under the table, the page and the report package all read these words,
 * so they cannot disagree.
 */

import { type AssetRule, type NetworkId, networkLabel } from "../chains/assets.js";
import type { LedgerUntold } from "../reserves/evm/ledgers.js";
import { followsText, type NativeMirror } from "../reserves/evm/mirrors.js";
import { readsTokenDetail } from "../reserves/evm/reads-token.js";
import { counted } from "../reserves/verdict.js";
import { spanText } from "../util/text.js";
import { amountOf } from "../util/units.js";
import type { TokenReads } from "./reads.js";
import { type RowWhy, rowWords } from "./words-rows.js";

/**
 * covered: proven reserves cover it; claimed-only: only claims do; not-covered: not even they; reserves-fail:
 * a proof backing it does not hold; cannot-say: a node could not say; unknown-for-audit: holdings proven on
 * chain whose time (or moment) for this audit cannot be told could cover it; unjudged: a proof not placed.
 */
export type AssetCode =
  | "covered"
  | "claimed-only"
  | "not-covered"
  | "reserves-fail"
  | "cannot-say"
  | "unknown-for-audit"
  | "owed-unknown"
  | "unjudged";

export interface AssetFinding {
  code: AssetCode;
  /** the subject: the asset owed */
  asset: string;
  /** the places its amounts are written at, every one (the table's, util/units.ts amountText) */
  decimals: number;
  /** its numbers, as exact decimals of the asset (coverage: proven ÷ liabilities, "66.67%") */
  numbers: {
    liabilities: string;
    proven: string;
    claimed: string;
    shortfall: string | null;
    coverage: string;
  };
  /** no holding counts for it */
  none: boolean;
  /** why holdings proven on chain prove nothing for this audit, each once, named by where they are stated */
  notFor: NotForAudit[];
  /** why nothing could be proven at all: no --verify (a proof's node), no --challenge (an address file's text) */
  unprovable?: "no-verify" | "no-challenge";
}

/**
 * Why an asset's holdings proven on chain prove nothing for this audit: a proof's (`file`) or a row's (`line`)
 * audit fault; outputs spent at or before the liabilities' date, or by the audit's moment (`outputs` of them,
 * the first in `block`; `more`: others in later blocks)
 */
export type NotForAudit =
  | { file: string; fault: AuditFault }
  | { line: number; fault: AuditFault }
  | { code: "spent-before-liabilities"; outputs: number; block: number; more: boolean }
  | { code: "moved-before-moment"; outputs: number; block: number; more: boolean; moment: string | null }
  | { code: "spend-dated-ahead"; outputs: number; block: number; more: boolean };

/** "a.json: its signatures are over …", "2 outputs spent at or before the liabilities' created (block 108, …)". */
export function notForWords(n: NotForAudit): string {
  if ("fault" in n) return `${"file" in n ? n.file : `line ${n.line}`}: ${auditFaultWords(n.fault)}`;
  const first = `block ${n.block}${n.more ? ", …" : ""}`;
  if (n.code === "spend-dated-ahead")
    return `${counted(n.outputs, "output")} spent in a block dated after the liabilities' date or the audit's moment whose median time past is not (${first}): whether still held then cannot be said`;
  return n.code === "spent-before-liabilities"
    ? `${counted(n.outputs, "output")} spent at or before the liabilities' date (${first})`
    : `${counted(n.outputs, "output")} spent by the audit's moment ${n.moment} (${first}): moved before its other chains were read, counted on none`;
}

/** The finding in words: "LTC not covered: short 1 LTC (claimed reserves 2 of 3)". */
export function assetWords(f: AssetFinding): string {
  const { asset: a } = f;
  // amounts written the one way, as the table writes them (every place of the asset)
  const q = (t: string) => amountOf(t, f.decimals);
  const n = {
    ...f.numbers,
    liabilities: q(f.numbers.liabilities),
    proven: q(f.numbers.proven),
    claimed: q(f.numbers.claimed),
    shortfall: f.numbers.shortfall === null ? null : q(f.numbers.shortfall),
  };
  const notFor = f.notFor.length
    ? `; not proven for this audit: ${f.notFor.map(notForWords).join("; ")}`
    : "";
  const unprovable = {
    "no-verify": "nothing is proven without --verify",
    "no-challenge": "nothing is proven for the audit without --challenge",
  };
  switch (f.code) {
    case "not-covered":
      return `${a} not covered: short ${n.shortfall} ${a}${f.none ? " (no reserves count for it)" : ` (claimed reserves ${n.claimed} of ${n.liabilities})`}${notFor}`;
    case "reserves-fail":
      return `${a}: a reserve proof does not hold`;
    case "cannot-say":
      return `${a}: a node could not say whether its reserves hold; proven ${n.proven} of ${n.liabilities} ${a}`;
    case "unknown-for-audit":
      return `${a}: whether its reserves proven on chain are for this audit cannot be said; proven ${n.proven} of ${n.liabilities} ${a}${notFor}`;
    case "owed-unknown":
      return `${a}: what is owed cannot be said (the liabilities' totals are not relied on); proven ${n.proven} ${a} against the ${n.liabilities} they state`;
    case "unjudged":
      return `${a}: a proof whose addresses do not say which coin it is was not judged (--verify asks its node); proven ${n.proven} of ${n.liabilities} ${a}`;
    case "claimed-only":
      return `${a} covered only by claimed reserves: proven ${n.proven} of ${n.liabilities} ${a} (${n.coverage})${f.unprovable ? `; ${unprovable[f.unprovable]}` : ""}${notFor}`;
    default:
      return `${a} covered: proven ${n.proven} of ${n.liabilities} ${a}`;
  }
}

/**
 * Why a holding proven on chain proves nothing for this audit (both paths: a proof's output or balance, an
 * address file's row), typed — a code and its numbers; `auditFaultWords` words it. Times are the report's ISO
 * text (judge/report.ts's snapshots), gaps and heights numbers.
 */
export type AuditFault =
  /** the audit's own terms do not hold (its faults are stated above the assets) */
  | { code: "audit-terms" }
  /** no audit challenge at all: no signature can be over it */
  | { code: "no-challenge" }
  /** the proof states no challenge */
  | { code: "proof-unchallenged" }
  /** the proof's signatures are over `text`, not the audit's `challenge` */
  | { code: "other-challenge"; text: string; challenge: string }
  /** the node did not give the snapshot block's time */
  | { code: "block-time-untold" }
  /** the liabilities state no date */
  | { code: "liabilities-undated" }
  /** the snapshot's block is `gap_seconds` from the liabilities' date (negative: before), beyond --max-gap */
  | { code: "beyond-max-gap"; gap_seconds: number; max_gap: string; max_gap_seconds: number }
  /** read at a block of time `block_time`, before the audit's moment `moment` (the snapshot of `chain`) */
  | { code: "before-moment"; block_time: string; moment: string; chain: string }
  /** a balance read at `height`, below its chain's one snapshot `latest` (`whose`: the proofs', the file's) */
  | { code: "below-snapshot"; height: number; latest: number; whose: "proofs" | "file" }
  /** a declared token whose node could not tell whether its balanceOf reads the native coin (`reason`: the node's) */
  | { code: "tracking-untold"; network: string | null; reason: string }
  /**
   * a declared token that may be a facade of a ledger an earlier declared token reads, or whose storage reads
   * its node could not list (`detail`: judge/reads.ts's words for it, sharedLedgerWords / ledgerUntoldWords)
   */
  | { code: "ledger-untold"; detail: string }
  /**
   * a declared token whose storage reads its node could not list at one of the audit's addresses (asked for its
   * own proof or beside another's, reserves/evm/ledgers.ts `LedgerUntold`): whether it shares a ledger is not told
   */
  | ({ code: "ledger-unprobed" } & LedgerUntold)
  /**
   * an output spent in block `block`, stamped `time` after `bound` (`bound_time`: the liabilities' created or
   * the audit's moment) while its median time past `median` is at or before it: whether it was held then is not told
   */
  | {
      code: "spend-dated-ahead";
      block: number;
      time: string;
      median: string;
      bound: "liabilities" | "moment";
      bound_time: string;
    };

/** Every audit fault's code: a holding finding of one of these is an audit fault (`isAuditFault`). */
const AUDIT_FAULT_CODES: ReadonlySet<string> = new Set<AuditFault["code"]>([
  "audit-terms",
  "no-challenge",
  "proof-unchallenged",
  "other-challenge",
  "block-time-untold",
  "liabilities-undated",
  "beyond-max-gap",
  "before-moment",
  "below-snapshot",
  "tracking-untold",
  "ledger-untold",
  "ledger-unprobed",
  "spend-dated-ahead",
]);

/** A holding's finding that says why, proven on chain, it proves nothing for this audit. */
export const isAuditFault = (f: { code: string }): f is AuditFault & { line?: number } =>
  AUDIT_FAULT_CODES.has(f.code);

/** An audit fault that is "cannot say" (what could not be told might be held for the audit), not "not proven". */
export const AUDIT_FAULT_UNTOLD: ReadonlySet<AuditFault["code"]> = new Set([
  "block-time-untold",
  "liabilities-undated",
  "before-moment",
  "tracking-untold",
  "ledger-untold",
  "ledger-unprobed",
  "spend-dated-ahead",
]);

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

/** "3 min before the liabilities' date", "2 d 1 h after the liabilities' date". */
export const gapText = (seconds: number): string =>
  seconds === 0
    ? "at the liabilities' date"
    : `${spanText(seconds)} ${seconds < 0 ? "before" : "after"} the liabilities' date`;

/** The audit fault in words: "its snapshot's block is 2 d after the liabilities' date: beyond --max-gap 1d". */
export function auditFaultWords(f: AuditFault): string {
  const q = (t: string) => JSON.stringify(t);
  switch (f.code) {
    case "audit-terms":
      return "the audit's terms do not hold (above)";
    case "no-challenge":
      return "no audit challenge";
    case "proof-unchallenged":
      return "it has no challenge: no signature in it is over the audit's";
    case "other-challenge":
      return `its signatures are over ${q(f.text)}, not the audit's challenge ${q(f.challenge)}${howTextsDiffer(f.text, f.challenge)}`;
    case "block-time-untold":
      return "the node did not give its snapshot block's time: whether it is within --max-gap of the liabilities' date cannot be said";
    case "liabilities-undated":
      return "the liabilities state no date (--liabilities-date gives the one their root was published for): whether its snapshot is within --max-gap of them cannot be said";
    case "beyond-max-gap":
      return `its snapshot's block is ${gapText(f.gap_seconds)}: beyond --max-gap ${f.max_gap}`;
    case "before-moment":
      return `its block (${f.block_time}) is before the audit's moment, ${f.moment} (${f.chain}'s snapshot): coins moved from it to another chain since (as the same asset or swapped into another owed) would count twice; prove at its last block at or before that moment`;
    case "below-snapshot":
      return `proven at height ${f.height}, but ${f.whose === "file" ? "the file's" : "the proofs'"} latest snapshot on this chain is height ${f.latest}: value moved between the two (paid to another address, wrapped, or swapped into another asset owed) would count at both; one snapshot per chain proves`;
    case "tracking-untold":
      return `whether its balanceOf reads the native coin of ${f.network ?? "its network"} (counted twice then) its node cannot tell: ${f.reason}`;
    case "ledger-untold":
      return f.detail;
    case "ledger-unprobed":
      return ledgerUntoldWords(f);
    case "spend-dated-ahead":
      return `spent in block ${f.block}, dated ${f.time}, after ${f.bound === "moment" ? "the audit's moment" : "the liabilities' date"} ${f.bound_time}, but its median time past ${f.median} is not: a miner may date a block up to 2 hours ahead, so whether it was still held then cannot be said`;
  }
}

/** What a holding is by the one identity rule: its chain as its node answered (null: not told) and its contract
 * (undefined: the chain's own coin; null: a token whose contract is not named). */
export interface HoldingChain {
  network: NetworkId | null;
  token: string | undefined | null;
}

/** "LTC on Litecoin regtest", "the token at 0x… on anvil (chain id 31337)", or why it is not told. */
export function chainWords(id: HoldingChain): string {
  if (id.network === null)
    return "a network not told (no --node answered for it, and its name is no network's)";
  const on = networkLabel(id.network);
  return id.token === null
    ? `a token whose contract is not named on ${on} (--token SYMBOL=ADDRESS)`
    : id.token === undefined
      ? `the own coin of ${on}`
      : `the token at ${id.token} on ${on}`;
}

/** Why a holding named as `asset` is not it: what backs the asset instead, and how to declare otherwise. */
export function notTheAsset(asset: string, rule: AssetRule): string {
  if (rule.source === "none")
    return `nothing backs ${asset}: it is not a well-known asset; declare what does with --backing ${asset}=NETWORK[:TOKEN]`;
  const wanted = rule.refs.map((r) => r.label).join(" or ");
  return rule.source === "declared"
    ? `not ${wanted} (--backing ${asset})`
    : `not ${wanted} (the well-known ${asset}; another network or contract only with --backing ${asset}=NETWORK[:TOKEN])`;
}

/** Where a proof's holding stands: a UTXO output at its chain's joint height, a balance at its proof's block. */
export type HeldAt = { height: number } | { block: number };

const heldAt = (a: HeldAt): string => ("height" in a ? `height ${a.height}` : `block ${a.block}`);

/**
 * Why one holding counts as it does (a proof's output or balance, an address file's row), typed: a code, its
 * subject (where it is stated, what it is) and its numbers; `holdingWords` turns it into the words the text,
 * `--json` (`why`, beside `code`), the page and the package's rows.csv read — the judge builds the finding, and
 * nothing else words it.
 */
export type HoldingFinding =
  /** signed over the audit's challenge, re-read on chain at the snapshot (`at`: "height 111", "block 5") */
  | { code: "proven"; at: HeldAt }
  /** a row of an address file: signed over the audit's text, its balance read at the snapshot */
  | { code: "row-proven" }
  /** a row signed, its amount as the file claims it (not re-read, or no audit's text accepted) */
  | { code: "row-claimed" }
  /** held as the document states: nothing re-read (no --verify) */
  | { code: "not-verified"; at: HeldAt }
  /** no signature over the audit's challenge proven for its address */
  | { code: "unsigned"; at: HeldAt }
  /** its proof proves nothing for this audit (another text, none), or does not hold (`check`) */
  | { code: "proof-not-proving"; at: HeldAt; check: string }
  /** a counted proof's own line where none of its holdings was listed: its check and the verifier's summary */
  | { code: "proof-check"; check: string; summary?: string }
  /** proven on chain, but not for this audit (time, moment, snapshot, challenge): why, typed; an address file's row its line */
  | (AuditFault & { line?: number })
  /** its proof is not counted for the asset: the proof's finding */
  | { code: "proof-not-counted"; proof: HoldingFinding }
  /** an output spent at or below its chain's joint height */
  | { code: "spent-by-snapshot"; block: number; joint: number }
  /** an output spent at or before the liabilities' date, or by the audit's moment across chains */
  | { code: "spent-before-liabilities"; block: number; time: string | null }
  | { code: "moved-before-moment"; block: number; time: string | null }
  /** the same output or balance as one counted before (`first`: where), counted once there */
  | { code: "counted-once"; first: string }
  /**
   * named as `asset` (a row: its coin `coin`, what it `is`), its chain and contract are not what backs it
   * (`rule`: the well-known table's, --backing's, or none)
   */
  | { code: "not-the-asset"; asset: string; rule: AssetRule; row?: { coin: string; is: HoldingChain } }
  /** a proof whose network its node could not tell (`summary`: the node's words), or not asked (no --verify) */
  | { code: "network-untold"; summary: string | null }
  /** an address file's row of base units of a coin whose places chaingw's tables do not know */
  | { code: "places-unknown"; asset: string; coin: string; network: string }
  /**
   * an address file's row the verifier did not find signed and held — failed (another key's signature, less on
   * chain than claimed), unsigned, or a form chaingw cannot judge —: its amount as claimed, the balance read and
   * the block it was read at (null: none), and `why`, the ownership verifier's reason, typed (words-rows.ts
   * words it, as `reserves verify` prints it)
   */
  | {
      code: "row-failed" | "row-unsigned" | "row-unsupported";
      claimed: string | null;
      read: string | null;
      block: string | null;
      why: RowWhy[];
    }
  /**
   * a token whose balanceOf the probe saw read the native coin (`reads`: where, whose, at which block), on
   * both paths — an exchange's token row, a token of chaingw's own proof —: the native coin counts it, once
   */
  | { code: "reads-native"; asset: string; coin: string; is: HoldingChain; reads: TokenReads }
  /** a token whose balanceOf reads another declared token's (`reads.token`, where, at which block): that token counts it */
  | { code: "reads-token"; asset: string; coin: string; is: HoldingChain; reads: TokenReads }
  /** a token of a known mirror, on a chain whose native coin backs another asset owed */
  | { code: "mirror-backs-other"; mirror: NativeMirror; network: NetworkId; owner: string }
  /**
   * an address file's row of the same chain, contract and address as one counted before (`first`: its line, and
   * the asset it counted for): counted once, there
   */
  | { code: "same-balance"; first: string; firstAsset: string; asset: string; is: HoldingChain };

/** A holding's code: the one word `--json`, rows.csv and the page give beside its words. */
export type HoldingCode = HoldingFinding["code"];

/** The holding's finding in words: "held at height 111 (re-read on the node); its address signed the audit's challenge". */
export function holdingWords(f: HoldingFinding): string {
  switch (f.code) {
    case "proven":
      return `held at ${heldAt(f.at)} (re-read on the node); its address signed the audit's challenge`;
    case "row-proven":
      return "signed over the audit's text, the balance read at the snapshot";
    case "row-claimed":
      return "signed, the amount as the file claims it";
    case "not-verified":
      return `held at ${heldAt(f.at)} as the document states (not verified: --verify)`;
    case "unsigned":
      return `held at ${heldAt(f.at)}; no signature over the audit's challenge proven for this address`;
    case "proof-not-proving":
      return `held at ${heldAt(f.at)}; the proof ${f.check === "holds" ? "proves nothing for this audit" : `does not hold (${f.check})`}`;
    case "proof-check":
      return `${f.check}${f.summary ? `: ${f.summary}` : ""}`;
    case "audit-terms":
    case "no-challenge":
    case "proof-unchallenged":
    case "other-challenge":
    case "block-time-untold":
    case "liabilities-undated":
    case "beyond-max-gap":
    case "before-moment":
    case "below-snapshot":
    case "tracking-untold":
    case "ledger-untold":
    case "ledger-unprobed":
    case "spend-dated-ahead":
      return `${f.line === undefined ? "" : `line ${f.line}: `}${auditFaultWords(f)}`;
    case "proof-not-counted":
      return `the proof is not counted: ${holdingWords(f.proof)}`;
    case "spent-by-snapshot":
      return `spent in block ${f.block}, at or below the joint height ${f.joint}`;
    case "spent-before-liabilities":
      return `spent in block ${f.block} (${f.time ?? "its time unknown"}), at or before the liabilities' date`;
    case "moved-before-moment":
      return `spent in block ${f.block} (${f.time ?? "its time unknown"}), before the audit's moment`;
    case "counted-once":
      return `also in ${f.first}: counted once, there`;
    case "not-the-asset":
      return f.row
        ? `${f.row.coin} is ${chainWords(f.row.is)}, ${notTheAsset(f.asset, f.rule)}: not counted as ${f.asset}`
        : notTheAsset(f.asset, f.rule);
    case "network-untold":
      return f.summary === null ? "not judged without --verify" : `its node: ${f.summary}`;
    case "places-unknown":
      return `${f.coin}${f.network && !f.coin.includes("-") ? ` on ${f.network}` : ""}: its amount is in base units of a coin whose places chaingw's tables do not know: not counted as ${f.asset}`;
    case "row-failed":
    case "row-unsigned":
    case "row-unsupported":
      return rowWords(f.why);
    case "reads-native":
    case "reads-token":
      return `${f.coin} is ${chainWords(f.is)}, one balance backs one asset: it ${readsDetail(f.reads)}; ${f.reads.of === "token" ? `the token at ${f.reads.token}` : "the native coin"} counts once, as itself: not counted as ${f.asset}`;
    case "mirror-backs-other":
      return `one balance backs one asset: ${mirrorWords(f.mirror)}, and the native coin of ${networkLabel(f.network)} backs ${f.owner}`;
    case "same-balance":
      return `the same balance as ${f.first}${f.firstAsset === f.asset ? "" : ` (counted as ${f.firstAsset})`}: ${f.is.network === null ? "the same network name" : chainWords(f.is)}, the same address: it counts once`;
  }
}

/**
 * An asset whose data states more places than its decimals (an exchange's row or total): written at the
 * data's places, never rounded — where (`over`: "line 7", "the liabilities' total") and how many.
 */
export interface PlacesFinding {
  asset: string;
  /** the asset's decimals as chaingw knows them */
  decimals: number;
  /** the places its amounts are written at: the most the data states */
  written: number;
  over: { at: string; places: number }[];
}

/** "BTC: line 7 states 9 places, more than BTC's 8: every BTC amount is written at 9 places, not rounded". */
export function placesWords(f: PlacesFinding): string {
  const where = f.over.map((o) => `${o.at} states ${o.places} places`).join(", ");
  return `${f.asset}: ${where}, more than ${f.asset}'s ${f.decimals}: every ${f.asset} amount is written at ${f.written} places, not rounded`;
}

/** The shared-ledger rule's words (judge/reads.ts `sharedLedgers`): why a facade's coins cannot be told apart. */
export function sharedLedgerWords(s: { with: string; ledger: string; slot: string }): string {
  return `its balanceOf reads the storage of ${s.ledger} (slot ${s.slot}) that the token at ${s.with}'s balanceOf reads too (eth_createAccessList): one ledger's coins may back both, and the token at ${s.with} counts them, once; whether these are other coins cannot be said`;
}

/** A node that could not list what a token's balanceOf reads (eth_createAccessList): the shared-ledger check untold. */
export function ledgerUntoldWords(why: LedgerUntold): string {
  const answered =
    why.address === null
      ? why.answer
      : why.all
        ? `the node did not list the storage a balanceOf reads: eth_createAccessList of its balanceOf answered ${why.answer}`
        : `eth_createAccessList of its balanceOf(${why.address}) answered ${why.answer}`;
  return `whether its balanceOf reads a ledger another declared token reads (the same coins twice) its node cannot tell: ${answered}`;
}

/**
 * What the probe saw a token's balanceOf read, for both solvency paths and an exchange row's verdict: "tracks the
 * native coin: its balanceOf(0x…) moved with that address's native balance at block 7 (eth_call with a state
 * override), whatever it adds to it", "reads the token at 0x…: … that token's coins again" (the verifier's own
 * tracking line says the same, reserves/evm/mirrors.ts).
 */
export function readsDetail(r: TokenReads): string {
  return r.of === "token"
    ? readsTokenDetail({ token: r.token, address: r.address, block: BigInt(r.block) })
    : `tracks the native coin: its balanceOf(${r.address}) moved with ${followsText(r.follows === undefined ? {} : { follows: r.follows })} at block ${r.block} (eth_call with a state override), whatever it adds to it`;
}

/**
 * A native mirror in words (reserves balances' line, solvency's `mirrors` and its finding): "the token named MIR
 * at 0x… on anvil (chain id 31337) mirrors the native coin: its balanceOf equals the native balance at each of
 * the 2 addresses read at block 4".
 */
export function mirrorWords(m: NativeMirror): string {
  const token = `the token${m.symbol ? ` named ${m.symbol}` : ""} at ${m.token} on ${networkLabel(m.network)}`;
  switch (m.how) {
    case "known":
      return `${token} is ${m.known}: its balances are the native coin's`;
    case "equal":
      return `${token} mirrors the native coin: its balanceOf equals the native balance at each of the ${counted(m.addresses, "address")} read at block ${m.block}`;
    case "tracks":
      return `${token} tracks the native coin: its balanceOf(${m.address}) moved with ${followsText(m.follows === undefined ? {} : { follows: m.follows })} at block ${m.block} (eth_call with a state override), whatever it adds to it`;
  }
}

/**
 * Whether a chaingw commitment's totals are its root's (liabilities/commitment-totals.ts; issue 55 item 2),
 * typed: how the root binds them, or why they do not hold or cannot be relied on. `totalsStatus` says which;
 * `totalsWords` words it for `liabilities verify` and both solvency paths. Hashes are lowercase hex, sums base
 * units as decimal text, `tree` the tree.bin's path.
 */
export type TotalsFinding =
  /**
   * bound: v2's root hashes every tree's root and total (`forest`); v1's root's two children — the ones the
   * commitment carries (`children`), or read from the tree.bin beside it (`tree`) — hash to it and sum to the
   * totals; or the customer's own path reached the root with them (`path`)
   */
  | { code: "totals-bound"; by: "forest" | "children" | "tree" | "path" }
  /** v2: the root is not the hash of its trees and totals (that hash is `computed`) */
  | { code: "forest-off-root"; root: string; computed: string }
  /** v1: the root's children (the commitment's own, or its tree.bin's) sum to other totals than it states */
  | {
      code: "totals-off-root";
      by: "children" | "tree";
      off: { asset: string; root_sum: string; stated: string }[];
    }
  /** v1: the children the commitment carries hash to `computed`, not to its `root` (null: their sums overflow) */
  | { code: "children-off-root"; root: string; computed: string | null }
  /** v1 without children: no tree.bin beside it (at `tree`) */
  | { code: "totals-unbound"; root: string; tree: string }
  /** the tree.bin beside it cannot be read (`error`: the reader's words) */
  | { code: "tree-unreadable"; tree: string; error: string }
  /** the tree.bin beside it is another build's: its header (`header`), or its top does not hash to `root` */
  | {
      code: "tree-other";
      tree: string;
      root: string;
      header: { version: number; assets: number; height: number } | null;
    }
  /** `liabilities verify --root` alone: no commitment, so no totals were read */
  | { code: "totals-unread" }
  /**
   * the totals are the root's, but by position only: the root of `construction` (v1, v2) does not hash the
   * asset table (`assets`, as the commitment states it), so a table relabelled under the same root keeps it
   */
  | {
      code: "names-unbound";
      construction: "merkle-sum-sha256/v1" | "merkle-sum-sha256/v2";
      assets: { asset: string; decimals: number }[];
    };

const TOTALS_FAIL: ReadonlySet<TotalsFinding["code"]> = new Set([
  "forest-off-root",
  "totals-off-root",
  "children-off-root",
]);

/** bound (the totals are the root's), fails (they do not hold: NOT SOLVENT), or cannot-say (not relied on). */
export function totalsStatus(f: TotalsFinding): "bound" | "fails" | "cannot-say" {
  return f.code === "totals-bound" ? "bound" : TOTALS_FAIL.has(f.code) ? "fails" : "cannot-say";
}

/** "the root's two children it carries hash to its root and sum to its totals", or why not. */
export function totalsWords(f: TotalsFinding): string {
  const h = (x: string) => `${x.slice(0, 16)}…`;
  switch (f.code) {
    case "totals-bound":
      return {
        forest:
          "the commitment's totals are its root's: the root hashes every asset's tree root and total (a tree per asset)",
        children:
          "the commitment's totals are its root's: the root's two children it carries hash to its root and sum to its totals",
        tree: "the commitment's totals are its root's: the root's two children, read from the tree.bin beside it, hash to its root and sum to its totals",
        path: "the commitment's totals are its root's: this proof's path reaches the root with them (the root's hash covers both its children's sums)",
      }[f.by];
    case "forest-off-root":
      return `the commitment's root ${h(f.root)} is not the hash of its trees and totals (${h(f.computed)}): its totals are not its root's`;
    case "totals-off-root":
      return `the commitment's totals are not its root's (${f.off.map((o) => `${o.asset}: the root's children sum to ${o.root_sum} base units, the commitment says ${o.stated}`).join("; ")}): they were edited under the same root`;
    case "children-off-root":
      return f.computed === null
        ? "the root's two children the commitment carries do not add up (a sum overflows 128 bits): they are not its root's, and its totals are not bound"
        : `the root's two children the commitment carries hash to ${h(f.computed)}, not to its root ${h(f.root)}: they are not its root's children (edited), and its totals are not bound to its root`;
    case "totals-unbound":
      return `the commitment's totals are bound to its root ${h(f.root)} only through the root's two children, which it does not carry (built before chaingw wrote them into commitment.json) and no tree.bin of its build is beside it (${f.tree}): its totals could be edited under the same root, so they are not relied on; build it again, or give the commitment.json of the build's folder (liabilities build --out DIR)`;
    case "tree-unreadable":
      return `the tree.bin beside it (${f.tree}) cannot be read (${f.error}): the totals are not relied on`;
    case "tree-other":
      return f.header
        ? `the tree.bin beside it (${f.tree}) is not this commitment's tree (version ${f.header.version}, ${f.header.assets} assets, height ${f.header.height}): the totals are not relied on`
        : `the top of the tree.bin beside it (${f.tree}) does not hash to the commitment's root ${h(f.root)}: it is another build's tree, and the totals are not relied on`;
    case "totals-unread":
      return "the root's totals were not read: no commitment was given (--commitment), only the root";
    case "names-unbound":
      return `the commitment's root (${f.construction}) binds each total by its asset's position, not its name or decimals: its asset table (${f.assets.map((a) => `${a.asset} at ${a.decimals} decimals`).join(", ")}) could be relabelled under the same root (one asset's total read as another's), so what is owed is not relied on; build it again (chaingw builds merkle-sum-sha256/v1.1 and v2.1, whose root hashes the asset table)`;
  }
}
