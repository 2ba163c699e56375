/**
 * What an exchange's solvency report says of the audit and the liabilities beside its coins (solvency.ts judges
 * the coins): the audit's text and whence, the date and the gap, the texts the rows sign, and chaingw's
 * commitment or the exchange's root.
 */
import { largestGap, type SolvencyAsset, type SolvencyReport } from "../../judge/report.js";
import type { ExchangeLiabilities } from "./solvency.js";

/** The audit the report answers (its text and whence, the date, the gap) and the texts the rows sign. */
export function reportFacts(
  i: { source: string; liabilities: ExchangeLiabilities; maxGap: { text: string; seconds: number } },
  t: {
    challenge: string | null;
    mine: string | null;
    given: string | null;
    ahead?: string;
    messages: string[];
  },
  coins: SolvencyAsset[],
): Pick<SolvencyReport, "audit" | "challenges"> {
  const { challenge, mine, given } = t;
  return {
    audit: {
      challenge,
      from:
        mine !== null && given !== null
          ? "commitment and --challenge"
          : mine !== null
            ? "commitment"
            : given !== null
              ? "--challenge"
              : null,
      commitment_challenge: i.liabilities.commitment ? mine : null,
      given_challenge: given,
      created: i.liabilities.date,
      max_gap: i.maxGap.text,
      max_gap_seconds: i.maxGap.seconds,
      gap: largestGap(coins.flatMap((c) => c.snapshots)),
      faults: t.ahead ? [t.ahead] : [],
    },
    challenges: t.messages.map((text) => ({ text, files: [i.source], for_this_audit: text === challenge })),
  };
}

/** The liabilities as the report names them: chaingw's commitment, or an exchange's root (and why not relied on). */
export function liabilitiesFacts(
  l: ExchangeLiabilities,
  mine: string | null,
): Pick<SolvencyReport, "commitment" | "exchange_liabilities"> {
  const note = l.fails ?? l.cannot_say;
  return l.commitment
    ? {
        commitment: {
          root: l.root as string,
          digest: l.commitment.digest,
          ...(l.commitment.label ? { label: l.commitment.label } : {}),
          challenge: mine,
          created: l.date as string,
          digest_ok: !l.fails,
        },
      }
    : { exchange_liabilities: { source: l.source, root: l.root, date: l.date, ...(note ? { note } : {}) } };
}
