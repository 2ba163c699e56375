/** `chaingw liabilities proof --out DIR ID... | --all`: customers' inclusion proofs from a build. */
import type { Command } from "commander";
import { UsageError } from "../../../errors/index.js";
import type { Run } from "../../run.js";

export interface ProofCommandOptions {
  out: string;
  ids: string[];
  all: boolean;
}

export function declareProof(parent: Command, run: Run): void {
  parent
    .command("proof")
    .description("print customers' inclusion proofs from a build (JSON; JSON Lines for several or --all)")
    .argument("[id...]", "customer ids")
    .requiredOption("--out <dir>", "the build's directory (as given to liabilities build)")
    .option("--all", "every customer's proof, streamed as JSON Lines")
    .addHelpText(
      "after",
      "\nExit 0; 1 when a customer id is not in the build (the others are printed); 2 bad usage.",
    )
    .action(async (ids: string[], o: { out: string; all?: boolean }) =>
      runProof({ out: o.out, ids, all: Boolean(o.all) }, run),
    );
}

export async function runProof(
  o: ProofCommandOptions,
  io: Pick<Run, "out" | "err" | "exitCode">,
): Promise<void> {
  if (o.all === o.ids.length > 0) throw new UsageError("name customer ids or --all (one of them)");
  const { ProofSource } = await import("../../../liabilities/proof.js");
  const src = new ProofSource(o.out);
  try {
    if (o.all) {
      let batch: string[] = [];
      for await (const p of src.all()) {
        batch.push(JSON.stringify(p));
        if (batch.length === 256) {
          io.out(batch.join("\n"));
          batch = [];
        }
      }
      if (batch.length) io.out(batch.join("\n"));
      return;
    }
    const missing: string[] = [];
    for (const id of o.ids) {
      const p = src.proofOf(id);
      if (!p) missing.push(id);
      else io.out(o.ids.length === 1 ? JSON.stringify(p, null, 2) : JSON.stringify(p));
    }
    for (const id of missing) io.err(`chaingw: customer ${JSON.stringify(id)} is not in the build ${o.out}`);
    if (missing.length) io.exitCode = 1;
  } finally {
    src.close();
  }
}
