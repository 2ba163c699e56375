/** `reserves sign-help` for people and spreadsheets: a table of each address's way to sign, and the file to fill. */
import { table } from "../../output/human.js";
import type { SignWay } from "../../reserves/sign-help.js";
import { csvTable } from "../../util/csv.js";

const HEAD = ["address", "kind", "form", "command"];
const row = (w: SignWay) => [
  w.address,
  w.kind,
  w.form,
  w.commands.length ? w.commands.join("\n") : `none: ${w.tool}`,
];

export function renderSignHelp(ways: SignWay[], challenge: string, template?: string, file?: string): string {
  const out = [
    `Sign ${JSON.stringify(challenge)} with the key of each address (${ways.length}), with the tool that holds it:`,
    "",
    table(HEAD, ways.map(row), false),
    "",
  ];
  for (const w of ways) out.push(`${w.address}: ${w.tool}${w.note ? `; ${w.note}` : ""}`);
  if (template === undefined)
    out.push("", "These signatures go in OKX's address file (its signature column), one per row.");
  else if (file !== undefined)
    out.push(
      "",
      `Signatures file to fill: ${file} (after each address's comma, its signature); then`,
      "  chaingw reserves scan ADDR… --challenge TEXT --signatures FILE (reserves balances for EVM and TRON accounts)",
    );
  else out.push("", "The signatures file to fill (--template FILE writes it):", "", template.trimEnd());
  return out.join("\n");
}

/** One CSV row per address: the table's columns, the tool and the note; several commands one per line in their cell. */
export const signHelpCsv = (ways: SignWay[]): string =>
  csvTable(
    ["address", "at", "kind", "form", "tool", "command", "note"],
    ways.map((w) => [w.address, w.at, w.kind, w.form, w.tool, w.commands.join("\n"), w.note ?? ""]),
  );
