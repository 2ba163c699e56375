/** `chaingw liabilities verify PROOF --commitment commitment.json`: a customer's offline check. */
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { UsageError } from "../../../errors/index.js";
import type { LiabilitiesVerdict } from "../../../liabilities/verify.js";
import type { Run } from "../../run.js";

export interface VerifyCommandOptions {
  proof: string;
  commitment: string;
  json: boolean;
}

export function declareVerify(parent: Command, run: Run): void {
  parent
    .command("verify")
    .description("check a customer's inclusion proof offline against the published commitment")
    .argument("<proof>", "the proof file (- for stdin)")
    .requiredOption("--commitment <file>", "the published commitment.json")
    .addHelpText(
      "after",
      "\nExit 0 the proof holds; 1 it does not (what failed is named); 2 not a proof or commitment.",
    )
    .action(async (proof: string, o: { commitment: string }) =>
      runVerify({ proof, commitment: o.commitment, json: run.machine }, run),
    );
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
  const commitmentText = read(o.commitment, "--commitment");
  const { verifyLiabilities } = await import("../../../liabilities/verify.js");
  const v = verifyLiabilities(proofText, o.proof, commitmentText, o.commitment);
  io.exitCode = v.verdict === "holds" ? 0 : 1;
  io.out(o.json ? JSON.stringify(v, null, 2) : renderVerdict(v));
}

/** "customer 8812: 1.25 BTC and 310 USDT included in root 4f…, snapshot 2026-11-30" or what failed. */
export function renderVerdict(v: LiabilitiesVerdict): string {
  const held = v.balances.filter((b) => b.base_units !== "0").map((b) => `${b.amount} ${b.asset}`);
  const what = held.length ? held.join(held.length === 2 ? " and " : ", ") : "a zero balance";
  const where = `root ${v.root.slice(0, 16)}…${v.label ? `, ${v.label}` : ""}`;
  if (v.verdict === "holds") return `customer ${v.customer}: ${what} included in ${where}`;
  return [`customer ${v.customer}: NOT proven in ${where}`, ...v.faults.map((f) => `  - ${f}`)].join("\n");
}
