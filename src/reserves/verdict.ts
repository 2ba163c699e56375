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

/** The challenge a proof's signatures are over, and whether it is the one an audit requires. */
export interface ChallengeCheck {
  text: string | null;
  required: string | null;
  /** null: no challenge was required */
  ok: boolean | null;
  detail: string;
}

/**
 * The proof's challenge against `required` (verify --challenge), for both proof formats: another text (or
 * none) is a failure (`challengeFindings`), since signatures over another text prove nothing for this audit.
 */
export function checkChallenge(text: string | null, required: string | undefined): ChallengeCheck {
  const c: ChallengeCheck = {
    text,
    required: required ?? null,
    ok: null,
    // which audit the verdict judged: without --challenge, the proof's own text
    detail:
      text === null
        ? "the proof has no challenge"
        : `signatures are over "${text}" (the proof's own audit text; --challenge requires the auditor's)`,
  };
  if (required === undefined) return c;
  c.ok = text === required;
  c.detail = c.ok
    ? `signatures are over the required challenge "${required}"`
    : `the proof's signatures are over ${text === null ? "no challenge" : `"${text}"`}, not the required "${required}"`;
  return c;
}

/** The challenge check as findings: a claim (the text signed over), or, when another was required, ok / fails. */
export const challengeFindings = (c: ChallengeCheck): Finding[] => [
  {
    status: c.ok === null ? "claim" : c.ok ? "ok" : "fails",
    step: "challenge",
    code: findingCode("challenge", c.ok === null ? "claim" : c.ok ? "ok" : "fails"),
    at: "challenge",
    text: c.ok === false ? `challenge: ${c.detail}` : c.detail,
  },
];

/** The signature lines to judge: those given to verify, else the proof's own, numbered. */
export const signatureLines = (
  given: { address: string; signature: string; line: number }[] | undefined,
  own: { address: string; signature: string }[] | undefined,
) => given ?? own?.map((s, i) => ({ address: s.address, signature: s.signature, line: i + 1 })) ?? [];

/**
 * One finding of a verifier's step (every verifier: our UTXO and EVM proofs, liabilities, exchanges' files).
 * `claim`: what the document says, not checked; `ok`: checked and held; `fails`: the chain (or the document
 * itself) answered against it; `cannot-say`: the check could not be made, and why. `at` names the field, row
 * or level it concerns ("rows[12]", "line 14", "path level 3"), so a reader can find it.
 */
export interface Finding {
  status: "claim" | "ok" | "fails" | "cannot-say";
  /** the verifier's step that made it ("document", "ownership", "path", …) */
  step: string;
  /**
   * the finding's stable code: its step and status, "balances-fails", "chain-cannot-say", "ownership-ok"
   * (`findingCode`; docs/finding-codes.md lists every one, test/finding-codes.test.ts keeps it so)
   */
  code: string;
  at?: string;
  text: string;
}

/** A finding's stable code: its step and its status ("balances-fails", "chain-cannot-say"). */
export const findingCode = (step: string, status: Finding["status"]): string => `${step}-${status}`;

/**
 * The code of what decides a verdict: the first finding that fails ("balances-fails"), else the first that
 * cannot say ("chain-cannot-say"), else "holds" — a proof's `code` in reserves report's CSV and --json.
 */
export const verdictCode = (fs: readonly Finding[]): string =>
  (fs.find((f) => f.status === "fails") ?? fs.find((f) => f.status === "cannot-say"))?.code ?? "holds";

/** The verdict of a list of findings: any `fails` fails, else any `cannot-say` cannot say, else holds. */
export const verdictOfFindings = (fs: readonly Finding[]): Verdict =>
  fs.some((f) => f.status === "fails")
    ? "fails"
    : fs.some((f) => f.status === "cannot-say")
      ? "cannot-say"
      : "holds";
