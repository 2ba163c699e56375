/**
 * Solvency's "one audit, one time" rules: the liabilities whichever document holds them, the audit's
 * challenge (the commitment's, --challenge's), why a holding proof proves nothing for this audit, and each
 * network's snapshot with its block's time against the liabilities' created.
 */
import { type NetworkId, networkLabel } from "../chains/assets.js";
import { timeFault } from "../judge/moment.js";
import { type AuditFault, gapText, howTextsDiffer, totalsStatus, totalsWords } from "../judge/words.js";
import { rfc3339Seconds } from "../util/audit-time.js";
import { aheadOfClock, isoOf } from "../util/text.js";
import { amountText } from "../util/units.js";
import { commitmentFaults } from "./commitment.js";
import { heightOf } from "./solvency-identity.js";
import type {
  Audit,
  Backing,
  ExchangeOwed,
  Snapshot,
  SolvencyInput,
  SolvencyReport,
} from "./solvency-types.js";

export { snapshotText } from "../judge/report.js";
export { howTextsDiffer, isoOf };

export const q = (t: string) => JSON.stringify(t);

/** The liabilities as solvency judges them, whichever document they come from. */
export interface Owed {
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

export function owedOf(i: SolvencyInput): Owed {
  if (i.commitment) {
    const c = i.commitment;
    const t = i.commitmentTotals;
    const status = t && totalsStatus(t);
    return {
      assets: c.assets,
      totals: c.totals.map((t) => ({ amount: t.amount, base_units: BigInt(t.base_units) })),
      created: c.created,
      challenge: c.challenge ?? null,
      name: "the commitment",
      ...(commitmentFaults(c).length
        ? { fails: "the liabilities commitment was edited: its digest does not match its content" }
        : status === "fails"
          ? { fails: `the liabilities commitment does not hold: ${totalsWords(t!)}` }
          : {}),
      ...(status === "cannot-say"
        ? { cannotSay: `the liabilities cannot be relied on: ${totalsWords(t!)}` }
        : {}),
    };
  }
  const x = i.exchange as ExchangeOwed;
  return {
    assets: x.totals.map((t) => ({ asset: t.asset, decimals: t.decimals })),
    totals: x.totals.map((t) => ({
      amount: amountText(t.base_units, t.decimals),
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
export function auditOf(i: SolvencyInput, owed: Owed): Audit {
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
  const createdS = owed.created === null ? null : rfc3339Seconds(owed.created);
  const ahead =
    createdS === null ? undefined : aheadOfClock(owed.name, owed.created as string, createdS, i.now);
  if (ahead) faults.push(ahead);
  return {
    challenge,
    from,
    commitment_challenge: mine,
    given_challenge: given,
    created: owed.created,
    max_gap: i.maxGap.text,
    max_gap_seconds: i.maxGap.seconds,
    // the snapshots' largest gap, once the assets are judged (solvency.ts)
    gap: null,
    faults,
  };
}

/** Why a holding proof proves nothing for this audit, typed (undefined when it does). */
export function notForAudit(b: Backing, audit: Audit, snap: Snapshot | undefined): AuditFault | undefined {
  if (audit.faults.length) return { code: "audit-terms" };
  const text = b.entry.claims.challenge;
  if (audit.challenge === null) return { code: "no-challenge" };
  if (text === null) return { code: "proof-unchallenged" };
  if (text !== audit.challenge) return { code: "other-challenge", text, challenge: audit.challenge };
  // the one time rule of both solvency paths (judge/moment.ts)
  return timeFault(
    snap?.block_time == null ? null : rfc3339Seconds(snap.block_time),
    audit.created === null ? null : rfc3339Seconds(audit.created),
    { text: audit.max_gap, seconds: audit.max_gap_seconds },
  );
}

/** One network's snapshot at its joint height, with the time the verifying node gives its block. */
export function snapshotOf(
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

/** The proofs' challenges, each with the files signed over it, in the order first met. */
export function challengesOf(backings: Backing[], audit: Audit): SolvencyReport["challenges"] {
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
