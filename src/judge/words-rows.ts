/**
 * An exchange's address file judged row by row (exchange/ownership/verify.ts) and against itself
 * (file-steps.ts), typed — each reason a code, its subject, its numbers — and turned into words here, beside
 * words.ts (the judge's words, one place in two files: words.ts is at the structure's length bound): a row's
 * `reason` in `reserves verify`'s table, text lines, --json and CSV, and solvency's finding for the row, all
 * read these words.
 */

import { amountAtLeast, amountText } from "../util/units.js";

/**
 * One part of why a row stands as it does: the step that judged it first (a repeat, a signature over nothing
 * or reused, none, the row's own signature or its contract wallet's owners'), then what the later steps
 * added (the message signed, the balance read). A row's reason is its parts in order (`rowWords`).
 */
export type RowWhy =
  /** the same address of the same coin as the row at `line`, listed again with an amount */
  | { code: "listed-again"; coin: string; line: number }
  /** signed over an empty message */
  | { code: "signed-nothing" }
  /** a signature found in an older file (`from`: "FILE line N", where it was) */
  | { code: "reused"; from: string }
  /** no signature for the row's address */
  | { code: "no-signature" }
  /** the row's own signature as its judge found it (`detail`: exchange/ownership/judge.ts's words) */
  | { code: "signature"; detail: string }
  /** a contract wallet's owner whose signature fails (`owner`: who, `why`: its reason) */
  | { code: "owner-fails"; owner: string; why: OwnerWhy }
  /** a contract wallet's owners signed; whether they control `contract` needs a node */
  | { code: "owners-unchecked"; owners: string[]; contract: string }
  /** a contract wallet's owners signed; what the node read of the contract (`detail`: owners.ts's words) */
  | { code: "owners-read"; owners: string[]; detail: string }
  /** signed (by `owner`, a contract wallet's) over another text than the one --challenge requires */
  | { code: "not-the-challenge"; owner: string | null; message: string; required: string }
  /** a contract wallet's owners signed different texts (each owner's) */
  | { code: "owners-texts-differ"; signed: { address: string; message: string }[] }
  /** signed (by `owner`) over none of the texts files of `layout` sign (`known`) */
  | {
      code: "not-the-publishers";
      owner: string | null;
      message: string;
      layout: string;
      known: { texts: readonly string[]; year: boolean };
    }
  /** the balance read at the snapshot is less than claimed (`detail`: exchange/ownership/balances.ts's words) */
  | { code: "balance-less"; detail: string }
  /** the balance read at the snapshot holds the claim (`detail`: balances.ts's words) */
  | { code: "balance-holds"; detail: string }
  /** the row's node did not answer the read (`detail`: balances.ts's words) */
  | { code: "balance-unanswered"; detail: string }
  /**
   * signed, its amount (as the file states it: base units at `places`, null where they are not told; coins)
   * not re-read: no node given, or none for its `network`, or the read's own words (`detail`)
   */
  | {
      code: "amount-claimed";
      amount: string;
      base: boolean;
      places: number | null;
      network: string;
      unread: "no-node" | "no-node-for-it" | null;
      detail: string | null;
    };

/** Why a contract wallet's owner's signature proves nothing: none, over nothing, or its judge's finding. */
export type OwnerWhy =
  | { code: "owner-unsigned" }
  | { code: "signed-nothing" }
  | { code: "owner-signature"; form: string; detail: string };

/** A message as a row's reason quotes it: JSON-quoted, cut at 60 characters. */
const quoted = (m: string) => JSON.stringify(m.length > 60 ? `${m.slice(0, 60)}…` : m);

const SIGNED_NOTHING =
  "signed an empty message: a signature over nothing names no exchange and no date, and may be any old one";

const EXPECT = "(--challenge TEXT requires the one you expect)";

/** "owner 0x… " for a contract wallet's owner, "" for the row's own key. */
const by = (owner: string | null) => (owner === null ? "" : `owner ${owner} `);

/** The texts a layout's publisher signs: '"huobi" or "King will be back!"', '"OKC_DTT_AUP" and a year'. */
const knownText = (k: { texts: readonly string[]; year: boolean }): string => {
  const q = k.texts.map((t) => JSON.stringify(t));
  const list = q.length > 1 ? `${q.slice(0, -1).join(", ")} or ${q.at(-1)}` : (q[0] ?? "");
  return k.year ? `${list} and a year` : list;
};

/** An owner's reason: "no signature by this owner", "EVM EIP-191: signed by another key (0x…)". */
export function ownerWords(w: OwnerWhy): string {
  switch (w.code) {
    case "owner-unsigned":
      return "no signature by this owner";
    case "signed-nothing":
      return SIGNED_NOTHING;
    case "owner-signature":
      return `${w.form}: ${w.detail}`;
  }
}

/** One part of a row's reason in words (the first part alone, a later one with its joining words). */
function rowPartWords(w: RowWhy): string {
  switch (w.code) {
    case "listed-again":
      return `the same ${w.coin} address as line ${w.line}, listed again with an amount: its balance would count twice`;
    case "signed-nothing":
      return SIGNED_NOTHING;
    case "reused":
      return `signature reused from ${w.from}: it shows control when that file was made, not at this snapshot`;
    case "no-signature":
      return "unsigned: no signature for this address";
    case "signature":
      return w.detail;
    case "owner-fails":
      return `owner ${w.owner}: ${ownerWords(w.why)}`;
    case "owners-unchecked":
      return `owners ${w.owners.join(" and ")} signed; that they control the contract ${w.contract} needs a node (--node NET=URL), not checked`;
    case "owners-read":
      return `owners ${w.owners.join(" and ")} signed; ${w.detail}`;
    case "not-the-challenge":
      return `${by(w.owner)}signed over ${quoted(w.message)}, not the required message ${quoted(w.required)} (--challenge): a signature over another text shows nothing for this file`;
    case "owners-texts-differ":
      return `but its owners signed different texts (${w.signed.map((m) => `${m.address} ${quoted(m.message)}`).join(", ")}): one wallet's claim is one text its owners sign, so whose claim this is cannot be told ${EXPECT}`;
    case "not-the-publishers":
      return `but ${by(w.owner)}signed over ${quoted(w.message)}, none of the messages ${w.layout} files sign (${knownText(w.known)}): whose claim the signature makes cannot be told ${EXPECT}`;
    case "balance-less":
      return `but it ${w.detail}`;
    case "balance-holds":
      return `it ${w.detail}`;
    case "balance-unanswered":
      return `cannot say: ${w.detail}`;
    case "amount-claimed": {
      const amount = !w.base
        ? w.amount
        : w.places === null
          ? `${w.amount} base units`
          : amountText(BigInt(w.amount), w.places);
      const n = w.network;
      const why =
        w.unread === "no-node"
          ? `no node given (--node ${n}=URL)`
          : w.unread === "no-node-for-it"
            ? `no node reads ${n} (--node ${n}=URL)`
            : w.detail;
      return `signed, amount claimed: ${amount} not re-read on chain at the snapshot (${why})`;
    }
  }
}

/**
 * A row's reason in words, its parts in order: "EVM EIP-191: signed by 0x…; it holds 1.5 at block 7",
 * "owner 0x…: no signature by this owner".
 */
export const rowWords = (why: readonly RowWhy[]): string => why.map(rowPartWords).join("; ");

/** A row's finding line: "ETH 0x…: its reason", and when it has no balance, that it is not counted. */
export const rowLineWords = (coin: string, address: string, reason: string, uncounted: boolean): string =>
  `${coin} ${address}: ${reason}${uncounted ? " (no balance: not counted toward the verdict)" : ""}`;

/**
 * The address file against itself (file-steps.ts), typed: the coins whose places chaingw's tables do not
 * know, and each summary line against its rows — its coin, the total as written (`amount`), its height, and
 * the places its amounts are written at (`decimals`, the coin's; null: as written). Sums are exact decimals.
 */
export type FileFinding =
  /** amounts of coins whose decimal places no table of chaingw's gives, each with its lines */
  | { code: "places-unchecked"; coins: { coin: string; lines: number[] }[] }
  /** a total over a coin's variants ("BTC(ALL)"): shown, not compared */
  | { code: "summary-variants"; line: SummaryTotal }
  /** a total whose rows' base units chaingw cannot place: not compared */
  | { code: "summary-unplaced"; line: SummaryTotal }
  /** a total of a coin no row holds */
  | { code: "summary-unbacked"; line: SummaryTotal }
  /** a total its `rows` rows agree with: they `sum` to it (`base`: counted from base units) */
  | { code: "summary-agrees"; line: SummaryTotal; rows: number; sum: string; base: boolean }
  /** a total its rows do not agree with: they sum to `sum`, `more` (the rows or the summary) by `by` */
  | {
      code: "summary-disagrees";
      line: SummaryTotal;
      rows: number;
      sum: string;
      more: "rows" | "summary";
      by: string;
    };

/** A summary line's total: its coin, the amount as written, its height (null: none), its coin's decimals. */
export interface SummaryTotal {
  coin: string;
  amount: string;
  height: string | null;
  decimals: number | null;
}

/** A summary's amount written the one way: at its coin's decimals, never fewer places than it states. */
const totalText = (t: SummaryTotal, x: string): string =>
  t.decimals === null ? x : amountAtLeast(x, t.decimals);

/** "ETH: 5.283400000000000000 at height 16005122, as the file claims". */
const claimedText = (t: SummaryTotal): string =>
  `${t.coin}: ${totalText(t, t.amount)}${t.height ? ` at height ${t.height}` : ""}, as the file claims`;

/** "1 row", "12345 rows" (no separator: the words the summary step has always written). */
const rowsText = (n: number): string => `${n} row${n === 1 ? "" : "s"}`;

/** The file's own finding in words ("ETH: the file's summary says 5.2834…, its 3 rows sum to …"). */
export function fileWords(f: FileFinding): string {
  switch (f.code) {
    case "places-unchecked":
      return `decimal places not checked for ${f.coins.map((c) => `${c.coin} (line${c.lines.length === 1 ? "" : "s"} ${c.lines.join(", ")})`).join(", ")}: chaingw's coin tables do not know ${f.coins.length === 1 ? "that coin" : "those coins"} on ${f.coins.length === 1 ? "its network" : "their networks"}; the amounts are as written`;
    case "summary-variants":
      return `${claimedText(f.line)} (a total over the coin's variants: not compared with the rows)`;
    case "summary-unplaced":
      return `${claimedText(f.line)}; not compared with its rows: chaingw's coin tables do not know the decimal places of its base units`;
    case "summary-unbacked":
      return `${claimedText(f.line)}; no row of the file holds ${f.line.coin}: a claim the file's rows do not show, counted nowhere`;
    case "summary-agrees":
      return `${claimedText(f.line)}; its ${rowsText(f.rows)} sum to ${totalText(f.line, f.sum)}${f.rows && f.base ? " (base units, in coins)" : ""}`;
    case "summary-disagrees":
      return `${f.line.coin}: the file's summary says ${totalText(f.line, f.line.amount)}, its ${rowsText(f.rows)} sum to ${totalText(f.line, f.sum)}: the file does not agree with itself (the ${f.more} ${totalText(f.line, f.by)} more)`;
  }
}
