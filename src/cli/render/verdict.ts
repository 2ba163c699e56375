/** How every proof check prints its verdict: the proof's claims, each finding, and the verdict line. */
import { type Style, style } from "../../output/human.js";
import { VERDICT_WORDS, type Verdict } from "../../reserves/verdict.js";
import { escapeUnprintable } from "../../util/escape.js";

/** A finding that fails the proof, as its line. */
export const failsLine = (f: string, st: Style): string => st.bad(`FAILS: ${f}`);

/** A finding the chain could not settle, as its line. */
export const cannotSayLine = (f: string): string => `CANNOT SAY: ${f}`;

/** The findings and the verdict line, as every proof check prints them. */
export function renderFindings(
  r: { verdict: Verdict; failures: string[]; cannot_say: string[]; summary: string },
  color: boolean,
): string[] {
  const st = style(color);
  const lines: string[] = [];
  for (const f of r.failures) lines.push(failsLine(f, st));
  for (const f of r.cannot_say) lines.push(cannotSayLine(f));
  // the summary of a failing or undecided check says so itself ("the proof does not hold: ...")
  const v = r.verdict === "holds" ? `${VERDICT_WORDS.holds}: ${r.summary}` : r.summary;
  lines.push(r.verdict === "holds" ? st.good(v) : r.verdict === "fails" ? st.bad(v) : v);
  return lines;
}

/** The proof's claims: what it states that no chain confirms, shown as such. */
export function renderClaims(claims: Record<string, string | number | null | undefined>): string[] {
  const rows = Object.entries(claims).filter(([, v]) => v !== undefined);
  return rows.map(
    ([k, v]) =>
      `claim      ${k}: ${v === null ? "none" : typeof v === "string" ? `"${escapeUnprintable(v)}"` : v}`,
  );
}

/** verify --quorum: the nodes the proof was checked on, as they described themselves. */
export function renderQuorum(
  r: {
    verdict: string;
    quorum?: {
      k: number;
      nodes: { client: string; chain: string; height: number; url?: string; verdict?: Verdict }[];
    };
  },
  color: boolean,
): string[] {
  if (!r.quorum) return [];
  const st = style(color);
  // each node by URL (credentials stripped) and what it says of itself, and what it said of the proof
  const names = r.quorum.nodes.map(
    (n, i) =>
      `node ${i + 1}${n.url ? ` at ${n.url}` : ""} (${n.client}, chain ${n.chain}, tip ${n.height})${n.verdict ? `: ${VERDICT_WORDS[n.verdict]}` : ""}`,
  );
  return [
    `quorum     ${r.verdict === "fails" ? st.bad("FAILS") : r.verdict === "cannot-say" ? "CANNOT SAY" : st.good("ok")}  checked on ${r.quorum.k} nodes: ${names.join("; ")}`,
  ];
}
