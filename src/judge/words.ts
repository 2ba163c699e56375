/**
 * Solvency's finding about each asset owed, typed — a code, the asset, its numbers — and turned into words
 * here, once, for both paths (chaingw's own proofs, an exchange's address file): the verdict's summary, the
 * report's `why` (--json), the text under the table, the page and the report package all read these words,
 * so they cannot disagree.
 */

import { type AssetRule, type NetworkId, networkLabel } from "../chains/assets.js";
import { amountOf } from "../util/units.js";

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
  notFor: string[];
  /** why nothing could be proven at all (no --verify, no --challenge), or undefined */
  unprovable?: string;
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
  const notFor = f.notFor.length ? `; not proven for this audit: ${f.notFor.join("; ")}` : "";
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
      return `${a} covered only by claimed reserves: proven ${n.proven} of ${n.liabilities} ${a} (${n.coverage})${f.unprovable ? `; ${f.unprovable}` : ""}${notFor}`;
    default:
      return `${a} covered: proven ${n.proven} of ${n.liabilities} ${a}`;
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

/**
 * Why one holding counts as it does (a proof's output or balance, an address file's row), typed: a code, its
 * subject (where it is stated, what it is) and its numbers; `holdingWords` turns it into the words the text,
 * `--json` (`why`, beside `code`), the page and the package's rows.csv read — the judge builds the finding, and
 * nothing else words it.
 */
export type HoldingFinding =
  /** signed over the audit's challenge, re-read on chain at the snapshot (`at`: "height 111", "block 5") */
  | { code: "proven"; at: string }
  /** a row of an address file: signed over the audit's text, its balance read at the snapshot */
  | { code: "row-proven" }
  /** a row signed, its amount as the file claims it (not re-read, or no audit's text accepted) */
  | { code: "row-claimed" }
  /** held as the document states: nothing re-read (no --verify) */
  | { code: "not-verified"; at: string }
  /** no signature over the audit's challenge proven for its address */
  | { code: "unsigned"; at: string }
  /** its proof proves nothing for this audit (another text, none), or does not hold (`check`) */
  | { code: "proof-not-proving"; at: string; check: string }
  /** a counted proof's own line where none of its holdings was listed: its check and the verifier's summary */
  | { code: "proof-check"; check: string; summary?: string }
  /** proven on chain, but not for this audit: the judge's reason (time, moment, snapshot), already in words */
  | { code: "not-for-audit"; why: string }
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
  /** an address file's row the verifier did not find signed and held (failed, unsigned, unsupported): its words */
  | { code: "row-not-proven"; status: string; reason: string }
  /** a token whose balanceOf reads the native coin (`detail`: what the probe saw): the native coin counts it */
  | { code: "reads-native"; asset: string; coin: string; is: HoldingChain; detail: string }
  /** a token whose balanceOf reads another declared token's (`token`; `detail`: what the probe saw): that token counts it */
  | { code: "reads-token"; asset: string; coin: string; is: HoldingChain; detail: string; token: string }
  /** a token of a known mirror, on a chain whose native coin backs another asset owed */
  | { code: "mirror-backs-other"; mirror: string; network: NetworkId; owner: string }
  /** a token the probe saw read the native coin at a contract not known to mirror it: it counts for none */
  | { code: "mirror-unshown"; mirror: string; network: NetworkId }
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
      return `held at ${f.at} (re-read on the node); its address signed the audit's challenge`;
    case "row-proven":
      return "signed over the audit's text, the balance read at the snapshot";
    case "row-claimed":
      return "signed, the amount as the file claims it";
    case "not-verified":
      return `held at ${f.at} as the document states (not verified: --verify)`;
    case "unsigned":
      return `held at ${f.at}; no signature over the audit's challenge proven for this address`;
    case "proof-not-proving":
      return `held at ${f.at}; the proof ${f.check === "holds" ? "proves nothing for this audit" : `does not hold (${f.check})`}`;
    case "proof-check":
      return `${f.check}${f.summary ? `: ${f.summary}` : ""}`;
    case "not-for-audit":
      return f.why;
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
    case "row-not-proven":
      return f.reason;
    case "reads-native":
      return `${f.coin} is ${chainWords(f.is)}, one balance backs one asset: it ${f.detail}; the native coin counts once, as itself: not counted as ${f.asset}`;
    case "reads-token":
      return `${f.coin} is ${chainWords(f.is)}, one balance backs one asset: it ${f.detail}; the token at ${f.token} counts once, as itself: not counted as ${f.asset}`;
    case "mirror-backs-other":
      return `one balance backs one asset: ${f.mirror}, and the native coin of ${networkLabel(f.network)} backs ${f.owner}`;
    case "mirror-unshown":
      return `${f.mirror}: it counts for no asset — its balanceOf at an address is not shown to be that address's coins; the native coin of ${networkLabel(f.network)} counts them, once, as itself`;
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
export function ledgerUntoldWords(why: string): string {
  return `whether its balanceOf reads a ledger another declared token reads (the same coins twice) its node cannot tell: ${why}`;
}
