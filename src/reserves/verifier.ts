/**
 * The one shape of every verifier (UTXO reserve proofs, EVM balances proofs, and the formats to come):
 * `verify(ctx, proof)`, where `ctx` is one context (the client, the options, the progress callback, the
 * interrupt signal) and the verifier is a list of named steps run in order over one state of its own. Each
 * step returns findings of the one type `Finding` (reserves/verdict.ts): claim / ok / fails / cannot-say, with
 * the field or row it concerns. The verdict, the report's `failures` / `cannot_say` lists and the summary's
 * "does not hold" / "cannot say" lines are derived from the findings here, once for every verifier.
 *
 * Adding a check: a step `{ name, run(ctx, state) }` in the verifier's list (a step that does not apply,
 * e.g. after the node said it cannot check the proof, returns no findings); the report's fields it fills go
 * on the verifier's state.
 */
import { InterruptedError } from "../errors/index.js";
import type { SignatureLine } from "../proof/document.js";
import type { JsonRpcClient } from "../rpc/client.js";
import { counted, type Finding, findingCode, type Verdict, verdictOfFindings } from "./verdict.js";

/** The options of every verifier: `reserves verify`'s flags. */
export interface VerifyOptions {
  /** signatures to judge instead of the document's own (verify --signatures) */
  signatures?: SignatureLine[];
  /** the challenge the signatures must be over (verify --challenge): another one fails */
  challenge?: string;
  /**
   * the addresses of the other EVM proofs an audit reads, by chain id: the tracking probe raises their native
   * balances too, so a token following an address of another proof on its chain is told (solvency, report)
   */
  nativeAlso?: ReadonlyMap<string, readonly string[]>;
  /**
   * the tokens of every EVM proof an audit reads, by chain id: the tracking probe makes the others' code answer
   * otherwise too, and asks their storage reads beside this proof's, so a token reading one of another proof on
   * its chain is told (solvency, report)
   */
  tokensAlso?: ReadonlyMap<string, readonly string[]>;
  /**
   * a UTXO proof: at most this many blocks above its height read to find where an output spent since was
   * spent (verify --walk; default DEFAULT_WALK_BLOCKS, reserves/defaults.ts)
   */
  walkBlocks?: number;
  /**
   * the networks a devnet on their chain id is declared to stand in for (`--stand-in`: table names,
   * "ethereum"): its proofs are read, named so; another node on such a chain id whose genesis is not the
   * network's cannot say (balances-read.ts readAccountNetwork)
   */
  standIns?: ReadonlySet<string>;
}

/** What every verifier runs with. `E`: the verifier's progress events. */
export interface VerifyContext<E = { type: "step"; text: string }> {
  client: JsonRpcClient;
  options: VerifyOptions;
  onEvent: (e: E) => void;
  signal?: AbortSignal;
}

/** A context with defaults for what is not given (no options, events dropped). */
export const verifyContext = <E>(
  client: JsonRpcClient,
  o: Partial<Omit<VerifyContext<E>, "client">> = {},
): VerifyContext<E> => ({
  client,
  options: o.options ?? {},
  onEvent: o.onEvent ?? (() => {}),
  signal: o.signal,
});

/** One named check of a verifier: reads the state (and adds to it), returns what it found. */
export interface VerifyStep<C, S> {
  /** the `step` of its findings ("document", "node", "ownership", …) */
  name: string;
  run(ctx: C, state: S): Finding[] | Promise<Finding[]>;
}

/** Stops a verification that was interrupted (Ctrl-C): the report would be partial. */
export function throwIfInterrupted(signal: AbortSignal | undefined): void {
  if (signal?.aborted)
    throw new InterruptedError(`interrupted (${String(signal.reason)}): verification did not finish`);
}

/** Runs the steps in order (the interrupt checked between them); every step's findings, in order. */
export async function runSteps<C extends { signal?: AbortSignal }, S>(
  ctx: C,
  state: S,
  steps: readonly VerifyStep<C, S>[],
): Promise<Finding[]> {
  const all: Finding[] = [];
  for (const [i, s] of steps.entries()) {
    if (i > 0) throwIfInterrupted(ctx.signal);
    all.push(...(await s.run(ctx, state)));
  }
  return all;
}

/** Finding builders: `fails(step, text, at)` and so on; `text` is the line as the report prints it. */
const finding =
  (status: Finding["status"]) =>
  (step: string, text: string, at?: string): Finding =>
    at === undefined
      ? { status, step, code: findingCode(step, status), text }
      : { status, step, code: findingCode(step, status), at, text };
export const fails = finding("fails");
export const cannotSay = finding("cannot-say");
export const ok = finding("ok");
export const claim = finding("claim");

/** The part of every verifier's report derived from its findings. */
export interface Outcome {
  verdict: Verdict;
  /** true only for "holds" */
  holds: boolean;
  /** one line per check the chain answered against the proof */
  failures: string[];
  /** one line per check that could not be made, and why */
  cannot_say: string[];
  /** what is proven (or why not), in one line */
  summary: string;
}

/**
 * The verdict, the lists and the summary of a verifier's findings; `holds` words the summary of a proof that
 * holds (the verifier's own: what is proven), the other two are the same for every verifier.
 */
export function outcomeOf(findings: readonly Finding[], holds: () => string): Outcome {
  const failures = findings.filter((f) => f.status === "fails").map((f) => f.text);
  const cannot_say = findings.filter((f) => f.status === "cannot-say").map((f) => f.text);
  const verdict = verdictOfFindings(findings);
  const summary =
    verdict === "holds"
      ? holds()
      : verdict === "fails"
        ? `the proof does not hold: ${counted(failures.length, "failing item")}`
        : `cannot say whether the proof holds: ${cannot_say[0]}`;
  return { verdict, holds: verdict === "holds", failures, cannot_say, summary };
}

/**
 * Signatures matched to the document's claims by address, the same way in every verifier: the validity the
 * document records per address (its own signatures; none when verify was given other signatures), keyed by
 * `key` (an EVM address lower-cased).
 */
export function claimedValidity(
  own: readonly { address: string; valid: boolean }[] | undefined,
  given: readonly unknown[] | undefined,
  key: (address: string) => string = (a) => a,
): Map<string, boolean> {
  const m = new Map<string, boolean>();
  if (given === undefined)
    for (const s of own ?? []) if (!m.has(key(s.address))) m.set(key(s.address), s.valid);
  return m;
}

/** The document's recorded validity of a signature against what it is now, a failure when they differ. */
export function claimedMismatch(
  address: string,
  claimed: boolean | undefined,
  valid: boolean,
): Finding | undefined {
  if (claimed === undefined || claimed === valid) return undefined;
  return fails(
    "ownership",
    `signature for ${address}: the document says ${claimed ? "valid" : "invalid"}, it is ${valid ? "valid" : "invalid"}`,
    address,
  );
}
