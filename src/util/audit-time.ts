/**
 * Solvency's one time rule, for chaingw's own proofs (`liabilities/solvency-audit.ts`) and an exchange's
 * address file (`exchange/ownership/solvency.ts`) alike: a snapshot proves for the liabilities only when its
 * block's time is within --max-gap of their date; either time unknown: cannot say. The texts, once.
 */
import { spanText } from "./text.js";

/** A snapshot whose block's time the node did not give: whether it is within --max-gap nobody can say. */
export const NO_BLOCK_TIME =
  "the node did not give its snapshot block's time: whether it is within --max-gap of the liabilities' date cannot be said";

/** Liabilities that state no date (an exchange's root without --liabilities-date): no gap can be judged. */
export const NO_LIABILITIES_DATE =
  "the liabilities state no date (--liabilities-date gives the one their root was published for): whether its snapshot is within --max-gap of them cannot be said";

/**
 * Unix seconds of an RFC 3339 date-time (one `isRfc3339` took). A leap second (23:59:60, which RFC 3339
 * allows and Date.parse refuses) is the second after :59, as POSIX time counts it; a text that still reads
 * as no time is NaN, which `timeFault` takes for a date not known.
 */
export function rfc3339Seconds(s: string): number {
  const leap = /^(.*T\d\d:\d\d:)60((?:\.\d+)?(?:Z|[+-]\d\d:\d\d))$/i.exec(s);
  return leap ? Date.parse(`${leap[1]}59${leap[2]}`) / 1000 + 1 : Date.parse(s) / 1000;
}

/** "3 min before the liabilities' date", "2 d 1 h after the liabilities' date". */
export const gapText = (seconds: number): string =>
  seconds === 0
    ? "at the liabilities' date"
    : `${spanText(seconds)} ${seconds < 0 ? "before" : "after"} the liabilities' date`;

/**
 * Why a snapshot proven on chain proves nothing for this audit's time: its block's time or the liabilities'
 * date not known (null, or no number) — cannot say; more than --max-gap apart — not proven. Undefined: within.
 */
export function timeFault(
  blockS: number | null | undefined,
  dateS: number | null,
  maxGap: { text: string; seconds: number },
): { why: string; cannotSay: boolean } | undefined {
  if (blockS == null || !Number.isFinite(blockS)) return { why: NO_BLOCK_TIME, cannotSay: true };
  if (dateS === null || !Number.isFinite(dateS)) return { why: NO_LIABILITIES_DATE, cannotSay: true };
  const gap = blockS - dateS;
  return Math.abs(gap) > maxGap.seconds
    ? { why: `its snapshot's block is ${gapText(gap)}: beyond --max-gap ${maxGap.text}`, cannotSay: false }
    : undefined;
}
