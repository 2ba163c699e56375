/**
 * The shapes of the format registry (registry.ts) and of the descriptors it lists (formats/*.ts): what a
 * format is, and what its `load()` resolves to for the command that runs it. In their own file so that the
 * descriptors import these types and the registry imports the descriptors, with no edge back.
 */
import type { GroupName } from "../chains/index.js";
import type { InclusionCheck } from "../exchange/liabilities/check.js";
import type { OwnershipFile, OwnershipLayout } from "../exchange/ownership/read.js";
import type {
  VerifyOptions as OwnershipOptions,
  OwnershipReport,
  PreviousSignatures,
  RowSink,
} from "../exchange/ownership/verify.js";
import type { LiabilitiesVerdict } from "../liabilities/verify.js";
import type { QuorumNode } from "../proof/document.js";
import type { ProofCheck, ReadProof, ReportEntry } from "../reserves/combined.js";
import type { EvmVerifyReport } from "../reserves/evm/balances-verify.js";
import type { VerifyReport } from "../reserves/utxo/verify.js";
import type { Verdict } from "../reserves/verdict.js";
import type { VerifyContext, VerifyOptions } from "../reserves/verifier.js";
import type { JsonRpcClient } from "../rpc/client.js";
import type { Endpoint } from "../rpc/endpoint.js";

/** reserves: who controls which addresses and what they hold; liabilities: a customer's share of the total */
export type FormatKind = "reserves" | "liabilities";

export interface ProofFormat<M = unknown> {
  /** the name `--proof-format` takes, lower-case words joined by `-` ("chaingw-utxo", "okx-2024", "htx") */
  name: string;
  kind: FormatKind;
  /** who publishes it, in words ("OKX address and signature file, 2024-26 layout") */
  title: string;
  /** what chaingw checks in it */
  checks: readonly string[];
  /** what it cannot check, said plainly */
  cannot: readonly string[];
  /** flaws of the publisher's own verifier that chaingw catches */
  catches?: readonly string[];
  /**
   * The members that identify the format's JSON files, as dotted paths (`self.userHash`, `path[].balance`):
   * `detect` holds only where every one is present (sniff.ts `hasMarks`), and a file no format claims is told
   * the format whose marks it comes closest to and which it lacks.
   */
  marks?: readonly string[];
  /** whether `text` (a file's whole content) is of this format; cheap, never throws */
  detect(text: string): boolean;
  /** the module that reads, verifies and renders it, loaded on use (`M`: its type, for the command that runs it) */
  load(): Promise<M>;
}

/**
 * What `load()` of chaingw's own reserves proofs resolves to: the commands that read several proof files
 * (`reserves report`, `solvency`) and `reserves verify` go through it, never through the format's name.
 */
export interface ReservesModule {
  kind: "proof";
  /** the file read by its strict reader (a ProofInputError naming the field: exit 2), with its report entry */
  read(file: string, text: string): ReadProof;
  /** the chain group of the node that verifies it */
  group(r: ReadProof): GroupName;
  /** verified against its chain (the one verifier shape): the entry with the verdict and the proven shares */
  verifyEntry(
    client: JsonRpcClient,
    r: ReadProof,
    signal?: AbortSignal,
    options?: VerifyOptions,
  ): Promise<ReportEntry & { verify: ProofCheck }>;
  /**
   * `reserves verify`'s run of the file (its one generic path reads these): the verifier's own report (the one
   * shape: `verify(ctx, proof)`), its progress as lines of text on `ctx.onEvent`.
   */
  report(ctx: VerifyContext<string>, r: ReadProof): Promise<ProofReport>;
  /** what a node of a --quorum says it is (pinned to `ep`), for the quorum's report */
  describeNode(client: JsonRpcClient, ep: Endpoint, r: ReadProof): Promise<QuorumNode>;
  /**
   * Whether the proof names its own chain group (EVM proofs: `chain.group`), which then overrides --chain for
   * the node that verifies it and decides the address forms of --signatures lines; else (UTXO proofs) the
   * node is the run's own and the lines are the UTXO coins' addresses.
   */
  namesGroup: boolean;
}

/**
 * What `load()` of an exchange's address/signature file (OKX's layouts, HTX's) resolves to: `reserves verify`
 * reads the file in its layout and judges every row (src/exchange/ownership/).
 */
export interface AddressFileModule {
  kind: "address-file";
  layout: OwnershipLayout;
  /** the file read in this layout; a bad line is a UsageError naming it (exit 2, nothing judged) */
  read(text: string): OwnershipFile;
  /** an older file of the same exchange (`--previous`, any layout): its signatures, each named `name` line N */
  previous(text: string, name: string): PreviousSignatures;
  /**
   * every row judged (the one verifier shape: named steps, `Finding`s); with `sink`, the judged rows and their
   * findings go to it a window at a time and the report lists none of them (its counts and sums are every row's)
   */
  verify(
    file: OwnershipFile,
    options: OwnershipOptions,
    signal?: AbortSignal,
    sink?: RowSink,
  ): Promise<OwnershipReport>;
}

/** What `load()` of every reserves format resolves to: `reserves verify` runs either through its `kind`. */
export type ReservesFileModule = ReservesModule | AddressFileModule;

/** A reserves verifier's report: the UTXO proof's or the EVM balances proof's (reserves/verifier.ts's shape). */
export type ProofReport = VerifyReport | EvmVerifyReport;

/**
 * What `liabilities verify` gives every liabilities format's module: the proof file's name, the flags as
 * given (each module refuses, exit 2, those its format does not take), and the one reader of the other
 * files the flags name.
 */
export interface LiabilitiesInput {
  /** the proof file's name, for messages */
  file: string;
  /** reads a file a flag names (--commitment, --tree); one that cannot be read is a usage error naming `what` */
  readFile(file: string, what: string): string;
  /** chaingw's own proofs: the published commitment.json */
  commitment?: string;
  /** the id the customer knows as theirs */
  customer?: string;
  /** asks for the id when --customer is missing (a terminal's prompt); undefined: not asked */
  ask?: () => Promise<string>;
  /** an exchange's second file (OKX v2: the full tree) */
  tree?: string;
  /** Hotcoin: the anchor file (root, totals, leaf count) published apart from the proofs */
  anchor?: string;
  /** the root the exchange published (hex) */
  root?: string;
  /** BitMEX/River: the account number and its secrets */
  account?: string;
  nonce?: string;
  accountKey?: string;
  email?: string;
  /** SwissBorg: the customer's audit credential */
  credential?: string;
  /** a leaf list (the auditors' tool): the customer's leaf hash */
  leaf?: string;
  /** the Binance family: the tool's number of asset slots, as typed */
  assetSlots?: string;
}

/**
 * A liabilities format's verification, as its renderer takes it: chaingw's own proofs' verdicts (one per proof
 * of the file), or an exchange's inclusion check; `notes`: lines for stderr (what the verdict does not say).
 */
export type LiabilitiesReport = { verdict: Verdict; notes: string[] } & (
  | { kind: "chaingw"; verdicts: LiabilitiesVerdict[] }
  | { kind: "inclusion"; check: InclusionCheck }
);

/** What `load()` of every liabilities format resolves to: `liabilities verify` runs each through it alone. */
export interface LiabilitiesModule {
  /** the file's text read and verified (the one verifier shape: named steps, `Finding`s); bad input exit 2 */
  verify(text: string, input: LiabilitiesInput, format: ProofFormat): Promise<LiabilitiesReport>;
}
