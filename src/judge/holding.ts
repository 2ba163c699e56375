/**
 * One evidence model (issue 55, item 1): every holding `solvency` judges — an output or a balance of chaingw's
 * own reserve proofs, a row of an exchange's address file — is one typed record, translated by its reader
 * (`liabilities/solvency.ts` for the proofs, `exchange/ownership/holdings.ts` for the rows), and the rules
 * that need only records are here, once: proven = signed over the audit's challenge AND re-read on chain AND
 * no fault of the audit's (time, moment); one balance counts once (the same chain, contract and address, or
 * the same outpoint), proven where any record of it is; the sums, exact.
 */
import { type NetworkId, networkLabel } from "../chains/assets.js";
import { AUDIT_FAULT_UNTOLD, type AuditFault } from "./words.js";

/** What was re-read on chain: held at the snapshot, not read (as the document claims it), less, not told. */
export type ReadStatus = "proven" | "claimed" | "failed" | "cannot-say";

export interface Holding {
  /** where it is stated: a proof file (and #id), or an address file's line */
  source: string;
  /** an output (keyed by its outpoint) or an address's balance */
  kind: "output" | "balance";
  /** the chain as its node answered (genesis hash / chain id), else the name the document gives it */
  chain: NetworkId | string;
  /** the contract; undefined: the chain's own coin */
  contract?: string;
  /** what makes it one holding on its chain and contract: the outpoint, or the address in its one spelling */
  key: string;
  /** the address that holds it, as the document writes it */
  address: string;
  /** the amount in base units at `scale` places, at full precision */
  amount: bigint;
  scale: number;
  /** the snapshot it stands at: its height or block, and that block's time (Unix seconds; null: not read) */
  snapshot: { height: number; time: number | null } | null;
  /**
   * the text its signature covers (null: none signed) — the document's own (a proof's challenge, a row's
   * message, a contract wallet's owners'), one string shared by every holding that signs it, never a copy per
   * holding —, the key that signed it (the address; a contract wallet: its owners) and whether that signature
   * was judged valid
   */
  signed: { text: string | null; by: string; valid: boolean };
  /** what was re-read on chain */
  read: ReadStatus;
  /** why, signed and read, it proves nothing for this audit (out of time, before the moment, …), typed */
  fault?: AuditFault;
}

/** Proven for this audit: signed over its challenge (none: nothing is), re-read on chain, and no fault. */
export const provenFor = (h: Holding, challenge: string | null): boolean =>
  challenge !== null &&
  h.signed.valid &&
  h.signed.text === challenge &&
  h.read === "proven" &&
  h.fault === undefined;

/**
 * Not proven, and whether it is cannot be said: stated over the audit's challenge and its node could not say
 * (what it re-read, its signatures), or signed and read but whether for this audit cannot be told (its time or
 * moment not told). What might be proven: the judge's "cannot say" (status.ts) weighs it. A holding whose key
 * signed nothing (`signed.text` null: an address of a proof no signature line names) never might be.
 */
export const unknownFor = (h: Holding, challenge: string | null): boolean =>
  challenge !== null &&
  h.signed.text === challenge &&
  (h.read === "cannot-say" ||
    (h.signed.valid && h.read === "proven" && h.fault !== undefined && AUDIT_FAULT_UNTOLD.has(h.fault.code)));

/** One balance or output: the record that first stated it, the asset it counts for, and how it stands. */
export interface Entry {
  first: Holding;
  asset: string;
  /** proven for this audit by any record of it; at that record's amount */
  proven: boolean;
  unknown: boolean;
  amount: bigint;
  scale: number;
}

/**
 * Each holding once: the same chain, contract and key (outpoint, or address) is one, however many records
 * state it. A record that repeats one counted is not counted again (`count` names the first); a repeat proven
 * for the audit makes the entry proven, at the amount it re-read (never at an earlier document's word).
 */
export class Ledger {
  readonly entries = new Map<string, Entry>();
  constructor(private readonly challenge: string | null) {}

  static keyOf(h: Holding): string {
    return `${h.chain}|${h.contract ?? ""}|${h.key}`;
  }

  /** Counts `h` for `asset`: undefined when first, else the entry it repeats. */
  count(h: Holding, asset: string): Entry | undefined {
    const k = Ledger.keyOf(h);
    const proven = provenFor(h, this.challenge);
    const first = this.entries.get(k);
    if (first === undefined) {
      this.entries.set(k, {
        first: h,
        asset,
        proven,
        unknown: unknownFor(h, this.challenge),
        amount: h.amount,
        scale: h.scale,
      });
      return undefined;
    }
    if (proven && !first.proven)
      Object.assign(first, { proven, unknown: false, amount: h.amount, scale: h.scale });
    else if (!first.proven && !first.unknown && unknownFor(h, this.challenge))
      Object.assign(first, { unknown: true, amount: h.amount, scale: h.scale });
    return first;
  }

  /** The asset's sums at `scale` places (never fewer than any amount's): claimed, proven, and proven but not told for this audit. */
  sums(asset: string, scale: number): { claimed: bigint; proven: bigint; unknown: bigint } {
    let [claimed, proven, unknown] = [0n, 0n, 0n];
    for (const e of this.entries.values()) {
      if (e.asset !== asset) continue;
      const v = e.amount * 10n ** BigInt(scale - e.scale);
      claimed += v;
      if (e.proven) proven += v;
      else if (e.unknown) unknown += v;
    }
    return { claimed, proven, unknown };
  }
}

/** A holding named in words: "Litecoin regtest txid:vout", "anvil (chain id 31337) native 0x…". */
export function holdingName(h: Holding): string {
  const on = networkLabel(h.chain as NetworkId);
  return h.kind === "output" ? `${on} ${h.key}` : `${on} ${h.contract ?? "native"} ${h.address}`;
}
