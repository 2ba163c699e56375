/** `chaingw liabilities build|proof|verify`: the family's command tree (each command in its own file). */
import type { Command } from "commander";
import type { Run } from "../../run.js";
import { declareBuild } from "./build.js";
import { declareProof } from "./proof.js";
import { declareVerify } from "./verify.js";

export function declareLiabilities(program: Command, run: Run): void {
  const family = program
    .command("liabilities")
    .description("commit customers' balances to a Merkle-sum tree; extract and verify inclusion proofs");
  declareBuild(family, run);
  declareProof(family, run);
  declareVerify(family, run);
}
