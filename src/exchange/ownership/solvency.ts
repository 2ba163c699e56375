/**
 * `solvency` over an exchange's package (issue 47): its address/signature file, judged row by row by the
 * ownership verifier (`verify.ts`, with the nodes `reserves verify` takes), held against liabilities totals
 * per coin — a chaingw commitment's, or the root node of an exchange's inclusion proof (taken only from a root
 * given from outside). The same rules as for chaingw's own files:
 *  - a row counts as **proven** only when its key signed and its balance was re-read on chain at the file's
 *    snapshot (status `proven`); a signed row whose amount was not read is **claimed**; failed, unsigned,
 *    unsupported and not-checked rows are named and not counted;
 *  - a coin is the asset it is: a row backs a liabilities coin only when its ticker is the coin's (whatever
 *    the spelling: `USDT-ERC20`, `ERC20-USDT`, `USDT-ETH`) **and** its network is one where chaingw's tables
 *    know that coin (the coin's own chain, or a well-known token's contract chain: `decimalsOf`); USDT on a
 *    chain the table does not name, or ETH relabelled onto BSC, is named and not counted;
 *  - the exchange's fixed signed text ("I am an OKX address") is no audit's challenge: without `--challenge`
 *    accepting it nothing is proven for the audit, and SOLVENT needs it;
 *  - a coin owed that no row backs is NOT SOLVENT for it;
 *  - `--backing ASSET=NETWORK[:TOKEN]`: a row backs a declared asset by its chain and contract (`rowIdentity`);
 *  - the audit's time as chaingw's own solvency binds it: a proven row proves only at a snapshot within
 *    `--max-gap` of the liabilities' date (beyond: claimed); its block time or that date unknown: cannot say.
 * Data in, data out: the face reads the files, runs the verifier and reads the snapshots' block times.
 */
import { networkLabel, notTheAsset, trustedContracts, trustedText } from "../../chains/assets.js";
import { type Entry, Ledger } from "../../judge/holding.js";
import { beforeMomentFault, type Moment, momentOf } from "../../judge/moment.js";
import { type AssetFinding, assetWords } from "../../judge/words.js";
import { share } from "../../reserves/claims.js";
import { gapText, rfc3339Seconds, timeFault } from "../../util/audit-time.js";
import { aheadOfClock, isoOf } from "../../util/text.js";
import { formatUnits } from "../../util/units.js";
import { nodeOfRow } from "./balances.js";
import { basePlacesOf } from "./coins.js";
import {
  at,
  backingOf,
  type Exact,
  exactOf,
  identityText,
  type RowBackings,
  rowHolding,
  rowIdentity,
  snapshotGroupOf,
  trackingFault,
} from "./holdings.js";
import type { OwnershipFile, OwnershipRow } from "./read.js";

export { type RowBackings, rowIdentity, tickerOf } from "./holdings.js";

import type { OwnershipReport, RowResult } from "./verify.js";

/** One coin the liabilities owe, in its own base units. */
export interface LiabilityTotal {
  asset: string;
  decimals: number;
  base_units: bigint;
}

export interface ExchangeLiabilities {
  /** "commitment.json (chaingw)" or "okx-v1 inclusion proof x.json" */
  source: string;
  totals: LiabilityTotal[];
  /** the liabilities' date (a commitment's created), null where the file states none */
  date: string | null;
  /** the root the totals stand under, and whether it came from outside (--root, a commitment) */
  root: string | null;
  /** the audit's challenge the commitment carries (`liabilities build --challenge`) */
  challenge?: string;
  /** why the totals cannot be relied on (a root from the file itself), or why they do not hold */
  cannot_say?: string;
  fails?: string;
}

/** The block time of a snapshot height on a network of the file, read from its node (null: not read). */
export interface SnapshotTime {
  network: string;
  height: number;
  /** Unix seconds */
  time: number | null;
  /**
   * the time of the chain's next block, where one moment across chains needs it (judge/moment.ts): null, none
   * when read (a UTXO row is re-read at its node's tip: none); undefined, not read
   */
  next?: number | null;
  detail?: string;
}

export type CoinStatus = "covered" | "claimed-only" | "not-covered" | "cannot-say";

export interface CoinVerdict {
  asset: string;
  decimals: number;
  liabilities: string;
  proven: string;
  claimed: string;
  /** proven ÷ liabilities */
  proven_ratio: string;
  /** claimed ÷ liabilities (proven included) */
  claimed_ratio: string;
  shortfall: string | null;
  status: CoinStatus;
  why: string;
  /** the rows counted: proven or signed with the amount claimed */
  rows: {
    line: number;
    coin: string;
    network: string;
    address: string;
    amount: string;
    proven: boolean;
    /** proven on chain over the accepted text, but not for this audit's time: why */
    not_for_this_audit?: string;
  }[];
  /** the rows of the coin not counted, and why */
  not_counted: { line: number; coin: string; network: string; status: string; why: string }[];
  /** the reserves' snapshots of the coin's rows: network, height, block time, its gap to the liabilities' date */
  snapshots: {
    network: string;
    height: number;
    block_time: string | null;
    gap: string | null;
    within_max_gap: boolean | null;
  }[];
}

export type ExchangeSolvencyVerdict = "solvent" | "unproven" | "not-solvent" | "cannot-say";

export interface ExchangeSolvencyReport {
  verdict: ExchangeSolvencyVerdict;
  summary: string;
  reserves: {
    format: string;
    verdict: OwnershipReport["verdict"];
    summary: string;
    /** the texts the rows signed */
    messages: string[];
    /** the text the auditor accepted (--challenge), or null: nothing is proven for the audit */
    challenge: string | null;
    /** summary lines that disagree with the rows, as the verifier found them */
    disagreements: string[];
  };
  liabilities: { source: string; date: string | null; root: string | null; note?: string };
  /** the reserves' latest block time against the liabilities' date, where both are known */
  gap: string | null;
  /** --max-gap: a proven row's snapshot farther than this from the liabilities' date proves nothing for them */
  max_gap: string;
  /** the contracts --backing declared, trusted as the assets they are declared to be (never checked) */
  trusted: string[];
  coins: CoinVerdict[];
}

const RANK: Record<CoinStatus, number> = { covered: 0, "cannot-say": 1, "claimed-only": 2, "not-covered": 3 };

/** The audit's time: the liabilities' date (Unix seconds; null: none stated nor given) and --max-gap. */
export interface AuditTime {
  dateS: number | null;
  maxGap: { text: string; seconds: number };
}

/** What one coin is judged with: the file and its verdict, the audit's text and time, the snapshots, --backing. */
interface Judging {
  file: OwnershipFile;
  report: OwnershipReport;
  challenge: string | null;
  times: SnapshotTime[];
  audit: AuditTime;
  backings: RowBackings;
  /** every holding counted so far, once (judge/holding.ts): by chain (as its node answers), contract and address */
  ledger: Ledger;
  /** each chain's snapshot: the latest height a proven row of it was read at (`snapshotGroupOf`) */
  latest: Map<string, number>;
}

/** A row's snapshot: the node that read it (else its own name) and height, and that block's time. */
function snapshotOfRow(
  j: Judging,
  row: OwnershipRow,
): { network: string; height: number; time: SnapshotTime | undefined } | undefined {
  const h = row.height ?? j.file.summary.find((s) => s.coin === row.coin)?.height;
  if (!h || !/^\d+$/.test(h)) return undefined;
  const node = nodeOfRow(
    [...new Set(j.times.map((t) => t.network))].map((network) => ({ network })),
    row,
  );
  const network = node?.network ?? (row.network || row.coin);
  const height = Number(h);
  return { network, height, time: j.times.find((t) => t.network === network && t.height === height) };
}

/**
 * Why a row named as the coin (or at its chain and contract) is not counted, or its amount exactly: base units
 * at the row's own places (a file of base units: the coin's places from the tables; else the places written).
 */
function notCountedWhy(
  r: RowResult,
  row: OwnershipRow,
  owed: LiabilityTotal,
  mine: ReturnType<typeof backingOf>,
  j: Judging,
): { why: string } | { amount: Exact } {
  const rule = j.backings.rules.get(owed.asset) ?? { refs: [], source: "none" as const };
  if (typeof mine === "object")
    return {
      why: `${r.coin} is ${identityText(mine)}, ${notTheAsset(owed.asset, rule)}: not counted as ${owed.asset}`,
    };
  // base units in the places the chain gave the amount it re-read, else the coin's in chaingw's tables
  const d = j.file.units === "base" ? basePlacesOf(row, r) : 0;
  if (d === undefined)
    return {
      why: `${r.coin}${r.network && !r.coin.includes("-") ? ` on ${r.network}` : ""}: its amount is in base units of a coin whose places chaingw's tables do not know: not counted as ${owed.asset}`,
    };
  if (r.status !== "proven" && r.status !== "signed") return { why: r.reason };
  const tracked = trackingFault(r, row, owed.asset, j.backings);
  if (tracked && "notCounted" in tracked) return { why: tracked.notCounted };
  return { amount: exactOf(r.amount as string, j.file.units === "base" ? d : undefined) };
}

/**
 * One snapshot per chain: a proven row read at an earlier height than the latest proven row of its chain
 * (`snapshotGroupOf`: every asset's rows there) proves nothing for the sum — value moved between the two
 * heights (paid on, wrapped, swapped into another asset owed) would count at both (undefined: at the latest).
 */
function heightFault(j: Judging, row: OwnershipRow, height: number | undefined): string | undefined {
  const group = snapshotGroupOf(j, row);
  const latest = group === undefined ? undefined : j.latest.get(group);
  return height === undefined || latest === undefined || height === latest
    ? undefined
    : `proven at height ${height}, but the file's latest snapshot on this chain is height ${latest}: value moved between the two (paid to another address, wrapped, or swapped into another asset owed) would count at both; one snapshot per chain proves`;
}

/**
 * One balance counts once (the ledger's rule, judge/holding.ts): a row whose chain (the network its node
 * answers for: two `--node` names of one chain are one), contract and address (however written:
 * `addressKey`) a row already counted has is named and not counted again: why, in words.
 */
function againWhy(j: Judging, row: OwnershipRow, first: Entry, asset: string): string {
  const id = rowIdentity(row, j.backings);
  return `the same balance as ${first.first.source}${first.asset === asset ? "" : ` (counted as ${first.asset})`}: ${identityText(id).replace(/^a network not told.*/, "the same network name")}, the same address: it counts once`;
}

/** The coin's finding, typed (judge/words.ts turns it into words): its status, numbers, and why not proven. */
function coinFinding(c: CoinVerdict, liab: string, j: Judging): AssetFinding {
  const late = [...new Set(c.rows.flatMap((x) => (x.not_for_this_audit ? [x.not_for_this_audit] : [])))];
  return {
    // an exchange's coin is cannot say only where rows proven on chain could be for this audit
    code: c.status === "cannot-say" ? "unknown-for-audit" : c.status,
    asset: c.asset,
    numbers: {
      liabilities: liab,
      proven: c.proven,
      claimed: c.claimed,
      shortfall: c.shortfall,
      coverage: c.proven_ratio,
    },
    none: c.rows.length === 0,
    notFor: late,
    ...(j.challenge === null ? { unprovable: "nothing is proven for the audit without --challenge" } : {}),
  };
}

/** A counted row before the sums: its line, its exact amount, whether proven for the audit, and why not. */
interface Counted {
  row: Omit<CoinVerdict["rows"][number], "amount" | "proven">;
  /** the ledger's entry the row stands for: proven where any row of the balance is */
  entry: Entry;
}

/** A row counted for a coin, before the audit's faults: what it is, its amount, its snapshot. */
interface Candidate {
  base: { line: number; coin: string; network: string };
  r: RowResult;
  row: OwnershipRow;
  amount: Exact;
  snap: ReturnType<typeof snapshotOfRow>;
  /** proven on chain over the accepted text (the exchange's fixed text is no audit's challenge otherwise) */
  onChain: boolean;
}

/** The rows of one coin owed: those counted (each balance once) and those not (named), with the snapshots. */
function rowsOfCoin(j: Judging, owed: LiabilityTotal) {
  const candidates: Candidate[] = [];
  const notCounted: CoinVerdict["not_counted"] = [];
  const snapshots = new Map<string, CoinVerdict["snapshots"][number]>();
  for (const [i, r] of j.report.rows.entries()) {
    const row = j.file.rows[i] as OwnershipRow;
    if (r.amount === null) continue;
    const mine = backingOf(row, owed.asset, j.backings);
    if (mine === "other" || mine === "unrelated") continue;
    const base = { line: r.line, coin: r.coin, network: r.network };
    const judged = notCountedWhy(r, row, owed, mine, j);
    if ("why" in judged) {
      notCounted.push({ ...base, status: r.status, why: judged.why });
      continue;
    }
    const snap = snapshotOfRow(j, row);
    candidates.push({
      base,
      r,
      row,
      amount: judged.amount,
      snap,
      onChain: r.status === "proven" && j.challenge !== null,
    });
  }
  const moment = coinMoment(j, candidates);
  const counted: Counted[] = [];
  for (const { base, r, row, amount, snap, onChain } of candidates) {
    // proven for the audit only when the auditor accepts the text, at a snapshot within --max-gap of the
    // liabilities' date, the latest of its chain, and held at the coin's one moment across chains
    const moved = onChain ? heightFault(j, row, snap?.height) : undefined;
    const fault = !onChain
      ? undefined
      : moved
        ? { why: moved, cannotSay: false }
        : (timeFault(snap?.time?.time, j.audit.dateS, j.audit.maxGap) ??
          momentFault(owed.asset, snap, moment) ??
          untoldFault(r, row, owed.asset, j.backings));
    const h = rowHolding(row, r, amount, snap, j.backings, fault, j.challenge);
    const again = j.ledger.count(h, owed.asset);
    if (again) {
      notCounted.push({ ...base, status: r.status, why: againWhy(j, row, again, owed.asset) });
      continue;
    }
    counted.push({
      row: {
        ...base,
        address: r.address,
        ...(fault ? { not_for_this_audit: `line ${r.line}: ${fault.why}` } : {}),
      },
      entry: j.ledger.entries.get(Ledger.keyOf(h)) as Entry,
    });
    if (snap) snapshots.set(`${snap.network} ${snap.height}`, snapshotEntry(snap, j.audit));
  }
  notCounted.sort((a, b) => a.line - b.line);
  return { counted, notCounted, snapshots: [...snapshots.values()] };
}

/**
 * The coin's one moment across chains (judge/moment.ts): the latest block time of the snapshots its rows
 * proven on chain were read at, each chain (as its node answers, else its name) once; null: one chain.
 */
function coinMoment(j: Judging, cs: Candidate[]): Moment<string> | null {
  const chains = new Map<string, number | null>();
  for (const c of cs) {
    if (!c.onChain || !c.snap) continue;
    const id = rowIdentity(c.row, j.backings).network;
    chains.set(id === null ? c.snap.network : networkLabel(id), c.snap.time?.time ?? null);
  }
  return momentOf(chains);
}

/** A token row whose node could not tell whether it reads the native coin (`trackingFault`): cannot say. */
const untoldFault = (...a: Parameters<typeof trackingFault>) => {
  const t = trackingFault(...a);
  return t && "fault" in t ? t.fault : undefined;
};

/** A row read before its coin's moment, at a block not its chain's last at or before it: cannot say (why). */
function momentFault(
  asset: string,
  snap: ReturnType<typeof snapshotOfRow>,
  m: Moment<string> | null,
): { why: string; cannotSay: boolean } | undefined {
  const t = snap?.time;
  if (m === null || !t || t.time === null) return undefined;
  const next = t.next;
  const why = beforeMomentFault(
    asset,
    t.time,
    m,
    m.chain,
    next === undefined ? undefined : next !== null && next <= m.s,
  );
  return why ? { why, cannotSay: true } : undefined;
}

/**
 * One coin owed: the rows that back it (proven, claimed), those that do not (named), the ratios, the status.
 * Every amount exactly, at the most places of the liabilities' and the rows' (nothing cut to the liabilities').
 */
function judgeCoin(j: Judging, owed: LiabilityTotal): CoinVerdict {
  const { counted, notCounted, snapshots } = rowsOfCoin(j, owed);
  const decimals = Math.max(owed.decimals, ...counted.map((c) => c.entry.scale));
  const fmt = (v: bigint) => formatUnits(v, decimals);
  const { claimed, proven, unknown } = j.ledger.sums(owed.asset, decimals);
  const liab = at({ units: owed.base_units, scale: owed.decimals }, decimals);
  // cannot say only where the rows whose time is unknown could cover it: short even with them, it is not
  const status: CoinStatus =
    proven >= liab
      ? "covered"
      : proven + unknown >= liab
        ? "cannot-say"
        : claimed >= liab
          ? "claimed-only"
          : "not-covered";
  const c: CoinVerdict = {
    asset: owed.asset,
    decimals,
    liabilities: fmt(liab),
    proven: fmt(proven),
    claimed: fmt(claimed),
    proven_ratio: share(proven, liab),
    claimed_ratio: share(claimed, liab),
    shortfall: proven >= liab ? null : fmt(liab - proven),
    status,
    why: "",
    rows: counted.map(({ row: { line, coin, network, address, ...rest }, entry }) => ({
      ...{ line, coin, network, address },
      amount: fmt(at({ units: entry.amount, scale: entry.scale }, decimals)),
      proven: entry.proven,
      ...rest,
    })),
    not_counted: notCounted,
    snapshots,
  };
  c.why = assetWords(coinFinding(c, fmt(liab), j));
  return c;
}

/** A snapshot as the report names it: its block time, and its gap to the liabilities' date against --max-gap. */
function snapshotEntry(
  s: NonNullable<ReturnType<typeof snapshotOfRow>>,
  a: AuditTime,
): CoinVerdict["snapshots"][number] {
  const t = s.time?.time ?? null;
  const gap = t === null || a.dateS === null ? null : t - a.dateS;
  return {
    network: s.network,
    height: s.height,
    block_time: t === null ? null : isoOf(t),
    gap: gap === null ? null : gapText(gap),
    within_max_gap: gap === null ? null : Math.abs(gap) <= a.maxGap.seconds,
  };
}

export function exchangeSolvency(i: {
  file: OwnershipFile;
  report: OwnershipReport;
  liabilities: ExchangeLiabilities;
  /** the signed text the auditor accepts as the audit's (--challenge), or undefined */
  challenge?: string;
  times: SnapshotTime[];
  /** what backs each asset owed (--backing, the well-known table) and what tells a row's chain and contract */
  backings: RowBackings;
  /** --max-gap: how far a snapshot's block time may be from the liabilities' date */
  maxGap: { text: string; seconds: number };
  /** the auditor's clock (a liabilities' date past it by more than CREATED_AHEAD_S is a fault) */
  now?: Date;
}): ExchangeSolvencyReport {
  const challenge = i.challenge ?? null;
  const dateS = i.liabilities.date === null ? null : rfc3339Seconds(i.liabilities.date);
  const j: Judging = {
    file: i.file,
    report: i.report,
    challenge,
    times: i.times,
    audit: { dateS, maxGap: i.maxGap },
    backings: i.backings,
    ledger: new Ledger(challenge),
    latest: new Map(),
  };
  for (const [k, r] of i.report.rows.entries()) {
    const row = i.file.rows[k] as OwnershipRow;
    const at = r.status === "proven" ? snapshotOfRow(j, row)?.height : undefined;
    const chain = snapshotGroupOf(j, row);
    if (chain !== undefined && at !== undefined && at > (j.latest.get(chain) ?? -1)) j.latest.set(chain, at);
  }
  const coins = i.liabilities.totals.map((t) => judgeCoin(j, t));
  const worst = Math.max(0, ...coins.map((c) => RANK[c.status]));
  let verdict: ExchangeSolvencyVerdict = (["solvent", "cannot-say", "unproven", "not-solvent"] as const)[
    worst
  ] as ExchangeSolvencyVerdict;
  // as chaingw's own solvency: liabilities dated after the auditor's clock cannot have been counted then
  const ahead =
    dateS === null
      ? undefined
      : aheadOfClock(
          "the liabilities' root (--liabilities-date)",
          i.liabilities.date as string,
          dateS,
          i.now ?? new Date(),
        );
  if (ahead && verdict === "solvent") verdict = "unproven";
  // a failing row (another key's signature, an amount not on chain, a summary line off) and the file does not
  // hold, as reserves verify says: the verdict is never better than the file's
  const fileFails = i.report.verdict === "fails";
  if (i.liabilities.fails || fileFails) verdict = "not-solvent";
  else if (i.liabilities.cannot_say) verdict = "cannot-say";
  const messages = [...new Set(i.file.rows.map((r) => r.message).filter((m) => m.trim() !== ""))];
  const open = coins.filter((c) => c.status !== "covered");
  const trusted = trustedContracts(i.backings.rules);
  const summary = [
    i.liabilities.fails
      ? `the liabilities do not hold: ${i.liabilities.fails}`
      : i.liabilities.cannot_say
        ? `the liabilities cannot be relied on: ${i.liabilities.cannot_say}`
        : fileFails
          ? `the reserves file does not hold: ${i.report.summary_text}`
          : verdict === "solvent"
            ? `every coin owed (${coins.length}) covered by proven reserves: signed over the accepted text, re-read on chain at the snapshot`
            : [...(ahead ? [ahead] : []), ...open.map((c) => c.why)].join("; "),
    ...(trusted.length ? [trustedText(trusted)] : []),
  ].join("; ");
  const times = i.times.flatMap((t) => (t.time === null ? [] : [t.time]));
  const gap =
    dateS === null || !Number.isFinite(dateS) || !times.length
      ? null
      : gapText(Math.max(...times.map((t) => Math.abs(t - dateS))) * (Math.max(...times) >= dateS ? 1 : -1));
  return {
    verdict,
    summary,
    reserves: {
      format: i.report.format,
      verdict: i.report.verdict,
      summary: i.report.summary_text,
      messages,
      challenge,
      disagreements: i.report.findings
        .filter((f) => f.step === "summary" && f.status === "fails")
        .map((f) => `${f.at ? `${f.at}: ` : ""}${f.text}`),
    },
    liabilities: {
      source: i.liabilities.source,
      date: i.liabilities.date,
      root: i.liabilities.root,
      ...(i.liabilities.cannot_say || i.liabilities.fails
        ? { note: (i.liabilities.fails ?? i.liabilities.cannot_say) as string }
        : {}),
    },
    gap,
    max_gap: i.maxGap.text,
    trusted,
    coins,
  };
}
