/**
 * The one verdict of every proof check (UTXO reserve proofs, EVM balance proofs, the combined report, and
 * whatever is built on them), and the one table from verdict to exit code.
 *
 *  - "holds": every check the proof needs was answered by the chain, and each went for the proof;
 *  - "fails" (does not hold): at least one check was answered by the chain, and went against the proof
 *    (or the document contradicts itself);
 *  - "cannot-say": nothing went against the proof, but some check could not be made: the node is behind the
 *    proof's block, of the wrong kind or on another network, lacks the data (pruned, no state at that block),
 *    or did not answer.
 *
 * A "fails" always wins over a "cannot-say": one check that went against the proof is enough to say it does
 * not hold, whatever else could not be checked.
 */
import { EXIT } from "../errors/index.js";

export type Verdict = "holds" | "fails" | "cannot-say";

/** What a check found, item by item: each failure and each thing that could not be checked, with its reason. */
export interface Findings {
  /** one line per check the chain answered against the proof */
  failures: string[];
  /** one line per check that could not be made, and why */
  cannot_say: string[];
}

export const verdictOf = (f: Findings): Verdict =>
  f.failures.length ? "fails" : f.cannot_say.length ? "cannot-say" : "holds";

/** The verdict of several proofs (or parts) together: any failure fails, else any unknown is unknown. */
export function combineVerdicts(vs: readonly Verdict[]): Verdict {
  if (vs.includes("fails")) return "fails";
  if (vs.includes("cannot-say")) return "cannot-say";
  return "holds";
}

const EXIT_OF: Record<Verdict, number> = {
  holds: EXIT.ok,
  fails: EXIT.rpc,
  "cannot-say": EXIT.transport,
};

/** The exit code of a verdict: 0 holds, 1 does not hold, 3 cannot say. */
export const exitCodeOfVerdict = (v: Verdict): number => EXIT_OF[v];

/** The verdict in words, as every command prints it. */
export const VERDICT_WORDS: Record<Verdict, string> = {
  holds: "holds",
  fails: "does not hold",
  "cannot-say": "cannot say",
};

/** A plural noun with its count ("1 output", "3 outputs"; "1 address", "2 addresses"). */
export function counted(
  n: number,
  noun: string,
  plural = noun.endsWith("s") ? `${noun}es` : `${noun}s`,
): string {
  return `${n.toLocaleString("en")} ${n === 1 ? noun : plural}`;
}
