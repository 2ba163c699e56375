/**
 * Parameter kinds and named options of the eth_ methods, per group. Positional params read as in the
 * spec (JSON for objects); the named options (--to, --data, --from-block, --topic, ...) fold into the
 * same objects and go through the same checks.
 */

import {
  address,
  blockRef,
  blockRefOrHash,
  callObject,
  data,
  evmTraits,
  hash32,
  logFilter,
  quantity,
  topicEntry,
} from "../chains/evm-values.js";
import type { ChainGroup } from "../chains/index.js";
import { ParamProblem, UsageError } from "../errors/index.js";
import { short } from "../util/text.js";
import { asJson, asUsage, bool, param } from "./params.js";
import type { OptionDef, ParamDef, ParamKind } from "./types.js";

const trim = (t: string) => t.trim();

export function blockNumberKind(chain: ChainGroup, tags = evmTraits(chain).blockTags): ParamKind {
  return {
    expected: `a block number (0x hex or decimal) or ${tags.join(", ")}`,
    fromText: trim,
    check: (v) => blockRef(chain, v, "", tags),
  };
}

/** eth_call's block: a number, a tag, or a block hash (EIP-1898 where the chain takes it). */
export function blockOrHashKind(chain: ChainGroup): ParamKind {
  const tags = evmTraits(chain).blockTags;
  return {
    expected: `a block number (0x hex or decimal), ${tags.join(", ")}${evmTraits(chain).eip1898 ? ", or a 32-byte block hash" : ""}`,
    fromText: (t) => {
      const s = t.trim();
      // the EIP-1898 object given as JSON on the command line
      if (s.startsWith("{")) return asJson(s);
      return s;
    },
    check: (v) => blockRefOrHash(chain, v),
  };
}

export const hashKind = (what: string): ParamKind => ({
  expected: `a 32-byte ${what} (0x + 64 hex digits)`,
  fromText: trim,
  check: (v) => hash32(v, "", what),
});

export function filterKind(chain: ChainGroup): ParamKind {
  return {
    expected: `a JSON filter object {fromBlock, toBlock, address, topics, blockHash}`,
    fromText: asJson,
    check: (v) => logFilter(chain, v),
  };
}

const OVERRIDE_KEYS = ["balance", "nonce", "code", "state", "stateDiff", "movePrecompileToAddress"];

/**
 * eth_call's and eth_estimateGas's state override set (geth, anvil, erigon, reth, most providers): an
 * object from addresses to {balance, nonce, code, state | stateDiff}. Checked for shape, sent as given.
 */
export function stateOverrideKind(chain: ChainGroup): ParamKind {
  return {
    expected: 'a JSON state override {"0x<address>": {"balance": "0x..", "code": "0x..", "state": {..}}}',
    fromText: asJson,
    check: (v) => {
      // null: no override (geth and anvil take it; viem sends it before block overrides)
      if (v === null) return null;
      if (typeof v !== "object" || v === null || Array.isArray(v))
        throw new ParamProblem(`expected a JSON object of address → override, got ${short(v)}`);
      for (const [k, o] of Object.entries(v)) {
        address(chain, k, k);
        if (typeof o !== "object" || o === null || Array.isArray(o))
          throw new ParamProblem(`${k}: expected an object {balance, nonce, code, state | stateDiff}`);
        for (const key of Object.keys(o))
          if (!OVERRIDE_KEYS.includes(key))
            throw new ParamProblem(
              `${k}: unknown member ${JSON.stringify(key)} (${OVERRIDE_KEYS.join(", ")})`,
            );
        if ("state" in o && "stateDiff" in o)
          throw new ParamProblem(`${k}: state and stateDiff exclude each other`);
      }
      return v;
    },
  };
}

/**
 * eth_call's block overrides (its fourth param: geth, anvil, viem's `blockOverrides`): the fields of the
 * block the call runs in, by geth's names and alloy's aliases. Checked for shape (an object of known
 * fields, or null), sent as given.
 */
const BLOCK_OVERRIDE_KEYS = [
  "number",
  "difficulty",
  "time",
  "gasLimit",
  "feeRecipient",
  "coinbase",
  "prevRandao",
  "random",
  "baseFeePerGas",
  "baseFee",
  "blobBaseFee",
  "beaconRoot",
  "withdrawals",
  "blockHash",
];
export const blockOverridesKind: ParamKind = {
  expected: 'a JSON block override {"number", "time", "gasLimit", "feeRecipient", "baseFeePerGas", ...}',
  fromText: asJson,
  check: (v) => {
    if (v === null) return null;
    if (typeof v !== "object" || Array.isArray(v))
      throw new ParamProblem(`expected a JSON object of block fields, got ${short(v)}`);
    for (const key of Object.keys(v))
      if (!BLOCK_OVERRIDE_KEYS.includes(key))
        throw new ParamProblem(`unknown member ${JSON.stringify(key)} (${BLOCK_OVERRIDE_KEYS.join(", ")})`);
    return v;
  },
};

export function callKind(chain: ChainGroup): ParamKind {
  return {
    expected: 'a JSON call object like {"to":"0x..","data":"0x.."}',
    fromText: asJson,
    check: (v) => callObject(chain, v),
  };
}

export const txHashParam = (): ParamDef =>
  param("txHash", "DATA(32 bytes)", true, "transaction hash", hashKind("transaction hash"));

export const fullTransactionsParam = (): ParamDef =>
  param(
    "fullTransactions",
    "BOOLEAN",
    true,
    "true full transaction objects; false hashes only (default false, always sent)",
    bool,
    { default: false, nodeRequires: true },
  );

export const CALL_OPTIONS: OptionDef[] = [
  { flags: "--from <address>", help: "callObject.from: the sender address" },
  { flags: "--to <address>", help: "callObject.to: the contract (or recipient) address" },
  { flags: "--data <hex>", help: "callObject.data: calldata, 0x hex (selector + ABI-encoded args)" },
  { flags: "--value <amount>", help: "callObject.value in wei (sun on TRON): decimal or 0x hex" },
];

/** Folds --from/--to/--data/--value into params[0] (options win over the JSON's fields). */
export function callFromOptions(
  method: string,
  chain: ChainGroup,
  opts: Record<string, unknown>,
  params: unknown[],
) {
  const obj = { ...(params[0] as Record<string, unknown>) };
  if (opts.from !== undefined) obj.from = opts.from;
  if (opts.to !== undefined) obj.to = opts.to;
  if (opts.data !== undefined) {
    obj.data = asUsage(method, "--data", () => data(opts.data));
    delete obj.input;
  }
  if (opts.value !== undefined) obj.value = asUsage(method, "--value", () => quantity(opts.value));
  const out = [...params];
  out[0] = asUsage(method, "callObject", () => callObject(chain, obj));
  return out;
}

export function requireCallTarget(method: string, params: unknown[]): void {
  const o = params[0] as Record<string, unknown>;
  if (o.to === undefined && o.data === undefined && o.input === undefined)
    throw new UsageError(`${method}: give a callObject or --to (and --data): nothing to call`);
}

export const LOG_OPTIONS: OptionDef[] = [
  { flags: "--from-block <block>", help: "filter.fromBlock: block number (hex or decimal) or tag" },
  { flags: "--to-block <block>", help: "filter.toBlock: block number (hex or decimal) or tag" },
  {
    flags: "--address <address>",
    help: "filter.address; repeatable: several are any of",
    repeatable: true,
  },
  {
    flags: "--topic <topic>",
    help: 'filter.topics, repeatable: one per position in order, a 32-byte topic, "a,b" for any of several, "" or null for any',
    repeatable: true,
  },
  {
    flags: "--split [blocks]",
    help: "any range length: windows starting at [blocks] (default 100), halved where the upstream says too large; streamed in block order",
  },
];

/** One --topic text → one topics position. */
function topicFromText(t: string, i: number): string | string[] | null {
  const s = t.trim();
  if (s === "" || s.toLowerCase() === "null" || s === "*") return null;
  const parts = s.split(",").map((p) => p.trim());
  return topicEntry(parts.length === 1 ? parts[0] : parts, `topic ${i + 1}`);
}

/** Folds the log options into params[0]; options win over the JSON's fields. */
export function logsFromOptions(chain: ChainGroup, opts: Record<string, unknown>, params: unknown[]) {
  const f = { ...(params[0] as Record<string, unknown>) };
  if (opts.fromBlock !== undefined) f.fromBlock = opts.fromBlock;
  if (opts.toBlock !== undefined) f.toBlock = opts.toBlock;
  const addrs = opts.address as string[] | undefined;
  if (addrs?.length) f.address = addrs.length === 1 ? addrs[0] : addrs;
  const topics = opts.topic as string[] | undefined;
  if (topics?.length) f.topics = asUsage("eth_getLogs", "--topic", () => topics.map(topicFromText));
  const out = [...params];
  out[0] = asUsage("eth_getLogs", "filter", () => logFilter(chain, f));
  return out;
}

export function addressKind(chain: ChainGroup): ParamKind {
  return {
    expected: `an address (${evmTraits(chain).addressForms})`,
    fromText: trim,
    check: (v) => address(chain, v),
  };
}

/** The block at which account state is read: what the chain allows (TRON: only latest). */
export function stateBlockKind(chain: ChainGroup): ParamKind {
  const only = evmTraits(chain).stateTags;
  // a number, a tag, or (EIP-1898) a block hash / {"blockHash": …, "requireCanonical": …} / {"blockNumber": …}
  if (!only) return blockOrHashKind(chain);
  return {
    expected: `${only.join(" or ")} (this chain reads state at no other block)`,
    fromText: trim,
    check: (v) => {
      const t = typeof v === "string" ? v.trim().toLowerCase() : undefined;
      if (t !== undefined && only.includes(t)) return t;
      throw new ParamProblem(
        `the ${chain.name} chain reads state only at ${only.join(", ")}, got ${short(v)}`,
      );
    },
  };
}

export const stateBlockParam = (chain: ChainGroup): ParamDef =>
  param(
    "blockNumber",
    "QUANTITY or TAG",
    true,
    "block number or tag to read at (default latest, always sent)",
    stateBlockKind(chain),
    { default: "latest" },
  );

/** A storage slot: a QUANTITY (0x0, 5) or a 32-byte word; sent as the node's QUANTITY form. */
export const slotKind: ParamKind = {
  expected: "a storage slot: 0x hex or decimal, at most 32 bytes",
  fromText: trim,
  check: (v) => quantity(v),
};

/** A JSON array of at most `max` items, each checked by `item`. */
export const jsonListKind = (
  expected: string,
  item: (v: unknown, i: number) => unknown,
  max: number,
): ParamKind => ({
  expected,
  fromText: asJson,
  check: (v) => {
    if (!Array.isArray(v) || v.length > max) throw new ParamProblem(`expected ${expected}, got ${short(v)}`);
    return v.map(item);
  },
});

/** eth_feeHistory's percentiles: numbers from 0 to 100, increasing. */
export const percentilesKind = jsonListKind(
  "a JSON array of increasing percentiles 0-100, like [25,50,75]",
  (x, i) => {
    if (typeof x !== "number" || !Number.isFinite(x) || x < 0 || x > 100)
      throw new ParamProblem(`rewardPercentiles[${i}]: expected a number from 0 to 100, got ${short(x)}`);
    return x;
  },
  100,
);

/**
 * eth_feeHistory's blockCount: any count a node reads (a 64-bit number), which the node clamps to its own cap
 * (geth 1024; anvil answers what it has). Larger ones are refused here: anvil 1.7 panics on a count beyond
 * 64 bits and stops answering. The count is sent as given when it is a hex QUANTITY already.
 */
export const blockCountKind: ParamKind = {
  expected: "a block count, 0x hex or decimal, below 2^64",
  fromText: trim,
  check: (v) => {
    const q = quantity(v);
    if (BigInt(q) >= 2n ** 64n)
      throw new ParamProblem(
        `expected a block count below 2^64 (nodes clamp to their own cap), got ${short(v)}`,
      );
    return typeof v === "string" && /^0x[0-9a-fA-F]+$/.test(v) ? v : q;
  },
};
