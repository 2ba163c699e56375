/**
 * Every output and balance of chaingw's own proofs as solvency judged it, one line each (judge/report.ts
 * `HoldingLine`): recorded by the judge as it counts (solvency.ts `tallyProof`), its finding typed and worded
 * once (judge/words.ts), so the package's rows.csv lists what the judge decided and adds up to its sums — the
 * renderer re-derives nothing.
 */
import { type NetworkId, networkLabel } from "../chains/assets.js";
import { type Holding, holdingName, Ledger, provenFor, type ReadStatus } from "../judge/holding.js";
import { datedAhead, type SpentAt, spentBy } from "../judge/moment.js";
import type { HoldingLine } from "../judge/report.js";
import {
  type AuditFault,
  type HeldAt,
  type HoldingFinding,
  holdingWords,
  isAuditFault,
} from "../judge/words.js";
import { amountOf } from "../util/units.js";
import { isoOf } from "./solvency-audit.js";
import { heightOf, whatIs } from "./solvency-identity.js";
import type { Backing, ReserveStatus, SolvencyAsset } from "./solvency-types.js";

/** One output or balance of a proof: where it is stated, its address and amount as the document writes it. */
export interface Stated {
  source: string;
  address: string;
  /** the amount in coin units as the document states it */
  amount: string;
}

/** The lines of one asset's holdings, in the order the judge met them. */
export class HoldingList {
  readonly lines: HoldingLine[] = [];
  /** the ledger's key → the line counted for it */
  private readonly counted = new Map<string, number>();
  constructor(
    private readonly asset: string,
    private readonly decimals: number,
  ) {}

  private line(is: string, s: Stated, status: HoldingLine["status"], finding: HoldingFinding): HoldingLine {
    const amount = amountOf(s.amount, this.decimals);
    return {
      asset: this.asset,
      source: s.source,
      network: is,
      address: s.address,
      claimed: amount,
      proven: status === "proven" ? amount : amountOf("0", this.decimals),
      status,
      finding,
      code: finding.code,
      why: holdingWords(finding),
    };
  }

  /** A holding the judge did not count (spent by the snapshot, its proof not counted, …). */
  notCounted(is: string, s: Stated, finding: HoldingFinding): void {
    this.lines.push(this.line(is, s, "not counted", finding));
  }

  /**
   * A holding counted under the ledger's `key` (proven or claimed, `finding` says why). A repeat of one counted
   * is not counted again — unless it is what proves it (`proves`: the ledger took its amount), when the earlier
   * line gives way to it.
   */
  count(
    key: string,
    is: string,
    s: Stated,
    finding: HoldingFinding,
    repeat: { first: string; proves: boolean } | undefined,
  ): void {
    const status = finding.code === "proven" ? "proven" : "claimed";
    const k = this.counted.get(key);
    // a repeat, or one that proves a holding first counted for another asset (its line is that asset's): once
    if (repeat && (!repeat.proves || k === undefined)) {
      this.notCounted(is, s, { code: "counted-once", first: repeat.first });
      return;
    }
    if (repeat && k !== undefined) {
      const was = this.lines[k] as HoldingLine;
      const f: HoldingFinding = { code: "counted-once", first: s.source };
      this.lines[k] = {
        ...was,
        proven: amountOf("0", this.decimals),
        status: "not counted",
        finding: f,
        code: f.code,
        why: holdingWords(f),
      };
    }
    this.counted.set(key, this.lines.length);
    this.lines.push(this.line(is, s, status, finding));
  }

  /** A proof none of whose holdings was listed (no outputs, no balance above zero): the proof as one line. */
  proof(
    from: number,
    b: Backing,
    is: string,
    p: { counted: boolean; claimed: string; proven: string; finding: HoldingFinding },
  ): void {
    if (this.lines.length > from) return;
    const f = p.finding;
    this.lines.push({
      asset: this.asset,
      source: `${b.file}${b.id ? `#${b.id}` : ""}`,
      network: is,
      address: "",
      claimed: amountOf(p.counted ? p.claimed : "0", this.decimals),
      proven: amountOf(p.counted ? p.proven : "0", this.decimals),
      status: !p.counted ? "not counted" : /[1-9]/.test(p.proven) ? "proven" : "claimed",
      finding: f,
      code: f.code,
      why: holdingWords(f),
    });
  }
}

/** A proof's outputs (UTXO) or balances above zero (EVM), as the document states them. */
export function statedOf(b: Backing): (Stated & { key: string })[] {
  if (b.utxo)
    return b.utxo.outputs.map((o) => ({
      key: `${o.txid}:${o.vout}`,
      source: `${b.file} ${o.txid}:${o.vout}`,
      address: o.matched,
      amount: o.amount,
    }));
  const a = b.evm?.assets.find((x) => x.id === (b.id ?? "native"));
  return (a?.balances ?? [])
    .filter((x) => x.base_units !== "0")
    .map((x) => ({
      key: x.address,
      source: `${b.file}${b.id ? `#${b.id}` : ""}`,
      address: x.address,
      amount: x.amount,
    }));
}

/** Every counted output or balance once (the ledger, judge/holding.ts), and what was not counted and why. */
export interface Tally {
  ledger: Ledger;
  overlap: string[];
  overlaps: number;
  spentBefore: number;
  spentBeforeCommitment: Map<string, SolvencyAsset["spent_before_commitment"][number]>;
  movedBeforeMoment: SolvencyAsset["spent_before_commitment"];
  /** outputs whose spend cannot be placed before or after a bound (a block dated ahead): cannot say */
  datedAhead: SolvencyAsset["spent_dated_ahead"];
  /** every output and balance as judged, one line each (rows.csv) */
  list: HoldingList;
}

export const OVERLAP_NAMED = 20;

/**
 * What one counted proof states at its network's joint height `at` (its own claimed and proven base units,
 * overlaps included); the tally keeps each coin once, proven when any proof that proves for this audit
 * (`proving`: it holds, over the audit's challenge, in time) proved it. An output spent at or below `at`, or
 * in a block whose time is at or before the commitment's `created` (`createdS`), is not counted; nor, on a
 * network read before the audit's moment (`momentS`: the latest of every chain's snapshot), one spent in a
 * block whose time is at or before that moment — it may back the asset again on the later chain.
 */
export function tallyProof(
  t: Tally,
  b: Backing,
  network: NetworkId,
  at: number,
  audit: {
    check: ReserveStatus;
    notFor: AuditFault | undefined;
    challenge: string | null;
    scale: number;
  },
  when: { createdS: number | null; momentS: number | null },
  mirror: boolean,
): { claimed: bigint; proven: bigint } {
  const v = b.entry.verify;
  const owned = new Set(v?.owned ?? []);
  const unsigned = new Set(v?.unsigned ?? []);
  let claimed = 0n;
  let proven = 0n;
  // each holding's line (rows.csv) as judged here: its finding typed (judge/words.ts)
  const is = whatIs(b, network);
  const stated = new Map(statedOf(b).map((x) => [x.key, x]));
  const where: HeldAt = b.utxo ? { height: at } : { block: heightOf(b) };
  const skip = (key: string, f: HoldingFinding) => {
    const x = stated.get(key);
    if (x) t.list.notCounted(is, x, f);
  };
  const add = (h: Pick<Holding, "kind" | "contract" | "key" | "address" | "amount">, fault?: AuditFault) => {
    // a holding's own fault (a spend that cannot be placed) where its proof has none
    const notFor = audit.notFor ?? fault;
    const record = ownHolding(b, network, at, h, owned, { ...audit, notFor }, unsigned);
    claimed += h.amount;
    const proves = provenFor(record, audit.challenge);
    if (proves) proven += h.amount;
    const key = Ledger.keyOf(record);
    const before = t.ledger.entries.get(key)?.proven;
    const first = t.ledger.count(record, b.asset);
    if (first && t.overlaps++ < OVERLAP_NAMED)
      t.overlap.push(`${holdingName(record)} is in ${first.first.source} and ${b.file}: counted once`);
    const x = stated.get(h.key);
    if (x)
      t.list.count(
        key,
        is,
        x,
        notFor !== undefined
          ? notFor
          : !v
            ? { code: "not-verified", at: where }
            : !owned.has(h.address)
              ? { code: "unsigned", at: where }
              : !proves
                ? { code: "proof-not-proving", at: where, check: audit.check }
                : { code: "proven", at: where },
        first ? { first: first.first.source, proves: proves && before === false } : undefined,
      );
  };
  if (b.utxo) {
    for (const o of b.utxo.outputs) {
      const key = `${o.txid}:${o.vout}`;
      const spent = v?.spent[key];
      const gone = spent === undefined ? undefined : spentFinding(t, network, key, spent, at, when);
      if (gone && !isAuditFault(gone)) {
        skip(key, gone);
        continue;
      }
      add({ kind: "output", key, address: o.matched, amount: BigInt(o.amount_sats) }, gone);
    }
  } else {
    const a = b.evm!.assets.find((x) => x.id === b.id)!;
    // a native mirror's balance is the native coin's: one key, so native and mirror count once
    const contract = mirror || a.id === "native" ? undefined : a.id;
    for (const bal of a.balances)
      add({
        kind: "balance",
        ...(contract ? { contract } : {}),
        key: bal.address,
        address: bal.address,
        amount: BigInt(bal.base_units),
      });
  }
  return { claimed, proven };
}

/**
 * Why an output spent in block `spent` is not counted (the tally notes it): spent at or below the joint height
 * `at`; gone when the liabilities were counted (or when, the node did not say) — liabilities of no date prove
 * nothing for the audit (NO_LIABILITIES_DATE), and the output stands as claimed —; or moved before the audit's
 * moment (not shown still held when its other chains were read). An audit fault (`spend-dated-ahead`): its
 * block is stamped after the bound but its median time past is not — counted as "cannot say". undefined: it
 * counts.
 */
function spentFinding(
  t: Tally,
  network: NetworkId,
  key: string,
  spent: SpentAt,
  at: number,
  { createdS, momentS }: { createdS: number | null; momentS: number | null },
): HoldingFinding | undefined {
  const time = spent.time === null ? null : isoOf(spent.time);
  if (spent.height <= at) {
    t.spentBefore++;
    return { code: "spent-by-snapshot", block: spent.height, joint: at };
  }
  if (spentBy(spent, createdS)) {
    t.spentBeforeCommitment.set(`${networkLabel(network)} ${key}`, {
      output: key,
      height: spent.height,
      time,
    });
    return { code: "spent-before-liabilities", block: spent.height, time };
  }
  if (spentBy(spent, momentS)) {
    t.movedBeforeMoment.push({ output: key, height: spent.height, time });
    return { code: "moved-before-moment", block: spent.height, time };
  }
  // stamped after the bound, its median time past not: the chain cannot place the spend (judge/moment.ts)
  for (const [s, bound] of [
    [createdS, "liabilities"],
    [momentS, "moment"],
  ] as const) {
    const median = datedAhead(spent, s);
    if (median === undefined || time === null || s === null) continue;
    const fault = {
      code: "spend-dated-ahead",
      block: spent.height,
      time,
      median: isoOf(median),
      bound,
      bound_time: isoOf(s),
    } as const;
    t.datedAhead.push({ output: key, height: spent.height, fault });
    return fault;
  }
  return undefined;
}

/** What the proof's verifier read, as the evidence model's words (judge/holding.ts). */
export const READ: Record<ReserveStatus, ReadStatus> = {
  holds: "proven",
  fails: "failed",
  "cannot-say": "cannot-say",
  "not-verified": "claimed",
};

/**
 * One output or balance of a proof as a holding record: its chain as the verifier re-derived it (else as
 * claimed), the proof's joint height and block time, the text its signatures are over and whether its
 * address's signature holds, what the verifier re-read, and why it proves nothing for this audit, if so.
 */
function ownHolding(
  b: Backing,
  network: NetworkId,
  at: number,
  h: Pick<Holding, "kind" | "contract" | "key" | "address" | "amount">,
  owned: Set<string>,
  audit: { check: ReserveStatus; notFor: AuditFault | undefined; scale: number },
  unsigned: Set<string>,
): Holding {
  return {
    ...h,
    source: b.file,
    chain: network,
    scale: audit.scale,
    // an output is judged at its chain's snapshot (unspent there); a balance stands at its own block
    snapshot: { height: b.evm ? heightOf(b) : at, time: b.entry.verify?.block_time ?? null },
    // an address no signature line names signed no text: never proven, nor what might be (judge/holding.ts)
    signed: {
      text: unsigned.has(h.address) ? null : b.entry.claims.challenge,
      by: h.address,
      valid: owned.has(h.address),
    },
    read: READ[audit.check],
    ...(audit.notFor === undefined ? {} : { fault: audit.notFor }),
  };
}
