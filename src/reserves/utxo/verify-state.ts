/**
 * What the UTXO proof's verifier (verify.ts) reports and what its steps share: the report's types, the
 * state the steps fill in, the node's answers read (`obj`, `outcomeValue`), an output failed or unknown.
 */
import { ChaingwError, RpcError } from "../../errors/index.js";
import type { JsonObject, JsonValue } from "../../json/lossless.js";
import type { Proof } from "../../proof/document.js";
import type { BatchOutcome } from "../../rpc/batch.js";
import type { JsonRpcClient } from "../../rpc/client.js";
import { isJsonObject } from "../../util/text.js";
import type { ChallengeCheck, Finding, Findings, Verdict } from "../verdict.js";
import type { VerifyContext } from "../verifier.js";
import { readEach } from "./reads.js";

export type OutputState = "unspent" | "spent-after" | "failed" | "unknown";

export interface OutputVerdict {
  txid: string;
  vout: number;
  amount: string;
  matched: string;
  /** true: every check of this output went for the proof */
  ok: boolean;
  state: OutputState;
  /** the height of the block that spent it, for spent-after */
  spentAt?: number;
  /** that block's time (its header's `time`, Unix seconds), when the node gave one */
  spentTime?: number;
  /** that block's median time past (its `mediantime`, Unix seconds), when the node gave one */
  spentMedian?: number;
  detail: string;
}

export interface AddressVerdict {
  address: string;
  amount: string;
  amount_sats: string;
  /** outputs attributed to it in the proof */
  outputs: number;
  /** of those, how many failed a check */
  outputs_failed: number;
  outputs_ok: boolean;
  ownership: "proven" | "unproven" | "claimed-only" | "cannot-say";
  detail?: string;
}

/** What the proof states that no chain can confirm: printed as the proof's claims, never as findings. */
export interface ProofClaims {
  created_at: string;
  /** the text the signatures were made over (null: none) */
  challenge: string | null;
  min_conf?: number;
  /** outputs the scan found but left out of the total (not counted, not checked) */
  excluded_outputs: number;
  /** the nodes the proof says agreed on every read when it was made (--quorum), as they described themselves */
  quorum: string | null;
}

export interface VerifyReport extends Findings {
  format: string;
  verdict: Verdict;
  /** true only for "holds" */
  holds: boolean;
  claims: ProofClaims;
  /** the challenge the signatures are over, and --challenge when it was required */
  challenge: ChallengeCheck;
  node: { ok: boolean | null; chain: string | null; coin: string | null; tip: number | null; detail: string };
  digest: { ok: boolean; claimed: string; computed: string };
  block: { ok: boolean | null; height: number; hash: string; detail: string };
  attribution: { ok: boolean | null; detail: string };
  outputs: OutputVerdict[];
  addresses: AddressVerdict[];
  totals: { ok: boolean; amount: string; amount_sats: string; outputs: number; detail: string };
  ownership: { proven_sats: string; claimed_only_sats: string; proven_addresses: number; addresses: number };
  /**
   * the blocks above the proof's height read for outputs spent since (`from`..`to`), and the most the walk
   * reads (`limit`, verify --walk): an output not found within it is "cannot say" unless the walk reached the tip
   */
  walked: { blocks: number; from?: number; to?: number; limit: number };
  /** what is proven (or why not), in one line */
  summary: string;
  /** every step's findings, in order (`failures` and `cannot_say` are derived from them) */
  findings: Finding[];
}

export type VerifyEvent =
  | { type: "walk"; height: number; tip: number; pending: number }
  | { type: "step"; text: string };

/** blocks of verbosity 2 per array while walking (a mainnet block is megabytes) */
export const WALK_BATCH = 8;
/** addresses per deriveaddresses call when a ranged descriptor is expanded */
export const DERIVE_CHUNK = 10_000;

/** Node answers that mean "this node cannot tell", not "the chain says otherwise". */
export const CANNOT_TELL =
  /prun|not available|not found on disk|block data|not in main chain|Method not found|not supported|disabled/i;

/**
 * A node's JSON object, or undefined: the typed guard of every answer read below. A node's error is not an
 * object of the answer (an unknown block's getblockheader error was once read as the header).
 */
export const obj = (v: JsonValue | RpcError | undefined): JsonObject | undefined =>
  isJsonObject(v) ? (v as JsonObject) : undefined;
/** A member that is an array, or none. */
export const list = (v: JsonValue | undefined): JsonValue[] => (Array.isArray(v) ? v : []);

/** The value of an outcome, or its error thrown unless it is a node error (which the caller judges). */
export function outcomeValue(o: BatchOutcome | undefined): JsonValue | RpcError {
  if (o === undefined) return null;
  if (o instanceof RpcError) return o;
  if (o instanceof ChaingwError) throw o;
  return o.result;
}

/** One read's value (or the node's error). */
export const readOne = async (client: JsonRpcClient, method: string, params: unknown[]) =>
  outcomeValue((await readEach(client, method, [params]))[0]);

/** The network part of an address's networks that a node's `chain` names ("signet" prints test addresses). */
export const netOf = (chain: string): "main" | "test" | "regtest" =>
  chain === "main" ? "main" : chain === "regtest" ? "regtest" : "test";

export type Ctx = VerifyContext<VerifyEvent>;

/** What the steps learn and fill in: the node, each output's verdict, and the report's sections. */
export interface State {
  proof: Proof;
  verdicts: OutputVerdict[];
  /** the node's coin (a coin table id whose messages are read: "bitcoin", "litecoin"), known after the node step */
  coin?: string;
  tip: number;
  /** the node can check this proof (its kind, network, coin and height are right) */
  nodeOk: boolean;
  /** per matched text: the sats and outputs the proof attributes to it */
  subtotals: Map<string, { sats: bigint; outputs: number }>;
  digest: VerifyReport["digest"];
  totals: VerifyReport["totals"];
  node: VerifyReport["node"];
  block: VerifyReport["block"];
  attribution: VerifyReport["attribution"];
  walked: VerifyReport["walked"];
  challenge: ChallengeCheck;
  addresses: AddressVerdict[];
  ownership: VerifyReport["ownership"];
}

export function failOutput(s: State, i: number, why: string): void {
  const v = s.verdicts[i];
  if (!v || v.state === "failed") return;
  v.ok = false;
  v.state = "failed";
  v.detail = why;
}

export function unknownOutput(s: State, i: number, why: string): void {
  const v = s.verdicts[i];
  if (!v || v.state === "failed" || v.state === "unknown") return;
  v.ok = false;
  v.state = "unknown";
  v.detail = why;
}
