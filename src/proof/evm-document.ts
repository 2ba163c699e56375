/**
 * The EVM balances proof (format "chaingw-evm-balances-proof/1"): native and token holdings of a list of
 * addresses at one block, the second format of the reserves proof family (src/proof/document.ts is the
 * UTXO one). Its strict reader names the JSON path of the first bad field, like the UTXO reader.
 *
 * Every amount is a string: base units as a decimal integer (up to 2^256 - 1) and whole units as the
 * shortest exact decimal text. Small integers (block number, decimals, counts) are numbers.
 */
import { CHAIN_NAMES, type GroupName, groupOf } from "../chains/index.js";
import type { JsonObject, JsonValue } from "../json/lossless.js";
import { formatUnits } from "../util/units.js";
import {
  array,
  at,
  describe,
  fail,
  hex64,
  ISO_8601,
  int,
  members,
  parseDocument,
  type Quorum,
  readQuorum,
  string,
  token,
} from "./document.js";

export const EVM_PROOF_FORMAT = "chaingw-evm-balances-proof/1";

/**
 * How the state was read. `pinned`: every read named the block number, on a chain whose nodes serve past
 * state; anyone with an archive node can re-read it. `latest-only`: the chain's JSON-RPC serves state at the
 * head only; the reads ran at the head, and the head was the same block before and after them. Such a
 * snapshot cannot be re-read once the chain has moved on.
 */
export type SnapshotKind = "pinned" | "latest-only";

/** Where an asset's symbol came from: the chain's own coin, an ABI string, a bytes32 word, or nowhere. */
export type SymbolSource = "chain" | "string" | "bytes32" | "none";

export interface EvmBalance {
  /** 0x + 40 lowercase hex digits */
  address: string;
  /** exact whole units (base units when decimals is null) */
  amount: string;
  /** a decimal integer */
  base_units: string;
}

export interface EvmAsset {
  /** "native", or the token contract as 0x + 40 lowercase hex digits */
  id: string;
  symbol: string | null;
  symbol_source: SymbolSource;
  /** null: the token's decimals() gave no answer; amounts are then in base units */
  decimals: number | null;
  /** one per address of the proof, in the proof's address order, zero balances included */
  balances: EvmBalance[];
  total: { amount: string; base_units: string };
  /** addresses holding more than zero */
  holders: number;
}

/** One signature over the challenge, as judged when the proof was made. */
export interface EvmSignature {
  /** 0x + 40 lowercase hex digits */
  address: string;
  /** hex, as given */
  signature: string;
  valid: boolean;
  /** eip191 / tip191: a key's signature; eip1271: the contract wallet's own answer at the proof's block */
  format: "eip191" | "tip191" | "eip1271";
  detail: string;
}

/** Who proved control of which addresses, and per asset the total those addresses hold. */
export interface EvmOwnership {
  signatures: EvmSignature[];
  /** one per asset, in the assets' order: the sum over the addresses with a valid signature */
  proven: { asset: string; amount: string; base_units: string }[];
}

export interface EvmProof {
  format: typeof EVM_PROOF_FORMAT;
  chain: { group: GroupName; chain_id: string; network: string | null };
  snapshot: SnapshotKind;
  block: { number: number; hash: string };
  created_at: string;
  /** the command's inputs exactly as given (T-addresses stay T-addresses) */
  inputs: { addresses: string[]; tokens: string[]; native: boolean; block: string };
  /** the addresses read, normalised and de-duplicated, in input order */
  addresses: string[];
  assets: EvmAsset[];
  /** the text the signatures are over (only with ownership) */
  challenge?: string;
  ownership?: EvmOwnership;
  /** the nodes that answered every read alike (reserves balances --quorum K) */
  quorum?: Quorum;
  /** lowercase hex SHA-256 of the RFC 8785 form of the document without this member */
  digest: string;
}

const HEX20 = /^0x[0-9a-f]{40}$/;
const BASE = /^(0|[1-9][0-9]*)$/;
const MAX_UINT256 = 2n ** 256n - 1n;
const SOURCES: readonly SymbolSource[] = ["chain", "string", "bytes32", "none"];

/**
 * Parses and checks an EVM balances proof. Throws ProofInputError naming the JSON path of the first bad field
 * for: text that is not JSON or repeats a member, a wrong format, missing, unknown or mistyped members, a
 * chain group without EVM traits, a pinned snapshot on a chain whose state reads are latest-only, addresses
 * that are not 20-byte lowercase hex or repeat, assets listed twice, balances that are out of the proof's
 * address order, amounts whose two forms disagree, and totals or holder counts that are not what the
 * balances add up to. The digest is checked for form only (whether it matches is a verdict, not a refusal).
 */
export function readEvmProof(text: string): EvmProof {
  const raw = parseDocument(text);
  const doc = members(
    raw,
    "",
    ["format", "chain", "snapshot", "block", "created_at", "inputs", "addresses", "assets", "digest"],
    ["challenge", "ownership", "quorum"],
  );
  if (doc.format !== EVM_PROOF_FORMAT)
    fail("format", `must be "${EVM_PROOF_FORMAT}", not ${describe(doc.format)}`);

  const c = members(doc.chain, "chain", ["group", "chain_id", "network"], []);
  const group = string(c.group, "chain.group") as GroupName;
  if (!CHAIN_NAMES.includes(group) || !groupOf(group).evm)
    fail(
      "chain.group",
      `"${group}" is not an EVM-style group (${CHAIN_NAMES.filter((n) => groupOf(n).evm).join(", ")})`,
    );
  const chain_id = string(c.chain_id, "chain.chain_id");
  if (!BASE.test(chain_id)) fail("chain.chain_id", `"${chain_id}" is not a decimal chain id`);
  const network = c.network === null ? null : token(c.network, "chain.network");

  const snapshot = string(doc.snapshot, "snapshot") as SnapshotKind;
  if (snapshot !== "pinned" && snapshot !== "latest-only")
    fail("snapshot", `"${snapshot}" is neither "pinned" nor "latest-only"`);
  if (snapshot === "pinned" && !groupOf(group).evm?.pinnedStateReads)
    fail("snapshot", `"pinned", but the ${group} chain serves state reads at the latest block only`);

  const b = members(doc.block, "block", ["number", "hash"], []);
  const block = { number: int(b.number, "block.number"), hash: hash32(b.hash, "block.hash") };

  const created_at = string(doc.created_at, "created_at");
  if (!ISO_8601.test(created_at) || Number.isNaN(Date.parse(created_at)))
    fail(
      "created_at",
      `"${created_at}" is not an ISO-8601 date-time with a zone (e.g. 2026-08-01T12:00:00Z)`,
    );

  const i = members(doc.inputs, "inputs", ["addresses", "tokens", "native", "block"], []);
  const inputs = {
    addresses: array(i.addresses, "inputs.addresses").map((v, k) => token(v, `inputs.addresses[${k}]`)),
    tokens: array(i.tokens, "inputs.tokens").map((v, k) => token(v, `inputs.tokens[${k}]`)),
    native: bool(i.native, "inputs.native"),
    block: token(i.block, "inputs.block"),
  };

  const seen = new Map<string, number>();
  const addresses = array(doc.addresses, "addresses").map((v, k) => {
    const path = `addresses[${k}]`;
    const a = hex20(v, path);
    const prior = seen.get(a);
    if (prior !== undefined) fail(path, `repeats addresses[${prior}]`);
    seen.set(a, k);
    return a;
  });
  if (addresses.length === 0) fail("addresses", "empty: a proof says whose holdings it states");

  const ids = new Map<string, number>();
  const assets = array(doc.assets, "assets").map((v, k) => {
    const path = `assets[${k}]`;
    const a = asset(v, path, addresses);
    const prior = ids.get(a.id);
    if (prior !== undefined) fail(at(path, "id"), `repeats assets[${prior}]`);
    ids.set(a.id, k);
    return a;
  });
  if (assets.length === 0) fail("assets", "empty: a proof states at least one asset");
  if (assets.some((a) => a.id === "native") !== inputs.native)
    fail(
      "inputs.native",
      `${inputs.native}, but the native coin is ${inputs.native ? "not " : ""}among the assets`,
    );

  let challenge: string | undefined;
  let ownership: EvmOwnership | undefined;
  if (doc.challenge !== undefined || doc.ownership !== undefined) {
    challenge = string(doc.challenge, "challenge");
    if (challenge === "") fail("challenge", "empty: signatures over no text prove nothing");
    ownership = ownershipOf(doc.ownership, assets);
  }

  return {
    format: EVM_PROOF_FORMAT,
    chain: { group, chain_id, network },
    snapshot,
    block,
    created_at,
    inputs,
    addresses,
    assets,
    ...(challenge !== undefined ? { challenge, ownership } : {}),
    ...(doc.quorum === undefined ? {} : { quorum: readQuorum(doc.quorum, block.number, block.hash) }),
    digest: hex64(doc.digest, "digest"),
  };
}

const SIG_FORMATS: readonly EvmSignature["format"][] = ["eip191", "tip191", "eip1271"];

function ownershipOf(v: JsonValue | undefined, assets: EvmAsset[]): EvmOwnership {
  const o = members(v, "ownership", ["signatures", "proven"], []);
  const proven = new Set<string>();
  const signatures = array(o.signatures, "ownership.signatures").map((x, k) => {
    const p = `ownership.signatures[${k}]`;
    const s = members(x, p, ["address", "signature", "valid", "format", "detail"], []);
    const address = hex20(s.address, at(p, "address"));
    const signature = string(s.signature, at(p, "signature"));
    if (!/^(0x)?([0-9a-fA-F]{2})+$/.test(signature)) fail(at(p, "signature"), "is not hex bytes");
    const valid = bool(s.valid, at(p, "valid"));
    const format = string(s.format, at(p, "format")) as EvmSignature["format"];
    if (!SIG_FORMATS.includes(format))
      fail(at(p, "format"), `"${format}" is none of ${SIG_FORMATS.join(", ")}`);
    if (valid) proven.add(address);
    return { address, signature, valid, format, detail: string(s.detail, at(p, "detail")) };
  });
  const list = array(o.proven, "ownership.proven");
  if (list.length !== assets.length)
    fail("ownership.proven", `${list.length} entries for ${assets.length} assets (one per asset, in order)`);
  const totals = list.map((x, k) => {
    const p = `ownership.proven[${k}]`;
    const m = members(x, p, ["asset", "amount", "base_units"], []);
    const a = assets[k] as EvmAsset;
    const asset = string(m.asset, at(p, "asset"));
    if (asset !== a.id) fail(at(p, "asset"), `"${asset}", but assets[${k}] is "${a.id}"`);
    const [amount, base] = units(m, p, a.decimals ?? 0, 2n ** 256n * BigInt(a.balances.length));
    const sum = a.balances.reduce((s, b) => (proven.has(b.address) ? s + BigInt(b.base_units) : s), 0n);
    if (base !== sum)
      fail(at(p, "base_units"), `${base}, but the addresses with a valid signature hold ${sum}`);
    return { asset, amount, base_units: base.toString() };
  });
  return { signatures, proven: totals };
}

function asset(v: JsonValue, path: string, addresses: string[]): EvmAsset {
  const m = members(
    v,
    path,
    ["id", "symbol", "symbol_source", "decimals", "balances", "total", "holders"],
    [],
  );
  const id = string(m.id, at(path, "id"));
  if (id !== "native" && !HEX20.test(id))
    fail(at(path, "id"), `"${id}" is neither "native" nor a token contract (0x + 40 lowercase hex digits)`);
  const symbol = m.symbol === null ? null : string(m.symbol, at(path, "symbol"));
  const symbol_source = string(m.symbol_source, at(path, "symbol_source")) as SymbolSource;
  if (!SOURCES.includes(symbol_source))
    fail(at(path, "symbol_source"), `"${symbol_source}" is none of ${SOURCES.join(", ")}`);
  if ((symbol === null) !== (symbol_source === "none"))
    fail(at(path, "symbol"), `${describe(m.symbol)} does not go with symbol_source "${symbol_source}"`);
  if ((id === "native") !== (symbol_source === "chain"))
    fail(
      at(path, "symbol_source"),
      `"${symbol_source}" for ${id === "native" ? "the native coin" : "a token"}`,
    );
  let decimals: number | null = null;
  if (m.decimals !== null) {
    decimals = int(m.decimals, at(path, "decimals"));
    if (decimals > 77) fail(at(path, "decimals"), `${decimals}: a uint256 has at most 78 digits`);
  } else if (id === "native") fail(at(path, "decimals"), "the native coin's decimals are known");
  const d = decimals ?? 0;
  const list = array(m.balances, at(path, "balances"));
  if (list.length !== addresses.length)
    fail(at(path, "balances"), `${list.length} entries for ${addresses.length} addresses`);
  let sum = 0n;
  let holders = 0;
  const balances = list.map((x, k) => {
    const p = `${at(path, "balances")}[${k}]`;
    const e = members(x, p, ["address", "amount", "base_units"], []);
    const address = hex20(e.address, at(p, "address"));
    if (address !== addresses[k])
      fail(
        at(p, "address"),
        `${address}, but addresses[${k}] is ${addresses[k]} (one entry per address, in order)`,
      );
    const [amount, base] = units(e, p, d);
    sum += base;
    if (base > 0n) holders++;
    return { address, amount, base_units: base.toString() };
  });
  const t = members(m.total, at(path, "total"), ["amount", "base_units"], []);
  const [totalAmount, totalBase] = units(t, at(path, "total"), d, 2n ** 256n * BigInt(addresses.length));
  if (totalBase !== sum)
    fail(at(path, "total.base_units"), `${totalBase}, but the balances add up to ${sum}`);
  const h = int(m.holders, at(path, "holders"));
  if (h !== holders) fail(at(path, "holders"), `${h}, but ${holders} balances are above zero`);
  return {
    id,
    symbol,
    symbol_source,
    decimals,
    balances,
    total: { amount: totalAmount, base_units: totalBase.toString() },
    holders,
  };
}

/** `amount` and `base_units` of `m`: a decimal integer, and its exact whole-unit text */
function units(m: JsonObject, path: string, decimals: number, max = MAX_UINT256): [string, bigint] {
  const baseText = string(m.base_units, at(path, "base_units"));
  if (!BASE.test(baseText))
    fail(at(path, "base_units"), `"${baseText}" is not a decimal integer of base units`);
  const base = BigInt(baseText);
  if (base > max) fail(at(path, "base_units"), `${baseText} is above what a uint256 holds`);
  const amount = string(m.amount, at(path, "amount"));
  const want = formatUnits(base, decimals);
  if (amount !== want)
    fail(
      at(path, "amount"),
      `"${amount}", but ${baseText} base units with ${decimals} decimals are "${want}"`,
    );
  return [amount, base];
}

function hex20(v: JsonValue | undefined, path: string): string {
  const s = string(v, path);
  if (!HEX20.test(s)) fail(path, `"${s}" is not an address as 0x + 40 lowercase hex digits`);
  return s;
}

function hash32(v: JsonValue | undefined, path: string): string {
  const s = string(v, path);
  if (!/^0x[0-9a-f]{64}$/.test(s)) fail(path, `"${s}" is not 0x + 64 lowercase hex digits`);
  return s;
}

function bool(v: JsonValue | undefined, path: string): boolean {
  if (typeof v !== "boolean") fail(path, `must be true or false, not ${describe(v)}`);
  return v as boolean;
}
