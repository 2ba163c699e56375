/** `liabilities verify`'s report, whatever the format: chaingw's own proofs' verdicts, or an exchange's check. */

import type { LiabilitiesReport } from "../../formats/registry.js";
import type { LiabilitiesVerdict } from "../../liabilities/verify.js";
import { decimalsOf } from "../../liabilities/verify-table.js";
import { quoted } from "../../util/text.js";
import { amountText } from "../../util/units.js";
import type { Run } from "../run.js";
import { renderInclusion } from "./inclusion.js";

/**
 * The report in the run's format: its JSON (compact, `--pretty` indented; JSON Lines for several proofs) or
 * text; `title`: the format's.
 */
export function printLiabilities(
  r: LiabilitiesReport,
  title: string,
  run: Pick<Run, "print" | "printLines">,
) {
  if (r.kind === "inclusion") return run.print(r.check, () => renderInclusion(r.check, title));
  const one = r.verdicts.length === 1 ? r.verdicts[0] : undefined;
  if (one) return run.print(one, () => renderVerdict(one));
  run.printLines(r.verdicts, renderVerdict);
}

/**
 * `customer "8812": 1.25000000 BTC and 310.000000 USDT included in the liabilities committed as <digest> ("snapshot
 * 2026-11-30", created 2026-11-30T00:00:00Z, for the audit "…")` and, on a line below, whether the root binds
 * the totals; or what failed. Every string from a file is escaped.
 */
export function renderVerdict(v: LiabilitiesVerdict): string {
  // each amount the one way, at its asset's decimals (the commitment's: the balance's amount writes its base units at them)
  const held = v.balances
    .filter((b) => b.base_units !== "0")
    .map((b) => `${amountText(BigInt(b.base_units), decimalsOf(b.amount, b.base_units))} ${b.asset}`);
  const what = held.length ? held.join(held.length === 2 ? " and " : ", ") : "a zero balance";
  // root: the tree's top hash, what the exchange announces; digest: the commitment document's SHA-256
  const where =
    v.created === ""
      ? `the liabilities whose root is ${v.root} (the root given with --root; no commitment read)`
      : `the liabilities whose root is ${v.root} (${v.label !== undefined ? `${quoted(v.label)}, ` : ""}created ${quoted(v.created)}${v.challenge !== undefined ? `, for the audit ${quoted(v.challenge)}` : ""}; commitment digest ${v.commitment})`;
  // whether the root binds the totals, said in every verdict that holds (a failing one names it among its faults)
  const totals = v.findings.find((f) => f.step === "totals");
  // and, when it does not bind the asset table (v1, v2: by position only), that too
  const names = v.findings.find((f) => f.step === "names" && f.status !== "ok");
  if (v.verdict === "holds")
    return `customer ${quoted(v.customer)}: ${what} included in ${where}${[totals, names].map((f) => (f ? `\n  ${f.text}` : "")).join("")}`;
  return [
    `customer ${quoted(v.expected_customer ?? v.customer)}: NOT proven in ${where}`,
    ...v.faults.map((f) => `  - ${f}`),
  ].join("\n");
}
