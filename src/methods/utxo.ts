/** The UTXO group (bitcoind-style methods), as ../shared/spec/gateway-jsonrpc.md lists them. */
import * as z from "zod/mini";
import { UsageError } from "../errors/index.js";
import {
  bool,
  hash64,
  hashOrHeight,
  intRange,
  jsonArrayOf,
  nonEmptyText,
  nonNegInt,
  oneOf,
  param,
  word,
} from "./params.js";
import type { MethodDef } from "./types.js";

const utxo = (m: Omit<MethodDef, "group">): MethodDef => ({ ...m, group: "utxo" });

/** `--range` over block hashes: getblockhash (a lookup by height, safe to repeat) turns each height into one. */
const HEIGHT_TO_HASH = { method: "getblockhash", marks: { idempotent: true, heavy: false } };

const DESCRIPTOR = /^[a-z]+\(.*\)(#[a-z0-9]{8})?$/s;
const isDescriptor = (v: unknown): boolean =>
  typeof v === "string" && v.length >= 3 && v.length <= 10_000 && DESCRIPTOR.test(v);
let rangedObject: z.ZodMiniType | undefined;
/** A scan object: a descriptor string, or `{desc, range}` for ranged (xpub /*) descriptors. */
const isScanObject = (v: unknown): boolean => {
  if (typeof v === "string") return isDescriptor(v);
  if (!rangedObject) {
    const rangeIdx = z.int().check(z.gte(0), z.lte(1_000_000_000));
    rangedObject = z.strictObject({
      desc: z.custom(isDescriptor),
      range: z.optional(z.union([rangeIdx, z.tuple([rangeIdx, rangeIdx])])),
    });
  }
  return rangedObject.safeParse(v).success;
};
const STAT_NAME = /^[a-z0-9_]{1,64}$/;

export const utxoMethods: MethodDef[] = [
  utxo({
    name: "scantxoutset",
    marks: { idempotent: false, heavy: true },
    summary:
      "Scan the UTXO set for descriptors (start), report the running scan (status) or stop it (abort). Used to prove reserves without an indexer.",
    params: [
      param(
        "action",
        "STRING",
        true,
        "start runs a scan, status reports the current scan, abort stops it",
        oneOf(["start", "status", "abort"]),
      ),
      param(
        "scanobjects",
        "ARRAY",
        false,
        "address descriptors, e.g. '[\"addr(<address>)\"]'; required when action is start",
        jsonArrayOf(
          'a JSON array of descriptors like ["addr(<address>)"] or {"desc":..,"range":N}',
          isScanObject,
        ),
      ),
    ],
    result: "OBJECT: success, txouts, height, total_amount, unspents[txid, vout, amount, height]",
    longRunning: (params) => params[0] === "start",
    refine(params) {
      if (params[0] === "start" && (!Array.isArray(params[1]) || params[1].length === 0)) {
        throw new UsageError(
          "scantxoutset: missing parameter scanobjects (required when action is start, e.g. '[\"addr(<address>)\"]')",
        );
      }
    },
  }),
  utxo({
    name: "gettxout",
    marks: { idempotent: true, heavy: false },
    summary: "Details of an unspent transaction output; null when spent or missing.",
    params: [
      param("txid", "STRING", true, "transaction identifier", hash64("txid")),
      param("n", "NUMBER", true, "output index (vout)", nonNegInt("an output index (whole number >= 0)")),
      param("include_mempool", "BOOLEAN", false, "take unconfirmed mempool transactions into account", bool),
    ],
    result: "OBJECT (value, confirmations, scriptPubKey.address) or null",
  }),
  utxo({
    name: "gettxoutsetinfo",
    marks: { idempotent: true, heavy: true },
    summary:
      "Aggregate UTXO-set statistics at the current height (needs a full pass; may be unavailable on pruned nodes).",
    params: [
      param(
        "hash_type",
        "STRING",
        false,
        "aggregate hash type: hash_serialized_3, muhash or none (valid names vary by node version; the node decides)",
        word("a hash type name such as hash_serialized_3, muhash or none"),
      ),
    ],
    result: "OBJECT: height, bestblock, txouts, total_amount",
  }),
  utxo({
    name: "getblockstats",
    marks: { idempotent: false, heavy: false },
    summary: "Aggregated statistics of one block (fees, transaction count, size, feerate range).",
    params: [
      param("hash_or_height", "STRING or NUMBER", true, "block hash (hex) or block height", hashOrHeight),
      param(
        "stats",
        "ARRAY",
        false,
        'names of wanted fields, e.g. \'["txs","height"]\'; all by default',
        jsonArrayOf(
          'a JSON array of stat names like ["txs","height"]',
          (v) => typeof v === "string" && STAT_NAME.test(v),
          100,
        ),
      ),
    ],
    result: "OBJECT: height, txs, total_size, avgfeerate, subsidy, ... (amounts in base units)",
    range: { toParam: (h) => h },
  }),
  utxo({
    name: "getblock",
    marks: { idempotent: true, heavy: false },
    summary: "A block by hash: raw hex (verbosity 0), JSON with txids (1) or with full transactions (2).",
    params: [
      param("blockhash", "STRING", true, "block hash, hex", hash64("block hash")),
      param(
        "verbosity",
        "NUMBER",
        false,
        "0 raw hex; 1 JSON with txids; 2 JSON with full transactions",
        intRange(0, 2),
      ),
    ],
    result: "OBJECT (hash, height, tx) or STRING for verbosity 0",
    range: { via: HEIGHT_TO_HASH },
  }),
  utxo({
    name: "getblockheader",
    marks: { idempotent: true, heavy: false },
    summary: "A block header by hash, without the transaction list; cheaper than getblock.",
    params: [
      param("blockhash", "STRING", true, "block hash, hex", hash64("block hash")),
      param("verbose", "BOOLEAN", false, "true JSON; false raw hex", bool),
    ],
    result: "OBJECT (hash, height, confirmations) or STRING when verbose is false",
    range: { via: HEIGHT_TO_HASH },
  }),
  utxo({
    name: "validateaddress",
    marks: { idempotent: true, heavy: false },
    summary:
      "Check an address and show its parsed details; works offline. The node settles which network it belongs to.",
    params: [
      param("address", "STRING", true, "address to check", nonEmptyText("an address (no spaces)", 128)),
    ],
    result: "OBJECT: isvalid, address, scriptPubKey, iswitness",
  }),
  utxo({
    name: "getnetworkinfo",
    marks: { idempotent: true, heavy: false },
    summary:
      "Upstream client version, protocol version, connection count and minimum relay fee (diagnostics).",
    params: [],
    result: "OBJECT: version, subversion, connections, relayfee",
  }),
  utxo({
    name: "getblockchaininfo",
    marks: { idempotent: true, heavy: false },
    summary: "Chain height, best block hash, verification status and the upstream's pruned flag.",
    params: [],
    result: "OBJECT: chain, blocks, bestblockhash, pruned, verificationprogress",
  }),
];
