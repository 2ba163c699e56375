/** An exchange's customer inclusion proof, judged: the format, the balances, each finding, the verdict. */
import type { InclusionCheck } from "../../exchange/liabilities/check.js";
import { coinAmountText } from "../../exchange/ownership/places.js";
import { VERDICT_WORDS } from "../../reserves/verdict.js";
import { escapeUnprintable } from "../../util/escape.js";

/** Text from a file printed as data: control characters escaped, never passed to the terminal. */
const safe = escapeUnprintable;

const WORD = { ok: "ok", fails: "FAILS", "cannot-say": "CANNOT SAY", claim: "claim" } as const;

export function renderInclusion(r: InclusionCheck, title: string): string {
  const lines = [`format     ${r.format}: ${title}`];
  // each amount the one way: at its coin's decimals where chaingw's tables know the coin (issue 59 item 6)
  const held = r.balances
    .map((b) =>
      b.amount === null
        ? `${b.base_units} base units of ${b.asset}`
        : `${coinAmountText(b.asset, b.amount)} ${b.asset}`,
    )
    .join(", ");
  lines.push(`balances   ${held ? safe(held) : "none in the file"}`);
  for (const f of r.findings)
    lines.push(`${WORD[f.status].padEnd(10)} ${f.step}${f.at ? ` [${safe(f.at)}]` : ""}: ${safe(f.text)}`);
  const root = r.root === null ? "no root reached" : `root ${safe(r.root)}`;
  const source =
    r.root === null
      ? ""
      : r.root_source === "given"
        ? " (the root given by --root)"
        : r.root_source === "anchor"
          ? " (the root of the anchor file, --anchor)"
          : r.root_source === "none"
            ? " (reached by the path; no root to compare it with)"
            : " (the file's own root)";
  // what a holding path does not show, in every verdict: whether the root's total is bound at all
  const total =
    r.sum_binding === "total"
      ? `; ${r.format}'s nodes bind only their children's total: the root's total can be understated without any customer noticing`
      : r.sum_binding === "none"
        ? `; ${r.format}'s tree carries no sums: the root bounds no total (zk proofs not verified)`
        : r.sum_binding === "inclusion-only"
          ? `; ${r.format}'s tree hashes no sums: it shows inclusion only, and the root bounds no total`
          : "";
  const unbound =
    r.totals_binding === "ambiguous"
      ? "; the customer's leaf is judged above, but the root's hash does not bind its totals: cannot say what is owed"
      : "";
  lines.push(`${VERDICT_WORDS[r.verdict]}: ${root}${source}${total}${unbound}`);
  return lines.join("\n");
}
