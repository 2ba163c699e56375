/** `chaingw liabilities verify PROOF --commitment commitment.json --customer ID`: a customer's offline check. */
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { UsageError } from "../../../errors/index.js";
import { LIABILITIES_PUBLISHERS } from "../../help-lists.js";
import type { Run } from "../../run.js";
import { declareExchangeOptions, type ExchangeVerifyOptions, exchangeOptionsOf } from "./verify-exchange.js";

export interface VerifyCommandOptions {
  proof: string;
  /** chaingw's own proofs: the published commitment.json */
  commitment?: string;
  /** the id the customer knows as theirs; a proof for anyone else fails */
  customer?: string;
  /** asks for the id when --customer is missing (a terminal's prompt); undefined: not asked */
  ask?: () => Promise<string>;
  /** an exchange's inclusion proof (src/exchange/liabilities/): forced format, second file, root, secrets */
  exchange?: ExchangeVerifyOptions;
}

export function declareVerify(parent: Command, run: Run): void {
  const cmd = parent
    .command("verify")
    .description(
      `check a customer's inclusion proof offline: chaingw's own against the published commitment, or an exchange's (${LIABILITIES_PUBLISHERS})`,
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

/**
 * The one path of every liabilities format: the registry says what the file is (detected, or
 * --proof-format; a file no entry recognises is chaingw's own proof when it has a `format` member, whose
 * reader names what is wrong, else "not a proof format chaingw knows" with the closest format), its module (loaded on use) takes the flags and verifies, the report is printed, exit by verdict.
 */
export async function runVerify(
  o: VerifyCommandOptions,
  io: Pick<Run, "err" | "exitCode" | "print" | "printLines">,
): Promise<void> {
  const text = read(o.proof, "proof");
  const [{ detectFormat, formatNamed, unclaimed }, { exitCodeOfVerdict }, { printLiabilities }] =
    await Promise.all([
      import("../../../formats/registry.js"),
      import("../../../reserves/verdict.js"),
      import("../../render/liabilities.js"),
    ]);
  const { proofFormat, ...exchange } = o.exchange ?? {};
  const format =
    proofFormat !== undefined
      ? formatNamed(proofFormat, "liabilities", "--proof-format")
      : (detectFormat(text, "liabilities") ?? unclaimed(text, o.proof, o.commitment !== undefined));
  const m = await format.load();
  const r = await m.verify(
    text,
    {
      ...exchange,
      file: o.proof,
      readFile: read,
      commitment: o.commitment,
      customer: o.customer,
      ask: o.ask,
    },
    format,
  );
  io.exitCode = exitCodeOfVerdict(r.verdict);
  printLiabilities(r, format.title, io);
  for (const note of r.notes) io.err(note);
}
