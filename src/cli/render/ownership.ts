/** `reserves verify` of an exchange's address file: the rows as a table, the amounts per coin, the verdict. */

import { decimalsOf, rowAmounts, rowAmountText } from "../../exchange/ownership/coins.js";
import type { OwnershipReport, RowStatus } from "../../exchange/ownership/verify.js";
import { style, table } from "../../output/human.js";
import { csvTable } from "../../util/csv.js";
import { renderFindings } from "./verdict.js";

const WORD: Record<RowStatus, string> = {
  proven: "proven",
  signed: "signed, amount claimed",
  failed: "FAILS",
  unsigned: "unsigned",
  unsupported: "not supported",
  "cannot-say": "not checked",
};

/**
 * What the chain said of a row's balance: at the snapshot's block, or (a value that judges nothing: TRON's
 * head-only reads) the head's, which is never shown as the snapshot's.
 */
function chainAmount(b: NonNullable<OwnershipReport["rows"][number]["balance"]>): string {
  if (b.value === null) return "not read";
  if (b.holds === null) return `head: ${b.value}, not the snapshot's`;
  return `chain: ${b.value}${b.block ? ` at ${b.block}` : ""}`;
}

/**
 * The per-coin sums of a file of base units in coin units, where every row of the coin has the same places
 * (exchange/ownership/coins.ts rowAmountText writes each row's).
 */
function coinSum(r: OwnershipReport): (amount: string, coin: string) => string {
  const network = new Map<string, string | undefined>();
  for (const x of r.rows) {
    const d = decimalsOf(x.coin, x.network);
    const before = network.get(x.coin);
    network.set(
      x.coin,
      network.has(x.coin) && (before === undefined || decimalsOf(x.coin, before) !== d)
        ? undefined
        : x.network,
    );
  }
  return (a, coin) => {
    const n = network.get(coin);
    return n === undefined && r.units === "base"
      ? `${a} base units`
      : rowAmountText(a, r.units, coin, n ?? "");
  };
}

/** `r` has been through escapeDeep (src/util/escape.ts): every string from the file is shown escaped. */
export function renderOwnership(r: OwnershipReport, color: boolean): string {
  const st = style(color);
  const inCoins = coinSum(r);
  const units =
    r.units === "base"
      ? "amounts in base units, shown in coins"
      : r.units === "none"
        ? "no amounts"
        : "amounts in coins";
  const lines = [`format     ${r.format} (${units})`];
  for (const s of r.summary)
    lines.push(`claim      ${s.coin}: ${s.amount}${s.height ? ` at height ${s.height}` : ""}`);
  const word = (x: RowStatus) =>
    x === "proven" ? st.good(WORD[x]) : x === "failed" || x === "unsigned" ? st.bad(WORD[x]) : WORD[x];
  lines.push(
    table(
      ["line", "coin", "address", "amount", "result", "form"],
      r.rows.map((x) => [
        String(x.line),
        x.coin,
        x.address + (x.wallet ? ` (owner of line ${x.wallet})` : ""),
        (x.amount === null ? "-" : rowAmountText(x.amount, r.units, x.coin, x.network)) +
          (x.balance ? ` (${chainAmount(x.balance)})` : ""),
        word(x.status),
        x.form ?? "",
      ]),
      color,
    ),
  );
  const coins = Object.entries(r.amounts);
  if (coins.length)
    lines.push(
      table(
        ["coin", "proven", "signed, claimed", "failed", "unsigned", "not supported", "not checked"],
        coins.map(([c, a]) => [
          c,
          ...[a.proven, a.signed, a.failed, a.unsigned, a.unsupported, a["cannot-say"]].map((v) =>
            inCoins(v, c),
          ),
        ]),
        color,
      ),
    );
  const c = r.counts;
  lines.push(
    `rows       ${c.rows}: ${c.proven} proven (signed; a claimed balance re-read), ${c.signed} signed with the amount claimed, ${c.failed} failed, ${c.unsigned} unsigned, ${c.unsupported} not supported, ${c.cannot_say} not checked`,
  );
  const at = (f: { at?: string; text: string }) => `${f.at ? `${f.at}: ` : ""}${f.text}`;
  // a declared token that reads the native coin, or whose node could not tell (the tracking probe)
  for (const f of r.findings) if (f.step === "tracking") lines.push(`tracking   ${at(f)}`);
  lines.push(
    ...renderFindings(
      {
        verdict: r.verdict,
        failures: r.findings.filter((f) => f.status === "fails").map(at),
        cannot_say: r.findings.filter((f) => f.status === "cannot-say").map(at),
        summary: r.summary_text,
      },
      color,
    ),
  );
  return lines.join("\n");
}

/** `reserves verify --format csv` of an exchange's address file: one row per row of the file, as judged. */
export const ownershipCsv = (r: OwnershipReport): string =>
  csvTable(
    [
      "line",
      "coin",
      "network",
      "address",
      "amount",
      "base_units",
      "result",
      "form",
      "chain_balance",
      "chain_block",
      "reason",
    ],
    r.rows.map((x) => {
      const a =
        x.amount === null ? { amount: "", base_units: "" } : rowAmounts(x.amount, r.units, x.coin, x.network);
      return [
        x.line,
        x.coin,
        x.network,
        x.address,
        a.amount,
        a.base_units,
        x.status,
        x.form ?? "",
        x.balance?.value ?? "",
        x.balance?.block ?? "",
        x.reason,
      ];
    }),
  );
