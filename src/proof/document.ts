/**
 * The reserves proof document (format "chaingw-reserves-proof/1") and its strict reader. A verifier reads a
 * file someone else wrote, so everything the document claims is checked for shape and inner consistency
 * before anything is believed: the first bad field is named by its JSON path.
 *
 * Amounts are decimal strings ("1.23456789", and "123456789" for satoshis): JSON numbers are doubles to most
 * readers and to RFC 8785, which the digest is taken under. Small integers (vout, heights, counts) are numbers.
 */

import { tronToHex20 } from "../chains/tron.js";
import {
  JsonDuplicateMember,
  JsonNumber,
  type JsonObject,
  type JsonValue,
  parseLossless,
} from "../json/lossless.js";
import { accountFormatOf } from "./account-message.js";
import { decodeProofAddress } from "./address.js";
import { ProofInputError } from "./errors.js";
import { type SignatureFormat, verifyMessage } from "./message.js";

export const PROOF_FORMAT = "chaingw-reserves-proof/1";

/**
 * The most keys a proof's ranged descriptors may span, each range and all of them together: Bitcoin Core's
 * own limit of one range (scantxoutset, deriveaddresses), and what `reserves scan --range` makes. A
 * verifier expands every range on the node: this bounds the keys it asks for, whatever the proof says.
 */
export const MAX_SCAN_KEYS = 1_000_000;

/** An address or descriptor as given to scantxoutset, a ranged descriptor with its [begin, end] range */
export type ScanObject = string | { desc: string; range: [number, number] };

export interface ProofOutput {
  txid: string;
  vout: number;
  /** coins, exact decimal with at most 8 places */
  amount: string;
  /** the same amount in satoshis, a decimal integer */
  amount_sats: string;
  script_pubkey: string;
  /** the scan object (address or descriptor) that found this output */
  matched: string;
  height: number;
  block_hash: string;
}

/** An output the scan found but left out of the total (too few confirmations) */
export interface ExcludedOutput extends ProofOutput {
  confirmations: number;
}

export interface AddressTotal {
  address: string;
  amount: string;
  amount_sats: string;
  outputs: number;
}

export interface ProofTotal {
  amount: string;
  amount_sats: string;
  outputs: number;
}

export interface OwnershipSignature {
  address: string;
  signature: string;
  valid: boolean;
  format: SignatureFormat;
  detail: string;
}

export interface Ownership {
  signatures: OwnershipSignature[];
  /** satoshis held by addresses with a valid signature */
  proven_sats: string;
  /** the rest of the total */
  claimed_only_sats: string;
}

export interface Proof {
  format: typeof PROOF_FORMAT;
  /** the node's getblockchaininfo "chain" ("main", "test", "signet", "regtest", ...) */
  chain: string;
  height: number;
  block_hash: string;
  created_at: string;
  challenge: string | null;
  min_conf?: number;
  scan_objects: ScanObject[];
  outputs: ProofOutput[];
  excluded?: ExcludedOutput[];
  by_address: AddressTotal[];
  total: ProofTotal;
  ownership?: Ownership;
  /** the nodes that answered every read alike (reserves scan --quorum K) */
  quorum?: Quorum;
  /** lowercase hex SHA-256 of the RFC 8785 form of the document without this member (jcs.ts digestOf) */
  digest: string;
}

/** One node of a quorum, as it described itself: never its URL (credentials stay out of proofs). */
export interface QuorumNode {
  /** what the node says it runs: getnetworkinfo's subversion, web3_clientVersion */
  client: string;
  /** its chain: getblockchaininfo's chain, or the EVM chain id */
  chain: string;
  /** its tip when it answered */
  height: number;
  block_hash: string;
}

/** K distinct nodes gave the same answer to every read that entered the proof, at the proof's block. */
export interface Quorum {
  k: number;
  nodes: QuorumNode[];
}

/** The quorum member of either proof format: k nodes, each at the proof's block. */
export function readQuorum(v: JsonValue, height: number, blockHash: string): Quorum {
  const q = members(v, "quorum", ["k", "nodes"], []);
  const k = int(q.k, "quorum.k");
  if (k < 2) fail("quorum.k", `${k}: a quorum is at least 2 nodes`);
  const nodes = array(q.nodes, "quorum.nodes").map((x, i) => {
    const path = `quorum.nodes[${i}]`;
    const n = members(x, path, ["client", "chain", "height", "block_hash"], []);
    const node = {
      client: string(n.client, at(path, "client")),
      chain: token(n.chain, at(path, "chain")),
      height: int(n.height, at(path, "height")),
      block_hash: string(n.block_hash, at(path, "block_hash")),
    };
    if (node.height !== height || node.block_hash !== blockHash)
      fail(
        path,
        `answered at block ${node.height} ${node.block_hash}, not the proof's ${height} ${blockHash}`,
      );
    return node;
  });
  if (nodes.length !== k) fail("quorum.nodes", `${nodes.length} nodes for k = ${k}`);
  return { k, nodes };
}

export const fail = (path: string, why: string): never => {
  throw new ProofInputError(path || "document", why);
};
export const at = (path: string, key: string): string => (path ? `${path}.${key}` : key);

const HEX64 = /^[0-9a-f]{64}$/;
const SATS = /^(0|[1-9][0-9]*)$/;
const COINS = /^(0|[1-9][0-9]*)(\.[0-9]{1,8})?$/;
export const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const FORMATS: readonly SignatureFormat[] = [
  "legacy",
  "bip322-simple",
  "bip322-full",
  "bip322-pof",
  "eip191",
  "tip191",
  "eip1271",
];

/** A proof file's JSON (lossless), refused when it is not JSON or repeats a member name (named by path). */
export function parseDocument(text: string): JsonValue {
  try {
    return parseLossless(text, { duplicates: "reject" });
  } catch (e) {
    if (e instanceof JsonDuplicateMember)
      return fail(
        e.path,
        `member "${e.key}" appears twice (I-JSON forbids it; readers disagree on which wins)`,
      );
    // the parser's message already says where
    return fail("document", `not JSON: ${(e as Error).message}`);
  }
}

/**
 * Parses and checks a proof document. Throws ProofInputError whose `field` is the JSON path of the first bad
 * field ("document" for the whole), for: text that is not JSON or repeats a member name, a wrong "format",
 * missing, unknown or mistyped members, amounts that are not exact decimal strings or disagree with their
 * satoshi form, outpoints listed twice, outputs above the proof's height or under its min_conf, and totals
 * (overall, per address, ownership split) that are not the sums of what they total.
 *
 * The digest is only checked for form here: whether it matches is a verdict on the document (digestOf), not
 * a reason to refuse reading it.
 */
export function readProof(text: string): Proof {
  const raw = parseDocument(text);

  const doc = members(
    raw,
    "",
    [
      "format",
      "chain",
      "height",
      "block_hash",
      "created_at",
      "challenge",
      "scan_objects",
      "outputs",
      "by_address",
      "total",
      "digest",
    ],
    ["min_conf", "excluded", "ownership", "quorum"],
  );
  if (doc.format !== PROOF_FORMAT) fail("format", `must be "${PROOF_FORMAT}", not ${describe(doc.format)}`);
  const chain = string(doc.chain, "chain");
  if (!/^[a-z0-9]+$/.test(chain))
    fail("chain", `"${chain}" is not a chain name as getblockchaininfo prints it`);
  const height = int(doc.height, "height");
  const block_hash = hex64(doc.block_hash, "block_hash");
  const created_at = string(doc.created_at, "created_at");
  if (!ISO_8601.test(created_at) || Number.isNaN(Date.parse(created_at)))
    fail(
      "created_at",
      `"${created_at}" is not an ISO-8601 date-time with a zone (e.g. 2026-08-01T12:00:00Z)`,
    );
  const challenge = doc.challenge === null ? null : string(doc.challenge, "challenge");
  if (challenge !== null && challenge.trim() === "")
    fail("challenge", "empty: signatures over an empty text prove nothing fresh (null when there is none)");
  const min_conf = doc.min_conf === undefined ? undefined : int(doc.min_conf, "min_conf");

  const scan_objects = array(doc.scan_objects, "scan_objects").map((v, i) =>
    scanObject(v, `scan_objects[${i}]`),
  );
  if (scan_objects.length === 0) fail("scan_objects", "empty: a proof says what was scanned");
  const keys = scan_objects.reduce(
    (n, o) => n + (typeof o === "string" ? 0 : o.range[1] - o.range[0] + 1),
    0,
  );
  if (keys > MAX_SCAN_KEYS)
    fail(
      "scan_objects",
      `its ranged descriptors span ${keys.toLocaleString("en")} keys; a proof's ranges span at most ${MAX_SCAN_KEYS.toLocaleString("en")} in all (as \`reserves scan --range\` makes them), so that verifying it asks the node a bounded number of keys`,
    );

  const { outputs, excluded } = readOutputs(doc, height, min_conf);

  const by_address = readByAddress(doc.by_address);

  const { total, sum } = readTotal(doc.total, outputs, by_address);

  let ownership: Ownership | undefined;
  if (doc.ownership !== undefined) ownership = readOwnership(doc.ownership, by_address, sum);

  const proof: Proof = {
    format: PROOF_FORMAT,
    chain,
    height,
    block_hash,
    created_at,
    challenge,
    ...(min_conf === undefined ? {} : { min_conf }),
    scan_objects,
    outputs,
    ...(excluded === undefined ? {} : { excluded }),
    by_address,
    total,
    ...(ownership === undefined ? {} : { ownership }),
    ...(doc.quorum === undefined ? {} : { quorum: readQuorum(doc.quorum, height, block_hash) }),
    digest: hex64(doc.digest, "digest"),
  };
  return proof;
}

/**
 * `outputs` and `excluded`: each outpoint once across both, none above the proof's height, the counted ones
 * with min_conf confirmations, the excluded ones with the confirmations their height gives.
 */
function readOutputs(
  doc: Record<string, JsonValue | undefined>,
  height: number,
  min_conf: number | undefined,
): { outputs: ProofOutput[]; excluded: ExcludedOutput[] | undefined } {
  const seen = new Map<string, string>();
  const outputs = array(doc.outputs, "outputs").map((v, i) => {
    const path = `outputs[${i}]`;
    const o = output(v, path, false);
    outpointOnce(seen, o, path);
    if (o.height > height) fail(at(path, "height"), `${o.height} is above the proof's height ${height}`);
    if (min_conf !== undefined && height - o.height + 1 < min_conf)
      fail(
        at(path, "height"),
        `${height - o.height + 1} confirmations at the proof's height, under min_conf ${min_conf}`,
      );
    return o;
  });
  let excluded: ExcludedOutput[] | undefined;
  if (doc.excluded !== undefined) {
    excluded = array(doc.excluded, "excluded").map((v, i) => {
      const path = `excluded[${i}]`;
      const o = output(v, path, true) as ExcludedOutput;
      outpointOnce(seen, o, path);
      const expected = height - o.height + 1;
      if (o.confirmations !== expected)
        fail(
          at(path, "confirmations"),
          `${o.confirmations}, but an output at height ${o.height} has ${expected} at the proof's height ${height}`,
        );
      return o;
    });
  }

  return { outputs, excluded };
}

/** `by_address`: each address once, its amount in both forms. */
function readByAddress(v: JsonValue | undefined): AddressTotal[] {
  const addresses = new Map<string, number>();
  const by_address = array(v, "by_address").map((v, i) => {
    const path = `by_address[${i}]`;
    const m = members(v, path, ["address", "amount", "amount_sats", "outputs"], []);
    const address = token(m.address, at(path, "address"));
    const prior = addresses.get(address);
    if (prior !== undefined) fail(at(path, "address"), `repeats by_address[${prior}]`);
    addresses.set(address, i);
    const [amount, amount_sats] = coins(m, path);
    return { address, amount, amount_sats, outputs: int(m.outputs, at(path, "outputs")) };
  });

  return by_address;
}

/** `total`, and that the outputs and by_address add up to it. */
function readTotal(
  v: JsonValue | undefined,
  outputs: ProofOutput[],
  by_address: AddressTotal[],
): { total: ProofTotal; sum: bigint } {
  const t = members(v, "total", ["amount", "amount_sats", "outputs"], []);
  const [totalAmount, totalSats] = coins(t, "total");
  const total: ProofTotal = {
    amount: totalAmount,
    amount_sats: totalSats,
    outputs: int(t.outputs, "total.outputs"),
  };
  if (total.outputs !== outputs.length)
    fail("total.outputs", `${total.outputs}, but the document lists ${outputs.length} outputs`);
  const sum = outputs.reduce((s, o) => s + BigInt(o.amount_sats), 0n);
  if (BigInt(total.amount_sats) !== sum)
    fail("total.amount_sats", `${total.amount_sats}, but the outputs' amount_sats add up to ${sum}`);
  const byAddressSats = by_address.reduce((s, a) => s + BigInt(a.amount_sats), 0n);
  if (byAddressSats !== sum)
    fail("by_address", `amount_sats add up to ${byAddressSats}, the total is ${sum}`);
  const byAddressOutputs = by_address.reduce((s, a) => s + a.outputs, 0);
  if (byAddressOutputs !== outputs.length)
    fail("by_address", `outputs add up to ${byAddressOutputs}, the document lists ${outputs.length}`);

  return { total, sum };
}

function readOwnership(v: JsonValue | undefined, byAddress: AddressTotal[], total: bigint): Ownership {
  const m = members(v, "ownership", ["signatures", "proven_sats", "claimed_only_sats"], []);
  const signatures = array(m.signatures, "ownership.signatures").map((s, i) => {
    const path = `ownership.signatures[${i}]`;
    const o = members(s, path, ["address", "signature", "valid", "format", "detail"], []);
    const format = string(o.format, at(path, "format"));
    if (!FORMATS.includes(format as SignatureFormat))
      fail(at(path, "format"), `"${format}" is none of ${FORMATS.join(", ")}`);
    if (typeof o.valid !== "boolean")
      fail(at(path, "valid"), `must be true or false, not ${describe(o.valid)}`);
    return {
      address: token(o.address, at(path, "address")),
      signature: token(o.signature, at(path, "signature")),
      valid: o.valid as boolean,
      format: format as SignatureFormat,
      detail: string(o.detail, at(path, "detail")),
    };
  });
  const proven_sats = sats(m.proven_sats, "ownership.proven_sats");
  const claimed_only_sats = sats(m.claimed_only_sats, "ownership.claimed_only_sats");
  const signed = new Set(signatures.filter((s) => s.valid).map((s) => s.address));
  const proven = byAddress
    .filter((a) => signed.has(a.address))
    .reduce((s, a) => s + BigInt(a.amount_sats), 0n);
  if (BigInt(proven_sats) !== proven)
    fail("ownership.proven_sats", `${proven_sats}, but the addresses with a valid signature hold ${proven}`);
  if (BigInt(proven_sats) + BigInt(claimed_only_sats) !== total)
    fail(
      "ownership.claimed_only_sats",
      `${claimed_only_sats}, but proven + claimed-only must be the total ${total}`,
    );
  return { signatures, proven_sats, claimed_only_sats };
}

function output(v: JsonValue, path: string, excluded: boolean): ProofOutput | ExcludedOutput {
  const keys = ["txid", "vout", "amount", "amount_sats", "script_pubkey", "matched", "height", "block_hash"];
  const m = members(v, path, excluded ? [...keys, "confirmations"] : keys, []);
  const txid = hex64(m.txid, at(path, "txid"));
  const vout = int(m.vout, at(path, "vout"));
  const [amount, amount_sats] = coins(m, path);
  const script_pubkey = string(m.script_pubkey, at(path, "script_pubkey"));
  if (!/^([0-9a-f]{2})+$/.test(script_pubkey))
    fail(at(path, "script_pubkey"), "must be non-empty lowercase hex of whole bytes");
  const o: ProofOutput = {
    txid,
    vout,
    amount,
    amount_sats,
    script_pubkey,
    matched: string(m.matched, at(path, "matched")),
    height: int(m.height, at(path, "height")),
    block_hash: hex64(m.block_hash, at(path, "block_hash")),
  };
  if (o.matched === "") fail(at(path, "matched"), "empty: which scan object found the output?");
  return excluded ? { ...o, confirmations: int(m.confirmations, at(path, "confirmations")) } : o;
}

function outpointOnce(seen: Map<string, string>, o: ProofOutput, path: string): void {
  const key = `${o.txid}:${o.vout}`;
  const prior = seen.get(key);
  if (prior !== undefined) fail(path, `outpoint ${key} is already ${prior}`);
  seen.set(key, path);
}

function scanObject(v: JsonValue, path: string): ScanObject {
  if (typeof v === "string") {
    if (v === "") fail(path, "empty scan object");
    return v;
  }
  const m = members(v, path, ["desc", "range"], []);
  const desc = string(m.desc, at(path, "desc"));
  if (desc === "") fail(at(path, "desc"), "empty descriptor");
  const range = array(m.range, at(path, "range"));
  if (range.length !== 2) fail(at(path, "range"), "must be [begin, end]");
  const begin = int(range[0] as JsonValue, at(path, "range[0]"));
  const end = int(range[1] as JsonValue, at(path, "range[1]"));
  if (end < begin) fail(at(path, "range"), `end ${end} is below begin ${begin}`);
  if (end >= 2 ** 31) fail(at(path, "range"), `end ${end}: a descriptor's indexes end below 2^31`);
  if (end - begin + 1 > MAX_SCAN_KEYS)
    fail(
      at(path, "range"),
      `[${begin}, ${end}] spans ${(end - begin + 1).toLocaleString("en")} keys; at most ${MAX_SCAN_KEYS.toLocaleString("en")} (the node's own limit, and \`reserves scan --range\`'s)`,
    );
  return { desc, range: [begin, end] };
}

/** `amount` and `amount_sats` of `m`, each well formed and naming the same number of satoshis */
function coins(m: JsonObject, path: string): [string, string] {
  const amount = string(m.amount, at(path, "amount"));
  if (!COINS.test(amount))
    fail(
      at(path, "amount"),
      `"${amount}" is not an exact decimal amount (digits, at most 8 after the point)`,
    );
  const amount_sats = sats(m.amount_sats, at(path, "amount_sats"));
  const [whole, frac = ""] = amount.split(".");
  const inSats = BigInt(whole as string) * 100_000_000n + BigInt(frac.padEnd(8, "0"));
  if (inSats !== BigInt(amount_sats))
    fail(at(path, "amount"), `${amount} is ${inSats} satoshis, but amount_sats says ${amount_sats}`);
  return [amount, amount_sats];
}

function sats(v: JsonValue | undefined, path: string): string {
  if (v instanceof JsonNumber) fail(path, `must be a decimal string ("${v.raw}"), not a JSON number`);
  const s = string(v, path);
  if (!SATS.test(s)) fail(path, `"${s}" is not a decimal integer of satoshis`);
  return s;
}

export function members(
  v: JsonValue | undefined,
  path: string,
  required: string[],
  optional: string[],
): JsonObject {
  if (v === null || typeof v !== "object" || Array.isArray(v) || v instanceof JsonNumber)
    return fail(path, `must be an object, not ${describe(v)}`);
  for (const k of required) if (!Object.hasOwn(v, k)) fail(at(path, k), "missing");
  for (const k of Object.keys(v))
    if (!required.includes(k) && !optional.includes(k))
      fail(at(path, k), "unknown member (format /1 has no such field)");
  return v;
}

export function array(v: JsonValue | undefined, path: string): JsonValue[] {
  if (!Array.isArray(v)) return fail(path, `must be an array, not ${describe(v)}`);
  return v;
}

export function string(v: JsonValue | undefined, path: string): string {
  if (typeof v !== "string") return fail(path, `must be a string, not ${describe(v)}`);
  return v;
}

/** a non-empty string without whitespace: addresses, signatures */
export function token(v: JsonValue | undefined, path: string): string {
  const s = string(v, path);
  if (!/^\S+$/.test(s)) fail(path, s === "" ? "empty" : "contains whitespace");
  return s;
}

export function hex64(v: JsonValue | undefined, path: string): string {
  const s = string(v, path);
  if (!HEX64.test(s)) fail(path, `"${s}" is not 64 lowercase hex digits`);
  return s;
}

/** a non-negative integer written plainly ("7", not "7.0" or "7e0"), at most 2^53 - 1 */
export function int(v: JsonValue | undefined, path: string): number {
  if (!(v instanceof JsonNumber)) return fail(path, `must be a number, not ${describe(v)}`);
  if (!SATS.test(v.raw)) fail(path, `${v.raw} is not a non-negative integer written in plain digits`);
  const n = Number(v.raw);
  if (!Number.isSafeInteger(n)) fail(path, `${v.raw} is above 2^53 - 1 (write such numbers as strings)`);
  return n;
}

export function describe(v: JsonValue | undefined): string {
  if (v === undefined) return "missing";
  if (v === null) return "null";
  if (v instanceof JsonNumber) return `the number ${v.raw}`;
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  if (typeof v === "string") return `"${v.length > 40 ? `${v.slice(0, 40)}…` : v}"`;
  return String(v);
}

export interface SignatureLine {
  address: string;
  signature: string;
  /** 1-based line number in the file */
  line: number;
}

/**
 * Reads a signature file: one `address,signature` per line. Blank lines and lines starting with `#` are
 * skipped, CRLF endings and a header line `address,signature` are tolerated, fields may be double-quoted as
 * spreadsheets export them. A line that is not two fields, an address of no supported chain or a signature
 * outside base64 (with an optional BIP-322 prefix) throws ProofInputError with field "line N".
 */
export function readSignatureFile(text: string): SignatureLine[] {
  const out: SignatureLine[] = [];
  const lines = text.split("\n");
  let sawData = false;
  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const line = (lines[i] as string).replace(/\r$/, "").trim();
    if (line === "" || line.startsWith("#")) continue;
    const fields = line.split(",").map((f) => f.trim().replace(/^"(.*)"$/, "$1"));
    if (
      !sawData &&
      fields.length === 2 &&
      fields[0]?.toLowerCase() === "address" &&
      fields[1]?.toLowerCase() === "signature"
    ) {
      sawData = true;
      continue;
    }
    sawData = true;
    if (fields.length !== 2)
      fail(`line ${n}`, `${fields.length} comma-separated fields; expected address,signature`);
    const [address, signature] = fields as [string, string];
    if (address === "") fail(`line ${n}`, "empty address");
    if (signature === "") fail(`line ${n}`, "empty signature");
    const account = accountFormatOf(address);
    try {
      if (account === "tip191") tronToHex20(address);
      else if (!account) decodeProofAddress(address);
    } catch (e) {
      if (e instanceof ProofInputError) fail(`line ${n}`, `address ${address}: ${e.reason}`);
      fail(`line ${n}`, (e as Error).message);
    }
    // an account's signature is hex bytes of any length: a key's is 65, a contract wallet's (EIP-1271) is
    // whatever the wallet reads (a Safe's bundle of its owners' signatures); the chain judges it later
    if (account && !/^(0x)?([0-9a-fA-F]{2})+$/.test(signature))
      fail(
        `line ${n}`,
        "the signature is not hex bytes (a key's EVM or TRON signature is 0x + 130 hex digits; a contract wallet's may be of any length)",
      );
    if (!account && !/^(smp|ful|pof)?[A-Za-z0-9+/]+={0,2}$/.test(signature))
      fail(`line ${n}`, "the signature is not base64 (optionally after a BIP-322 smp/ful/pof prefix)");
    // its form is read now (before anything is sent): a signature of no supported form is bad input
    if (!account)
      try {
        verifyMessage(address, signature, "");
      } catch (e) {
        fail(
          `line ${n}`,
          `the signature is of no supported form (${e instanceof ProofInputError ? e.reason : (e as Error).message})`,
        );
      }
    out.push({ address, signature, line: n });
  }
  return out;
}
