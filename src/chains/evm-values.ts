/**
 * Checking and normalising eth_ parameter values before anything is sent: QUANTITY, block tags per
 * group, 32-byte hashes, 20-byte addresses (and TRON's T-address / 41-hex forms on the EVM-compat
 * chain), DATA, log filters and call objects. Each normaliser returns the value to send or throws a
 * ParamProblem naming the offending field; callers turn that into a UsageError (exit 2).
 */
import { ParamProblem } from "../errors/index.js";
import { isJsonObject, short as shortText } from "../util/text.js";
import type { ChainGroup, EvmTraits } from "./types.js";

/** The traits of an EVM-style group (a programming error to ask for them of the UTXO group). */
export function evmTraits(chain: ChainGroup): EvmTraits {
  if (!chain.evm) throw new Error(`${chain.name} is not an EVM-style group`);
  return chain.evm;
}

const short = (v: unknown) => shortText(v, 70);
const at = (path: string, msg: string) => new ParamProblem(path ? `${path}: ${msg}` : msg);

/** Largest QUANTITY accepted: 256 bits (values, gas prices), i.e. at most 64 hex digits. */
export const HEX_QTY = /^0x[0-9a-fA-F]{1,64}$/;
/** DATA: 0x + an even number of hex digits */
export const HEX_DATA = /^0x([0-9a-fA-F]{2})*$/;
const DEC_QTY = /^\d{1,78}$/;

/** A QUANTITY: 0x-hex (leading zeros dropped) or a decimal number (converted to hex). */
export function quantity(v: unknown, path = ""): string {
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return `0x${v.toString(16)}`;
  if (typeof v === "string") {
    const t = v.trim();
    if (HEX_QTY.test(t)) return `0x${BigInt(t).toString(16)}`;
    if (DEC_QTY.test(t)) {
      const n = BigInt(t);
      if (n < 2n ** 256n) return `0x${n.toString(16)}`;
    }
  }
  throw at(path, `expected a hex QUANTITY (0x1f) or a decimal number, got ${short(v)}`);
}

/** A block number (hex or decimal) or a tag the group accepts. */
export function blockRef(
  chain: ChainGroup,
  v: unknown,
  path = "",
  tags = evmTraits(chain).blockTags,
): string {
  if (typeof v === "string") {
    const t = v.trim().toLowerCase();
    if (tags.includes(t)) return t;
    if (/^[a-z]+$/.test(t)) {
      if (evmTraits(chain).refusedTags?.includes(t))
        throw at(path, `the ${chain.name} chain does not support the tag ${t} (use ${tags.join(" or ")})`);
      throw at(path, `unknown block tag ${short(v)}; expected a block number or ${tags.join(", ")}`);
    }
  }
  try {
    return quantity(v);
  } catch {
    throw at(
      path,
      `expected a block number (0x hex or decimal) or a tag (${tags.join(", ")}), got ${short(v)}`,
    );
  }
}

/**
 * A block for eth_call: a number, a tag, or a block hash, sent as the EIP-1898 object
 * {"blockHash": "0x.."} where the chain's nodes take it (a hash cannot be a QUANTITY).
 */
export function blockRefOrHash(chain: ChainGroup, v: unknown, path = ""): string | { blockHash: string } {
  if (typeof v === "string" && /^0x[0-9a-fA-F]{64}$/.test(v.trim())) {
    if (!evmTraits(chain).eip1898)
      throw at(path, `the ${chain.name} chain does not take a block hash here; give a number or a tag`);
    return { blockHash: v.trim().toLowerCase() };
  }
  if (isObject(v)) {
    const keys = Object.keys(v);
    if (keys.length === 1 && keys[0] === "blockHash") return blockRefOrHash(chain, v.blockHash, path);
    // EIP-1898's requireCanonical: the node refuses a block hash off the canonical chain
    if (keys.length === 2 && keys.includes("blockHash") && keys.includes("requireCanonical")) {
      if (typeof v.requireCanonical !== "boolean")
        throw at(path, `requireCanonical must be true or false, got ${short(v.requireCanonical)}`);
      const ref = blockRefOrHash(chain, v.blockHash, path) as { blockHash: string };
      return { ...ref, requireCanonical: v.requireCanonical } as { blockHash: string };
    }
    if (keys.length === 1 && keys[0] === "blockNumber")
      return blockRef(chain, v.blockNumber, path, evmTraits(chain).blockTags);
  }
  return blockRef(chain, v, path);
}

/** DATA(32 bytes): 64 hex digits, 0x optional on input, sent as 0x + lowercase. */
export function hash32(v: unknown, path = "", what = "hash"): string {
  if (typeof v === "string" && /^(0x)?[0-9a-fA-F]{64}$/.test(v.trim()))
    return `0x${v.trim().replace(/^0x/, "").toLowerCase()}`;
  throw at(path, `expected a 32-byte ${what} (0x + 64 hex digits), got ${short(v)}`);
}

/**
 * A 20-byte address. On the EVM-compat chain also `T...` base58check and the 21-byte `41...` hex form,
 * both converted to the 20-byte hex every java-tron method accepts (eth_getLogs takes nothing else).
 */
export function address(chain: ChainGroup, v: unknown, path = ""): string {
  const traits = evmTraits(chain);
  if (typeof v === "string") {
    const t = v.trim();
    if (/^0x[0-9a-fA-F]{40}$/.test(t)) return t;
    let own: string | undefined;
    try {
      own = traits.normaliseAddress?.(t);
    } catch (e) {
      throw at(path, (e as Error).message);
    }
    if (own !== undefined) return own;
  }
  // an ENS name (cast resolves them on mainnet): chaingw sends addresses only
  const ens = typeof v === "string" && /^[^\s/]+\.(eth|xyz|box|id)$/i.test(v.trim());
  throw at(
    path,
    `expected an address (${traits.addressForms}), got ${short(v)}${ens ? " (chaingw resolves no ENS names: give the 0x address, e.g. from `cast resolve-name`)" : ""}`,
  );
}

/** DATA of any length: 0x + an even number of hex digits. */
export function data(v: unknown, path = ""): string {
  if (typeof v === "string" && HEX_DATA.test(v.trim())) return v.trim();
  throw at(path, `expected hex bytes (0x + an even number of hex digits), got ${short(v)}`);
}

const isObject = (v: unknown): v is Record<string, unknown> => isJsonObject(v);

function onlyKeys(o: Record<string, unknown>, allowed: readonly string[], what: string): void {
  for (const k of Object.keys(o))
    if (!allowed.includes(k))
      throw new ParamProblem(`unknown ${what} field ${JSON.stringify(k)}; expected ${allowed.join(", ")}`);
}

/**
 * One topics position: null (any), a 32-byte topic, or a list of them (any of). An empty list is any topic,
 * as geth, anvil and execution-apis' `topic-wildcard.io` read it.
 */
export function topicEntry(v: unknown, path: string): string | string[] | null {
  if (v === null) return null;
  if (Array.isArray(v)) return v.map((x, i) => hash32(x, `${path}[${i}]`, "topic"));
  return hash32(v, path, "topic");
}

const FILTER_KEYS = ["fromBlock", "toBlock", "address", "topics", "blockHash"] as const;

/** eth_getLogs filter object, normalised. */
export function logFilter(chain: ChainGroup, v: unknown): Record<string, unknown> {
  if (!isObject(v)) throw new ParamProblem(`expected a JSON filter object, got ${short(v)}`);
  onlyKeys(v, FILTER_KEYS, "filter");
  const out: Record<string, unknown> = {};
  if (v.blockHash !== undefined && (v.fromBlock !== undefined || v.toBlock !== undefined))
    throw new ParamProblem("blockHash cannot be combined with fromBlock/toBlock");
  for (const k of ["fromBlock", "toBlock"] as const)
    if (v[k] !== undefined && v[k] !== null) out[k] = blockRef(chain, v[k], k);
  if (v.address !== undefined && v.address !== null) {
    out.address = Array.isArray(v.address)
      ? v.address.map((a, i) => address(chain, a, `address[${i}]`))
      : address(chain, v.address, "address");
  }
  if (v.topics !== undefined && v.topics !== null) {
    if (!Array.isArray(v.topics)) throw at("topics", `expected an array, got ${short(v.topics)}`);
    if (v.topics.length > 4) throw at("topics", `at most 4 positions, got ${v.topics.length}`);
    out.topics = v.topics.map((t, i) => topicEntry(t, `topics[${i}]`));
  }
  if (v.blockHash !== undefined) out.blockHash = hash32(v.blockHash, "blockHash", "block hash");
  return out;
}

const CALL_KEYS = [
  "from",
  "to",
  "gas",
  "gasPrice",
  "maxFeePerGas",
  "maxPriorityFeePerGas",
  "value",
  "data",
  "input",
  "nonce",
  "type",
  "chainId",
  "accessList",
  // EIP-4844 and EIP-7702, as execution-apis' GenericTransaction has them
  "maxFeePerBlobGas",
  "blobVersionedHashes",
  "blobs",
  "authorizationList",
] as const;
const CALL_QTY = [
  "gas",
  "gasPrice",
  "maxFeePerGas",
  "maxPriorityFeePerGas",
  "maxFeePerBlobGas",
  "value",
  "nonce",
  "type",
  "chainId",
];
/** An EIP-7702 authorization tuple's members (execution-apis' AuthorizationTuple). */
const AUTHORIZATION_KEYS = ["chainId", "nonce", "address", "yParity", "r", "s"] as const;

/** A call object's JSON array member, each item checked; the array sent as given. */
function listOf(v: unknown, path: string, item: (x: unknown, at: string) => unknown): unknown[] {
  if (!Array.isArray(v)) throw at(path, `expected an array, got ${short(v)}`);
  for (const [i, x] of v.entries()) item(x, `${path}[${i}]`);
  return v;
}

/** authorizationList: EIP-7702 tuples {chainId, nonce, address, yParity, r, s}, checked, sent as given. */
function authorizationList(chain: ChainGroup, v: unknown): unknown[] {
  return listOf(v, "authorizationList", (x, p) => {
    if (!isObject(x)) throw at(p, `expected an authorization {${AUTHORIZATION_KEYS.join(", ")}}`);
    onlyKeys(x, AUTHORIZATION_KEYS, p);
    for (const k of AUTHORIZATION_KEYS) {
      if (x[k] === undefined) throw at(`${p}.${k}`, "missing");
      if (k === "address") address(chain, x[k], `${p}.${k}`);
      else quantity(x[k], `${p}.${k}`);
    }
  });
}

/**
 * eth_call / eth_estimateGas call object, normalised. Unknown fields are refused: a typo such as
 * "date" for "data" would otherwise run a different call and answer without complaint.
 */
export function callObject(chain: ChainGroup, v: unknown): Record<string, unknown> {
  if (!isObject(v))
    throw new ParamProblem(`expected a JSON call object like {"to":"0x..","data":"0x.."}, got ${short(v)}`);
  onlyKeys(v, CALL_KEYS, "callObject");
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined) continue;
    if (k === "from" || k === "to") out[k] = x === null && k === "to" ? null : address(chain, x, k);
    else if (k === "data" || k === "input") out[k] = data(x, k);
    else if (CALL_QTY.includes(k)) out[k] = quantity(x, k);
    else if (k === "blobVersionedHashes")
      out[k] = listOf(x, k, (h, p) => hash32(h, p, "blob versioned hash"));
    else if (k === "blobs") out[k] = listOf(x, k, (b, p) => data(b, p));
    else if (k === "authorizationList") out[k] = authorizationList(chain, x);
    else out[k] = x;
  }
  if (out.data !== undefined && out.input !== undefined && out.data !== out.input)
    throw new ParamProblem("data and input differ; give one of them");
  return out;
}
