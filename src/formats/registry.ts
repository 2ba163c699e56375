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
import { UsageError } from "../errors/index.js";
import { ZK_FORMATS } from "./binance.js";
import { BITBASE } from "./bitbase.js";
import { BITGET } from "./bitget.js";
import { BITMEX } from "./bitmex.js";
import { BITUNIX } from "./bitunix.js";
import { BLOCPALX } from "./blocpalx.js";
import { BYBIT } from "./bybit.js";
import { CHAINGW_LIABILITIES, CHAINGW_LIABILITIES_PROOF } from "./chaingw-liabilities.js";
import { CHAINGW_EVM, CHAINGW_UTXO } from "./chaingw-reserves.js";
import { COINEX } from "./coinex.js";
import { EXCHANGE_OWNERSHIP, unclaimedAddressFile } from "./exchange-ownership.js";
import { FLIPSTER } from "./flipster.js";
import { HOTCOIN, HOTCOIN_ANCHOR_MARKS } from "./hotcoin.js";
import { LEAF_LIST } from "./leaf-list.js";
import { MEXC } from "./mexc.js";
import { OKX_V1 } from "./okx-v1.js";
import { OKX_V2 } from "./okx-v2.js";
import { SIXPENCE } from "./sixpence.js";
import { formatMember, hasMarks, memberPaths } from "./sniff.js";
import { SWISSBORG, SWISSBORG_ROOTS_MARKS } from "./swissborg.js";
import { UZX } from "./uzx.js";

export type {
  AddressFileModule,
  FormatKind,
  LiabilitiesInput,
  LiabilitiesModule,
  LiabilitiesReport,
  ProofFormat,
  ProofReport,
  ReservesFileModule,
  ReservesModule,
} from "./types.js";

import type {
  FormatKind,
  LiabilitiesModule,
  ProofFormat,
  ReservesFileModule,
  ReservesModule,
} from "./types.js";

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
  BYBIT,
  HOTCOIN,
  BITBASE,
  BITMEX,
  LEAF_LIST,
  FLIPSTER,
  SWISSBORG,
  BLOCPALX,
  SIXPENCE,
  ...ZK_FORMATS,
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

/** chaingw's own formats: a file with a top-level `format` member is one of these or none (sniff.ts). */
const OWN: ReadonlySet<ProofFormat> = new Set([
  ...OWN_RESERVES,
  CHAINGW_LIABILITIES_PROOF,
  CHAINGW_LIABILITIES,
]);

/**
 * Every entry of the kind that claims the file: chaingw's own formats for a file with a top-level `format`
 * member, the exchanges' for any other. Detection is built so that at most one claims a file (each exchange
 * format's `marks` are members no other format's files have; test/exchange-formats checks every fixture).
 */
export const claimants = <K extends FormatKind>(text: string, kind: K): FormatOfKind[K][] => {
  const own = formatMember(text) !== undefined;
  return formatsOf(kind).filter((f) => OWN.has(f) === own && f.detect(text));
};

/**
 * The format of a file's text: the one entry of that kind that claims it, else undefined; a file two entries
 * claim is a usage error naming both (never the first that happens to say yes).
 */
export function detectFormat<K extends FormatKind>(text: string, kind: K): FormatOfKind[K] | undefined {
  const all = claimants(text, kind);
  if (all.length > 1)
    throw new UsageError(
      `the file has the members of ${all.map((f) => f.name).join(" and ")}: --proof-format NAME says which it is`,
    );
  return all[0];
}

/** Files that are not proofs chaingw reads, recognised to say what they are. */
const NOT_READ: readonly { is(text: string): boolean; what: string }[] = [
  {
    is: (t) => /^\uFEFF?"?id"?,.*"?proof_info"?,.*"?batch_commitment"?/.test(t),
    what: "the Groth16 batch proof table (proof.csv) of Gate's or Binance's zk proof of solvency: the batch proofs, which chaingw does not verify; a customer's own file is their user_config.json (gate, binance, htx-zk)",
  },
  {
    is: (t) => hasMarks(t, HOTCOIN_ANCHOR_MARKS),
    what: "Hotcoin's anchor file (the root and totals it publishes apart): give it as --anchor FILE beside the customer's proof.json",
  },
  {
    is: (t) => /^\uFEFF?BlocPalX Proof Of Reserves Source File\r?\n/.test(t),
    what: "BlocPalX's source file (the exchange's input to its tree, exchange_files/); the file customers check is the published tree file (audit_files/…_merkletree.txt), which blocpalx reads",
  },
  {
    is: (t) => hasMarks(t, SWISSBORG_ROOTS_MARKS),
    what: "SwissBorg's audit roots file (auditRoots_N.json: the audit commitment and each currency's root): give it as the second file beside the customer's userLiab_N.json (and --credential TEXT)",
  },
  {
    is: (t) => hasMarks(t, ["batch_inclusion_proof", "trunk_inclusion_proof"]),
    what: "OKX's zk-STARK v1 inclusion proof (okx/proof-of-reserves 0277548, Apr 2023 – Aug 2024: Keccak paths, the sums in a STARK), which chaingw does not read yet",
  },
  {
    is: (t) => hasMarks(t, ["account.id", "sum_tree_siblings", "recursive_tree_siblings"]),
    what: "OKX's zk-STARK v2 inclusion proof (okx/proof-of-reserves 9ecb01c, from Sep 2024: plonky2 and Poseidon over Goldilocks), which chaingw does not read yet",
  },
  {
    is: (t) => hasMarks(t, ["data[].uhash", "data[].balances", "data[].r", "data[].depth"]),
    what: 'HTX\'s v1 Merkle-sum proof ({"data":[…]}; huobiapi/Tool-Go-MerkleVerify a083c94, Dec 2022: balances "BTC:…,ETH:…,TRX:…,USDT:…,HT:…"; 855d7b4, Aug 2024: XRP, DOGE and SOL added; bc0adce: any list), which chaingw does not read: no published file of it was found to test a reader on; HTX\'s zk proof (htx-zk) is read',
  },
];

/** What a file no format reads is recognised as (NOT_READ's words), each that says so: at most one, and never for a file a format claims. */
export const recognisedAs = (text: string): string[] => NOT_READ.filter((n) => n.is(text)).map((n) => n.what);

/**
 * The format of a liabilities file no entry claims: chaingw's own reader for a file with a top-level `format`
 * member, or when `own` (the command was given chaingw's own flags: --commitment), its refusal naming what is
 * wrong; for any other file a usage error saying it is not a
 * proof format chaingw knows, what it is when recognised, else the format whose marks it comes closest to and
 * which of them it lacks — never the flags of chaingw's own proofs.
 */
export function unclaimed(text: string, file: string, own = false): ProofFormat<LiabilitiesModule> {
  if (own || formatMember(text) !== undefined) return FALLBACK.liabilities;
  const known = NOT_READ.find((n) => n.is(text));
  const head = `${file}: not a proof format chaingw knows`;
  if (known) throw new UsageError(`${head}: it is ${known.what}`);
  const paths = memberPaths(text);
  const near = LIABILITIES.filter((f) => f.marks !== undefined && paths !== undefined)
    .map((f) => ({
      f,
      has: f.marks!.filter((m) => paths!.has(m)),
      lacks: f.marks!.filter((m) => !paths!.has(m)),
    }))
    .filter((x) => x.has.length > 0)
    .sort((a, b) => b.has.length / b.f.marks!.length - a.has.length / a.f.marks!.length)[0];
  if (near)
    throw new UsageError(
      `${head}; the closest is ${near.f.name} (${near.f.title}), whose files have ${near.has.join(", ")} but also ${near.lacks.join(", ")}, which this one lacks (--proof-format ${near.f.name} reads it as that, naming what is wrong)`,
    );
  throw new UsageError(
    `${head} (${paths === undefined ? "not JSON, and not a tree file of BitMEX's form" : "it has none of the members the formats' files have"}); the liabilities formats: ${LIABILITIES.map((f) => f.name).join(", ")}`,
  );
}

/**
 * A reserves file no entry claims that has an address table's columns (HTX's, signed with neither HTX's nor
 * Poloniex's texts): a usage error naming the layouts it is nearest to and what it lacks; any other file goes
 * on to chaingw's own reader (FALLBACK), whose refusal names the field.
 */
export function unclaimedReserves(text: string, file: string): void {
  const why = unclaimedAddressFile(text);
  if (why !== undefined) throw new UsageError(`${file}: ${why}`);
}

/** The formats of a kind as a usage message lists them: "chaingw-utxo (chaingw's UTXO reserve proof, …), …". */
export const formatList = (formats: readonly ProofFormat[]): string =>
  formats.map((f) => `${f.name} (${f.title})`).join("; ");
