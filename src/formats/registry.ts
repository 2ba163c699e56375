/**
 * The one registry of proof formats, like the command table: every file chaingw can judge (its own reserve
 * proofs, its liabilities files, and the files exchanges publish) is one entry here. An entry says what the
 * format is and what chaingw can and cannot check in it, and decides from the text alone (cheaply: no heavy
 * import) whether a file is of its format; the reader, verifier and renderer are loaded on use.
 *
 * `detectFormat` is the one place that decides what a file is; `--proof-format NAME` (the global `--format`
 * is the output's) forces an entry by name (`formatNamed`).
 * Adding a format: a descriptor file `src/formats/<name>.ts` exporting one ProofFormat (cheap: no heavy
 * import at its top; `load()` imports the reader/verifier), one line in its kind's list below (`RESERVES` or
 * `LIABILITIES`), a row in docs/exchange-proofs.md. `load()` resolves to whatever the command that runs the format needs: chaingw's
 * own reserves proofs resolve to a `ReservesModule` (below: `reserves verify`, `reserves report` and
 * `solvency` read them through it), an exchange's address file to an `AddressFileModule`, every liabilities
 * format to a `LiabilitiesModule`; each kind's list below is typed by it (`formatsOf`, `formatNamed`,
 * `detectFormat` give the kind's type), so the command that runs a format needs no cast and no branch by name.
 */
import type { GroupName } from "../chains/index.js";
import { UsageError } from "../errors/index.js";
import type { InclusionCheck } from "../exchange/liabilities/check.js";
import type { OwnershipFile, OwnershipLayout } from "../exchange/ownership/read.js";
import type {
  VerifyOptions as OwnershipOptions,
  OwnershipReport,
  PreviousSignatures,
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
import { BINANCE, GATE, HTX_ZK } from "./binance.js";
import { BITGET } from "./bitget.js";
import { BITMEX } from "./bitmex.js";
import { BITUNIX } from "./bitunix.js";
import { CHAINGW_LIABILITIES, CHAINGW_LIABILITIES_PROOF } from "./chaingw-liabilities.js";
import { CHAINGW_EVM, CHAINGW_UTXO } from "./chaingw-reserves.js";
import { COINEX } from "./coinex.js";
import { EXCHANGE_OWNERSHIP } from "./exchange-ownership.js";
import { MEXC } from "./mexc.js";
import { OKX_V1 } from "./okx-v1.js";
import { OKX_V2 } from "./okx-v2.js";
import { UZX } from "./uzx.js";

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
  /** every row judged (the one verifier shape: named steps, `Finding`s) */
  verify(file: OwnershipFile, options: OwnershipOptions, signal?: AbortSignal): Promise<OwnershipReport>;
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
  /** the root the exchange published (hex) */
  root?: string;
  /** BitMEX/River: the account number and its secrets */
  account?: string;
  nonce?: string;
  accountKey?: string;
  email?: string;
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

/** chaingw's own reserves proofs, in detection order: what `reserves report` and `solvency` read. */
export const OWN_RESERVES: readonly ProofFormat<ReservesModule>[] = [CHAINGW_UTXO, CHAINGW_EVM];

/** The reserves formats (`reserves verify`), in the order detection tries them (most specific first). */
const RESERVES: readonly ProofFormat<ReservesFileModule>[] = [
  // chaingw's own proofs: detected by their top-level "format" member (formats/sniff.ts)
  ...OWN_RESERVES,
  // exchanges' address/signature files (src/exchange/ownership/)
  ...EXCHANGE_OWNERSHIP,
];

/** The liabilities formats (`liabilities verify`), in the order detection tries them. */
const LIABILITIES: readonly ProofFormat<LiabilitiesModule>[] = [
  // chaingw's own files: detected by their top-level "format" member
  CHAINGW_LIABILITIES_PROOF,
  CHAINGW_LIABILITIES,
  // customers' inclusion proofs published by exchanges (src/exchange/liabilities/)
  OKX_V1,
  OKX_V2,
  BITGET,
  UZX,
  BITUNIX,
  MEXC,
  COINEX,
  BITMEX,
  BINANCE,
  GATE,
  HTX_ZK,
];

/** The formats of each kind, typed by what their `load()` resolves to (the command that runs them needs no cast). */
export interface FormatOfKind {
  reserves: ProofFormat<ReservesFileModule>;
  liabilities: ProofFormat<LiabilitiesModule>;
}
const OF_KIND: { [K in FormatKind]: readonly FormatOfKind[K][] } = {
  reserves: RESERVES,
  liabilities: LIABILITIES,
};

/** Every format: each kind's in its detection order. */
export const FORMATS: readonly ProofFormat[] = [...RESERVES, ...LIABILITIES];

/**
 * The format a file no entry recognises is read as: chaingw's own (the UTXO proof, the customer's liabilities
 * proof), whose strict reader's refusal names the field that is wrong.
 */
export const FALLBACK: {
  reserves: ProofFormat<ReservesModule>;
  liabilities: ProofFormat<LiabilitiesModule>;
} = {
  reserves: CHAINGW_UTXO,
  liabilities: CHAINGW_LIABILITIES_PROOF,
};

/** The formats of one kind (`reserves verify` takes reserves files, `liabilities verify` liabilities files). */
export const formatsOf = <K extends FormatKind>(kind: K): readonly FormatOfKind[K][] => OF_KIND[kind];

/**
 * The format named by `--format`, or a usage error listing the names of that kind. `flag`: the option's
 * spelling where the global --format (the output's) is taken (`liabilities verify --proof-format`).
 */
export function formatNamed<K extends FormatKind>(name: string, kind: K, flag = "--format"): FormatOfKind[K] {
  const f = formatsOf(kind).find((x) => x.name === name);
  if (f) return f;
  throw new UsageError(
    `${flag} ${JSON.stringify(name)}: not a ${kind} format; one of ${formatsOf(kind)
      .map((x) => x.name)
      .join(", ")}`,
  );
}

/** The format of a file's text: the first entry of that kind that recognises it, else undefined. */
export const detectFormat = <K extends FormatKind>(text: string, kind: K): FormatOfKind[K] | undefined =>
  formatsOf(kind).find((f) => f.detect(text));

/** The formats of a kind as a usage message lists them: "chaingw-utxo (chaingw's UTXO reserve proof, …), …". */
export const formatList = (formats: readonly ProofFormat[]): string =>
  formats.map((f) => `${f.name} (${f.title})`).join("; ");
