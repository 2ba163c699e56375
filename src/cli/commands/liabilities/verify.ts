/** `chaingw liabilities verify PROOF --commitment commitment.json --customer ID`: a customer's offline check. */
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { UsageError } from "../../../errors/index.js";
import type { LiabilitiesVerdict } from "../../../liabilities/verify.js";
import { quoted } from "../../../util/text.js";
import type { Run } from "../../run.js";
import { declareExchangeOptions, type ExchangeVerifyOptions, exchangeOptionsOf } from "./verify-exchange.js";

export interface VerifyCommandOptions {
  proof: string;
  /** chaingw's own proofs: the published commitment.json */
  commitment?: string;
  /** the id the customer knows as theirs; a proof for anyone else fails */
  customer?: string;
  json: boolean;
  /** asks for the id when --customer is missing (a terminal's prompt); undefined: not asked */
  ask?: () => Promise<string>;
  /** an exchange's inclusion proof (src/exchange/liabilities/): forced format, second file, root, secrets */
  exchange?: ExchangeVerifyOptions;
}

export function declareVerify(parent: Command, run: Run): void {
  const cmd = parent
    .command("verify")
    .description(
      "check a customer's inclusion proof offline: chaingw's own against the published commitment, or an exchange's (OKX, Bitget, MEXC, CoinEx, BitMEX, HTX, Gate…)",
    )
    .argument("<proof>", "the proof file (- for stdin); JSON Lines of several proofs are read too")
    .argument("[tree]", "an exchange format's second file (OKX v2: the full tree)")
    .option("--commitment <file>", "the published commitment.json (chaingw's own proofs)")
    .option(
      "--customer <id>",
      "your customer id: a proof for anyone else fails (asked for on a terminal when missing)",
    )
    .addHelpText(
      "after",
      "\nExit 0 the proof holds; 1 it does not (what failed is named), or it is someone else's; 2 not a proof or commitment;" +
        "\n3 cannot say (an exchange format's part chaingw cannot check).",
    );
  declareExchangeOptions(cmd);
  cmd.action(
    async (
      proof: string,
      tree: string | undefined,
      o: { commitment?: string; customer?: string } & ExchangeVerifyOptions,
    ) =>
      runVerify(
        {
          proof,
          commitment: o.commitment,
          customer: o.customer,
          json: run.machine,
          ask: process.stdin.isTTY && proof !== "-" ? () => askId(run) : undefined,
          exchange: exchangeOptionsOf(tree, o),
        },
        run,
      ),
  );
}

/** The customer id, asked on the terminal (stderr, so stdout stays the verdict). */
async function askId(run: Pick<Run, "stderr">): Promise<string> {
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: process.stdin, output: run.stderr, terminal: true });
  try {
    return await rl.question("your customer id (as your account shows it): ");
  } finally {
    rl.close();
  }
}

const read = (file: string, what: string): string => {
  try {
    return readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (e) {
    throw new UsageError(`${what} ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
};

export async function runVerify(
  o: VerifyCommandOptions,
  io: Pick<Run, "out" | "err" | "exitCode">,
): Promise<void> {
  const proofText = read(o.proof, "proof");
  const { exchangeFormatOf, runExchangeVerify } = await import("./verify-exchange.js");
  const format = await exchangeFormatOf(proofText, o.exchange, o.commitment !== undefined);
  if (format) return runExchangeVerify(format, proofText, o, io);
  if (o.commitment === undefined)
    throw new UsageError(
      "--commitment <file>: required for chaingw's own proofs (the published commitment.json); the file is not an exchange's inclusion proof chaingw knows either (docs/exchange-proofs.md)",
    );
  const commitmentText = read(o.commitment, "--commitment");
  const { checkProofs, parseProofs } = await import("../../../liabilities/verify.js");
  const { parseCommitment } = await import("../../../liabilities/commitment.js");
  // both files read whole before the customer is asked: a file that is not one is refused first
  const commitment = parseCommitment(commitmentText, o.commitment);
  const proofs = parseProofs(proofText, o.proof);
  let customer = o.customer;
  if (customer === undefined && o.ask) {
    customer = (await o.ask()).trim();
    if (customer === "")
      throw new UsageError("--customer: no id given (your customer id, as your account shows it)");
  }
  const verdicts = checkProofs(proofs, commitment, customer);
  io.exitCode = verdicts.every((v) => v.verdict === "holds") ? 0 : 1;
  if (o.json) io.out(verdicts.map((v) => JSON.stringify(v, null, verdicts.length > 1 ? 0 : 2)).join("\n"));
  else io.out(verdicts.map(renderVerdict).join("\n"));
  if (customer === undefined)
    io.err(
      `chaingw: no --customer given: this shows whose proof holds (${verdicts.map((v) => quoted(v.customer)).join(", ")}), not that it is yours`,
    );
}

/**
 * `customer "8812": 1.25 BTC and 310 USDT included in the liabilities committed as <digest> ("snapshot
 * 2026-11-30", created 2026-11-30T00:00:00Z)`, or what failed. Every string from a file is escaped.
 */
export function renderVerdict(v: LiabilitiesVerdict): string {
  const held = v.balances.filter((b) => b.base_units !== "0").map((b) => `${b.amount} ${b.asset}`);
  const what = held.length ? held.join(held.length === 2 ? " and " : ", ") : "a zero balance";
  const where = `the liabilities committed as ${v.commitment} (${v.label !== undefined ? `${quoted(v.label)}, ` : ""}created ${quoted(v.created)})`;
  if (v.verdict === "holds") return `customer ${quoted(v.customer)}: ${what} included in ${where}`;
  return [
    `customer ${quoted(v.expected_customer ?? v.customer)}: NOT proven in ${where}`,
    ...v.faults.map((f) => `  - ${f}`),
  ].join("\n");
}
