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
import { networkLabel, trustedContracts, trustedText } from "../../chains/assets.js";
import { type Entry, Ledger } from "../../judge/holding.js";
import { beforeMomentFault, type Moment, momentOf, timeFault } from "../../judge/moment.js";
import {
  type RowNotCounted,
  type Snapshot,
  type SolvencyAsset,
  type SolvencyReport,
  type SolvencyVerdict,
  STATUS_RANK,
} from "../../judge/report.js";
import { assetCodeOf, assetStatus, chainSnapshots, snapshotFault } from "../../judge/status.js";
import {
  type AssetFinding,
  type AuditFault,
  assetWords,
  type HoldingFinding,
  holdingWords,
  isAuditFault,
  placesWords,
} from "../../judge/words.js";
import { share } from "../../reserves/claims.js";
import { rfc3339Seconds } from "../../util/audit-time.js";
import { aheadOfClock, isoOf } from "../../util/text.js";
import { amountOf, amountText } from "../../util/units.js";
import { nodeOfRow } from "./balances.js";
import { basePlacesOf, rowAmounts } from "./coins.js";
import {
  at,
  backingOf,
  type Exact,
  exactOf,
  ownerMessages,
  type RowBackings,
  rowHolding,
  rowIdentity,
  signerOf,
  snapshotGroupOf,
  trackingFault,
} from "./holdings.js";
import { assetPlaces } from "./places.js";
import type { OwnershipFile, OwnershipRow } from "./read.js";
import { liabilitiesFacts, reportFacts } from "./solvency-facts.js";
import { type CountedRow, rowLines, snapshotEntry } from "./solvency-lines.js";

export { type RowBackings, rowIdentity, tickerOf } from "./holdings.js";

import type { OwnershipReport, RowResult } from "./verify.js";

/** One coin the liabilities owe, in its own base units. */
export interface LiabilityTotal {
  asset: string;
  /** the places of `base_units`: the coin's decimals where `known` (chaingw's commitment states them), else the total's own */
  decimals: number;
  base_units: bigint;
  known?: boolean;
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
  /** chaingw's commitment, when the totals are one: its digest and label (its root and created above) */
  commitment?: { digest: string; label?: string };
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
  /** the liabilities' totals cannot be relied on: every coin's status is cannot say (judge/status.ts) */
  owedUnknown: boolean;
  /** the messages a contract wallet's owner rows sign, by owner address (holdings.ts `ownerMessages`) */
  owned: Map<string, string>;
  /** the networks whose snapshots' times were read, each once, as nodes a row is read by (`nodeOfRow`) */
  timedNodes: { network: string }[];
}

/** A row's snapshot: the node that read it (else its own name) and height, and that block's time. */
function snapshotOfRow(
  j: Judging,
  row: OwnershipRow,
): { network: string; height: number; time: SnapshotTime | undefined } | undefined {
  const h = row.height ?? j.file.summary.find((s) => s.coin === row.coin)?.height;
  if (!h || !/^\d+$/.test(h)) return undefined;
  const node = nodeOfRow(j.timedNodes, row);
  const network = node?.network ?? (row.network || row.coin);
  const height = Number(h);
  return { network, height, time: j.times.find((t) => t.network === network && t.height === height) };
}

/**
 * Why a row named as the coin (or at its chain and contract) is not counted (its finding), or its amount
 * exactly: base units at the row's own places (a file of base units: the coin's places from the tables; else
 * the places written).
 */
function notCountedWhy(
  r: RowResult,
  row: OwnershipRow,
  owed: LiabilityTotal,
  mine: ReturnType<typeof backingOf>,
  j: Judging,
): { finding: HoldingFinding } | { amount: Exact } {
  const rule = j.backings.rules.get(owed.asset) ?? { refs: [], source: "none" as const };
  // a signed row whose --node did not answer (the verifier's "cannot say"): which chain it is cannot be told,
  // so it is neither the asset nor not — it stays in the sums as what might be proven (the ledger's unknown)
  if (typeof mine === "object" && !(mine.network === null && r.status === "cannot-say" && r.signed))
    return { finding: { code: "not-the-asset", asset: owed.asset, rule, row: { coin: r.coin, is: mine } } };
  // base units in the places the chain gave the amount it re-read, else the coin's in chaingw's tables
  const d = j.file.units === "base" ? basePlacesOf(row, r) : 0;
  if (d === undefined)
    return { finding: { code: "places-unknown", asset: owed.asset, coin: r.coin, network: r.network } };
  // a row its node could not re-read stays in the sums as what might be proven (the ledger's unknown): the
  // judge's "cannot say" weighs it; dropped, its coin read "not covered" though no chain answered against it
  if (r.status !== "proven" && r.status !== "signed" && r.status !== "cannot-say")
    return {
      finding: {
        code:
          r.status === "unsigned"
            ? "row-unsigned"
            : r.status === "unsupported"
              ? "row-unsupported"
              : "row-failed",
        claimed: r.amount,
        read: r.balance?.value ?? null,
        block: r.balance?.block ?? null,
        why: r.why,
      },
    };
  const tracked = trackingFault(r, row, owed.asset, j.backings);
  if (tracked && "notCounted" in tracked) return { finding: tracked.notCounted };
  return { amount: exactOf(r.amount as string, j.file.units === "base" ? d : undefined) };
}

/** One snapshot per chain (judge/status.ts): why a proven row read below its chain's proves nothing for the sum. */
function heightFault(j: Judging, row: OwnershipRow, height: number | undefined): AuditFault | undefined {
  const group = snapshotGroupOf(j, row);
  return snapshotFault("balance", height, group === undefined ? undefined : j.latest.get(group), "file");
}

/**
 * One balance counts once (the ledger's rule, judge/holding.ts): a row whose chain (the network its node
 * answers for: two `--node` names of one chain are one), contract and address (however written:
 * `addressKey`) a row already counted has is named and not counted again: its finding.
 */
function againOf(j: Judging, row: OwnershipRow, first: Entry, asset: string): HoldingFinding {
  return {
    code: "same-balance",
    first: first.first.source,
    firstAsset: first.asset,
    asset,
    is: rowIdentity(row, j.backings),
  };
}

/**
 * A row not counted: its address, what it claims (in coin units where its coin's places are known: the
 * chain's for a file of base units, else the tables'; else "N base units"), and its finding's code and words
 * (judge/words.ts).
 */
function notCountedRow(
  j: Judging,
  base: { line: number; coin: string; network: string },
  r: RowResult,
  row: OwnershipRow,
  f: HoldingFinding,
): RowNotCounted {
  const stated = r.amount ?? "";
  const places = j.file.units === "base" ? basePlacesOf(row, r) : undefined;
  const { amount } =
    places === undefined
      ? rowAmounts(stated, j.file.units, r.coin, r.network)
      : rowAmounts(stated, j.file.units, r.coin, r.network, places);
  const claimed = amount || (j.file.units === "base" ? `${stated} base units` : stated);
  return {
    ...base,
    address: r.address,
    claimed,
    status: r.status,
    code: f.code,
    why: holdingWords(f),
    finding: f,
  };
}

/** The coin's finding, typed (judge/words.ts turns it into words): its status, numbers, and why not proven. */
function coinFinding(
  c: SolvencyAsset,
  j: Judging,
  late: { line: number; fault: AuditFault }[],
): AssetFinding {
  return {
    // an exchange's coin is cannot say where what it owes is not known, else only where rows proven on chain
    // could be for this audit
    code: assetCodeOf(c.status, j.owedUnknown, false),
    asset: c.asset,
    decimals: c.decimals,
    numbers: {
      liabilities: c.liabilities.amount,
      proven: c.proven.amount,
      claimed: c.claimed.amount,
      shortfall: c.shortfall,
      coverage: c.coverage,
    },
    none: !c.rows?.length,
    notFor: late,
    ...(j.challenge === null ? { unprovable: "no-challenge" as const } : {}),
  };
}

/** A counted row before the sums: its index in the file, whether proven for the audit, and why not. */
interface Counted {
  /** the row's index in the file (and in the verifier's results) */
  i: number;
  /** why, proven on chain, it proves nothing for this audit (typed), if so */
  fault?: AuditFault;
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
  /** the row's index in the file */
  i: number;
}

/** The rows that may back one coin owed (before the audit's faults), and those that do not (named). */
function candidatesOf(j: Judging, owed: LiabilityTotal) {
  const candidates: Candidate[] = [];
  const notCounted: RowNotCounted[] = [];
  for (const [i, r] of j.report.rows.entries()) {
    const row = j.file.rows[i] as OwnershipRow;
    if (r.amount === null) continue;
    const mine = backingOf(row, owed.asset, j.backings);
    if (mine === "other" || mine === "unrelated") continue;
    const base = { line: r.line, coin: r.coin, network: r.network };
    const judged = notCountedWhy(r, row, owed, mine, j);
    if ("finding" in judged) {
      notCounted.push(notCountedRow(j, base, r, row, judged.finding));
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
      i,
    });
  }
  return { candidates, notCounted };
}

/**
 * The rows of one coin owed: those counted (each balance once) and those not (named), with the snapshots —
 * held at the audit's one moment across chains (`moment`: every coin's chains, `auditMoment`).
 */
function rowsOfCoin(
  j: Judging,
  { candidates, notCounted }: ReturnType<typeof candidatesOf>,
  owed: LiabilityTotal,
  moment: Moment<string> | null,
) {
  const snapshots = new Map<string, Snapshot>();
  const counted: Counted[] = [];
  for (const { base, r, row, amount, snap, onChain, i } of candidates) {
    // proven for the audit only when the auditor accepts the text, at a snapshot within --max-gap of the
    // liabilities' date, the latest of its chain, and held at the audit's one moment across chains
    const fault = !onChain
      ? undefined
      : (heightFault(j, row, snap?.height) ??
        timeFault(snap?.time?.time, j.audit.dateS, j.audit.maxGap) ??
        momentFault(snap, moment) ??
        untoldFault(r, row, owed.asset, j.backings));
    const h = rowHolding(row, r, amount, snap, j.backings, fault, signerOf(row, r, j.owned));
    const again = j.ledger.count(h, owed.asset);
    if (again) {
      notCounted.push(notCountedRow(j, base, r, row, againOf(j, row, again, owed.asset)));
      continue;
    }
    counted.push({
      i,
      ...(fault ? { fault } : {}),
      entry: j.ledger.entries.get(Ledger.keyOf(h)) as Entry,
    });
    if (snap) snapshots.set(`${snap.network} ${snap.height}`, snapshotEntry(snap, j.audit));
  }
  notCounted.sort((a, b) => a.line - b.line);
  return { counted, notCounted, snapshots: [...snapshots.values()] };
}

/**
 * The audit's one moment across chains (judge/moment.ts): the latest block time of the snapshots the rows
 * proven on chain for any coin owed were read at, each chain (as its node answers, else its name) once, at
 * its latest; null: one chain. One for every coin, not one per coin: ether proven on one chain, then moved
 * and proven on another chain later as another coin owed, would count as both.
 */
function auditMoment(j: Judging, coins: { candidates: Candidate[] }[]): Moment<string> | null {
  const chains = new Map<string, number | null>();
  for (const c of coins.flatMap((x) => x.candidates)) {
    if (!c.onChain || !c.snap) continue;
    const id = rowIdentity(c.row, j.backings).network;
    const key = id === null ? c.snap.network : networkLabel(id);
    const t = c.snap.time?.time ?? null;
    // a chain's latest snapshot (its earlier rows count as claimed only: one snapshot per chain)
    const had = chains.get(key) ?? null;
    chains.set(key, had === null || t === null ? (t ?? had) : Math.max(had, t));
  }
  return momentOf(chains);
}

/** A token row whose node could not tell whether it reads the native coin (`trackingFault`): cannot say. */
const untoldFault = (...a: Parameters<typeof trackingFault>) => {
  const t = trackingFault(...a);
  return t && "fault" in t ? t.fault : undefined;
};

/** A row read before the audit's moment, at a block not its chain's last at or before it: cannot say (why). */
function momentFault(
  snap: ReturnType<typeof snapshotOfRow>,
  m: Moment<string> | null,
): AuditFault | undefined {
  const t = snap?.time;
  if (m === null || !t || t.time === null) return undefined;
  const next = t.next;
  return beforeMomentFault(t.time, m, m.chain, next === undefined ? undefined : next !== null && next <= m.s);
}

/**
 * One coin owed: the rows that back it (proven, claimed), those that do not (named), the ratios, the status.
 * Every amount exactly, at the coin's decimals (places.ts: the commitment's, the chain's, the tables'), at more
 * only where the data states more (said so, never rounded); the coin's decimals unknown, the places it needs.
 */
function judgeCoin(
  j: Judging,
  rows: ReturnType<typeof candidatesOf>,
  owed: LiabilityTotal,
  moment: Moment<string> | null,
): SolvencyAsset {
  const { counted, notCounted, snapshots } = rowsOfCoin(j, rows, owed, moment);
  const { decimals, finding: places } = assetPlaces(
    owed.asset,
    { places: owed.decimals, commitment: owed.known === true },
    rows.candidates,
    counted.map((c) => ({ line: (j.report.rows[c.i] as RowResult).line, places: c.entry.scale })),
  );
  const fmt = (v: bigint) => amountText(v, decimals);
  // each counted row's standing now, once its coin's rows are all counted (its RowLine made as it is written)
  const countedRows: CountedRow[] = counted.map(({ i, fault, entry }) => ({
    i,
    ...(fault ? { fault } : {}),
    proven: entry.proven,
    units: entry.amount,
    scale: entry.scale,
  }));
  const amount = (v: bigint) => ({ amount: fmt(v), base_units: v.toString() });
  const { claimed, proven, unknown } = j.ledger.sums(owed.asset, decimals);
  const liab = at({ units: owed.base_units, scale: owed.decimals }, decimals);
  // the one status rule (judge/status.ts): a failing row is the file's verdict (exchangeSolvency), not the coin's
  const status = assetStatus({
    liabilities: liab,
    claimed,
    proven,
    unknown,
    fails: false,
    unplaced: false,
    unjudged: false,
    owedUnknown: j.owedUnknown,
  });
  const rule = j.backings.rules.get(owed.asset) ?? { refs: [], source: "none" as const };
  const c: SolvencyAsset = {
    asset: owed.asset,
    decimals,
    backing: { source: rule.source, by: rule.refs.map((r) => r.label) },
    liabilities: amount(liab),
    proven: amount(proven),
    claimed: amount(claimed),
    coverage: liab === 0n ? "n/a" : share(proven, liab),
    claimed_coverage: liab === 0n ? "n/a" : share(claimed, liab),
    proven_share: share(proven, claimed),
    shortfall: proven >= liab ? null : fmt(liab - proven),
    status,
    proofs: [],
    rows: rowLines(j.report.rows, countedRows, decimals),
    // what each row not counted claims, at the coin's places as every amount of it is (text not such an amount as it is)
    not_counted: notCounted.map((x) => ({ ...x, claimed: amountOf(x.claimed, decimals) })),
    snapshots,
    overlap: [],
    spent_before_snapshot: 0,
    spent_before_commitment: [],
    moment: moment === null ? null : { time: isoOf(moment.s), network: moment.chain },
    moved_before_moment: [],
    spent_dated_ahead: [],
    mirrors: [],
    code: "covered",
    why: "",
    ...(places ? { places: placesWords(places) } : {}),
  };
  const late = countedRows.flatMap((x) => {
    if (!x.fault) return [];
    const line = (j.report.rows[x.i] as RowResult).line;
    const f: HoldingFinding = { ...x.fault, line };
    return isAuditFault(f) ? [{ line, fault: f }] : [];
  });
  const f = coinFinding(c, j, late);
  c.code = f.code;
  c.why = assetWords(f);
  return c;
}

/** Each chain's one snapshot (judge/status.ts), of the rows that back an asset owed. */
function latestOf(j: Judging): Map<string, number> {
  return chainSnapshots(
    j.report.rows.flatMap((r, k) => {
      const row = j.file.rows[k] as OwnershipRow;
      const chain = snapshotGroupOf(j, row);
      const height = snapshotOfRow(j, row)?.height;
      return chain === undefined || height === undefined
        ? []
        : [{ chain, height, read: r.status === "proven" ? ("proven" as const) : ("claimed" as const) }];
    }),
  );
}

export function exchangeSolvency(i: {
  /** the address file as given (--reserves FILE) */
  source: string;
  file: OwnershipFile;
  report: OwnershipReport;
  liabilities: ExchangeLiabilities;
  /** the signed text the auditor accepts as the audit's (--challenge), or undefined */
  challenge?: string;
  times: SnapshotTime[];
  /** whether a node re-read any row (a --node given) */
  verified: boolean;
  /** what backs each asset owed (--backing, the well-known table) and what tells a row's chain and contract */
  backings: RowBackings;
  /** --max-gap: how far a snapshot's block time may be from the liabilities' date */
  maxGap: { text: string; seconds: number };
  /** the auditor's clock (a liabilities' date past it by more than CREATED_AHEAD_S is a fault) */
  now?: Date;
}): SolvencyReport {
  // the audit's text: the commitment's, else the one the auditor accepts (the face refuses the two differing)
  const mine = i.liabilities.challenge ?? null;
  const given = i.challenge ?? null;
  const challenge = given ?? mine;
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
    owedUnknown: i.liabilities.cannot_say !== undefined,
    owned: ownerMessages(i.file.rows),
    timedNodes: [...new Set(i.times.map((t) => t.network))].map((network) => ({ network })),
  };
  j.latest = latestOf(j);
  const rows = i.liabilities.totals.map((t) => ({ t, ...candidatesOf(j, t) }));
  const moment = auditMoment(j, rows);
  const coins = rows.map((r) => judgeCoin(j, r, r.t, moment));
  const worst = Math.max(0, ...coins.map((c) => STATUS_RANK[c.status]));
  let verdict: SolvencyVerdict = (["solvent", "cannot-say", "unproven", "not-solvent"] as const)[
    worst
  ] as SolvencyVerdict;
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
  return {
    verdict,
    summary,
    verified: i.verified,
    ...reportFacts(i, { challenge, mine, given, ahead, messages }, coins),
    trusted,
    ...liabilitiesFacts(i.liabilities, mine),
    reserves_file: {
      file: i.source,
      format: i.report.format,
      verdict: i.report.verdict,
      summary: i.report.summary_text,
      disagreements: i.report.findings
        .filter((f) => f.step === "summary" && f.status === "fails")
        .map((f) => `${f.at ? `${f.at}: ` : ""}${f.text}`),
    },
    assets: coins,
  };
}
