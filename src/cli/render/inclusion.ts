/** An exchange's customer inclusion proof, judged: the format, the balances, each finding, the verdict. */
import type { InclusionCheck } from "../../exchange/liabilities/check.js";
import { VERDICT_WORDS } from "../../reserves/verdict.js";
import { escapeUnprintable } from "../../util/escape.js";

/** Text from a file printed as data: control characters escaped, never passed to the terminal. */
const safe = escapeUnprintable;

const WORD = { ok: "ok", fails: "FAILS", "cannot-say": "CANNOT SAY", claim: "claim" } as const;

export function renderInclusion(r: InclusionCheck, title: string): string {
  const lines = [`format     ${r.format}: ${title}`];
  const held = r.balances.map((b) => `${b.amount} ${b.asset}`).join(", ");
  lines.push(`balances   ${held ? safe(held) : "none in the file"}`);
  for (const f of r.findings)
    lines.push(`${WORD[f.status].padEnd(10)} ${f.step}${f.at ? ` [${safe(f.at)}]` : ""}: ${safe(f.text)}`);
  const root = r.root === null ? "no root reached" : `root ${safe(r.root)}`;
  const source =
    r.root === null
      ? ""
      : r.root_source === "given"
        ? " (the root given by --root)"
        : " (the file's own root)";
  lines.push(`${VERDICT_WORDS[r.verdict]}: ${root}${source}`);
  return lines.join("\n");
}
