/** The UTXO group (bitcoind-style methods), as ../shared/spec/gateway-jsonrpc.md lists them. */

import { UsageError } from "../errors/index.js";
import { objectCells } from "../output/human.js";
import { isJsonObject } from "../util/text.js";
import {
  bool,
  boolOrVerbosity,
  hash64,
  hashOrHeight,
  hexBytes,
  intRange,
  jsonArrayOf,
  nonEmptyText,
  nonNegInt,
  oneOf,
  oneOfAnyCase,
  param,
  verbosityOrBool,
  word,
} from "./params.js";
import type { MethodDef } from "./types.js";

const utxo = (m: Omit<MethodDef, "group">): MethodDef => ({ ...m, group: "utxo" });

/** `--range` over block hashes: the registry's getblockhash turns each height into one. */
const HEIGHT_TO_HASH = "getblockhash";

const DESCRIPTOR = /^[a-z]+\(.*\)(#[a-z0-9]{8})?$/s;
const isDescriptor = (v: unknown): boolean =>
  typeof v === "string" && v.length >= 3 && v.length <= 10_000 && DESCRIPTOR.test(v);
const isRangeIndex = (v: unknown): boolean =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= 0 && v <= 1_000_000_000;
/** A scan object: a descriptor string, or `{desc, range}` for ranged (xpub /*) descriptors, nothing more. */
const isScanObject = (v: unknown): boolean => {
  if (typeof v === "string") return isDescriptor(v);
  if (!isJsonObject(v) || !Object.keys(v).every((k) => k === "desc" || k === "range")) return false;
  const o = v as { desc?: unknown; range?: unknown };
  const r = o.range;
  const rangeOk =
    r === undefined || isRangeIndex(r) || (Array.isArray(r) && r.length === 2 && r.every(isRangeIndex));
  return isDescriptor(o.desc) && rangeOk;
};
const STAT_NAME = /^[a-z0-9_]{1,64}$/;

const specMethods: MethodDef[] = [
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
    writes: { when: ["start", "abort"] },
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
    slow: true,
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
    summary:
      "A block by hash: raw hex (verbosity 0), JSON with txids (1), with full transactions (2) or with their prevouts too (3, Core 23+).",
    params: [
      param("blockhash", "STRING", true, "block hash, hex", hash64("block hash")),
      param(
        "verbosity",
        "NUMBER",
        false,
        "0 raw hex; 1 JSON with txids; 2 JSON with full transactions; 3 with prevouts (Core 23+); true = 1, false = 0 as older scripts send it; -named also as verbose=",
        verbosityOrBool(3),
        { aliases: ["verbose"] },
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

/** A read the gateway spec does not list: chaingw's own marks (a read: idempotent; not heavy). */
const read = (m: Omit<MethodDef, "group" | "marks" | "spec">): MethodDef =>
  utxo({ ...m, marks: { idempotent: true, heavy: false }, spec: false });
const none = (name: string, summary: string, result: string): MethodDef =>
  read({ name, summary, params: [], result });
const txidParam = () => param("txid", "STRING", true, "transaction identifier", hash64("txid"));

/**
 * The everyday read-only methods of an operator (bitcoin-cli habits). Not in the gateway spec: their
 * marks are chaingw's reading — every one is a read, so repeating it elsewhere is safe.
 */
const ownMethods: MethodDef[] = [
  none("getblockcount", "Height of the most-work fully-validated chain (the tip).", "NUMBER: the height"),
  none(
    "getbestblockhash",
    "Hash of the tip of the most-work fully-validated chain.",
    "STRING: block hash, hex",
  ),
  read({
    name: "getblockhash",
    summary: "Hash of the block at a height of the best chain.",
    params: [
      param("height", "NUMBER", true, "block height", nonNegInt("a block height (whole number >= 0)")),
    ],
    result: "STRING: block hash, hex",
  }),
  {
    ...none(
      "getchaintips",
      "Every known chain tip: the active one, forks, headers-only and invalid branches.",
      "ARRAY of {height, hash, branchlen, status}",
    ),
    table: objectCells,
  },
  none("getdifficulty", "Proof-of-work difficulty as a multiple of the minimum.", "NUMBER"),
  read({
    name: "getchaintxstats",
    summary: "Transaction-rate statistics over a window of blocks.",
    params: [
      param("nblocks", "NUMBER", false, "window size in blocks (default one month)", nonNegInt()),
      param(
        "blockhash",
        "STRING",
        false,
        "hash of the window's last block (default the tip)",
        hash64("block hash"),
      ),
    ],
    result: "OBJECT: time, txcount, window_block_count, txrate, ...",
  }),
  none(
    "getmempoolinfo",
    "Mempool state: transaction count, bytes, memory use, minimum fee rates.",
    "OBJECT: loaded, size, bytes, usage, maxmempool, mempoolminfee, minrelaytxfee",
  ),
  read({
    name: "getrawmempool",
    summary: "Transaction ids in the mempool (or, verbose, an object per transaction).",
    params: [
      param("verbose", "BOOLEAN", false, "true: an object per transaction; false: txids", bool),
      param(
        "mempool_sequence",
        "BOOLEAN",
        false,
        "with the mempool sequence number (verbose false only)",
        bool,
      ),
    ],
    result: "ARRAY of txids, or OBJECT txid → entry",
  }),
  read({
    name: "getmempoolentry",
    summary: "One mempool transaction's entry: size, fees, time, ancestors and descendants.",
    params: [txidParam()],
    result: "OBJECT: vsize, weight, time, height, fees, depends, ...",
  }),
  read({
    name: "getrawtransaction",
    summary:
      "A transaction by id: raw hex, or decoded with verbose. Without -txindex only mempool transactions, or those of the given block.",
    params: [
      txidParam(),
      param(
        "verbose",
        "BOOLEAN or NUMBER",
        false,
        "true (or 1): decoded JSON; false (0): hex",
        boolOrVerbosity,
      ),
      param(
        "blockhash",
        "STRING",
        false,
        "the block to look in (works without -txindex)",
        hash64("block hash"),
      ),
    ],
    result: "STRING (hex) or OBJECT: txid, hash, size, vin, vout, blockhash, confirmations, ...",
  }),
  read({
    name: "decoderawtransaction",
    summary: "Decode a serialized transaction (hex) to JSON; nothing is looked up on the chain.",
    params: [
      param("hexstring", "STRING", true, "the transaction, hex", hexBytes("a serialized transaction")),
      param("iswitness", "BOOLEAN", false, "whether it is serialized with witness (default: try both)", bool),
    ],
    result: "OBJECT: txid, hash, size, vsize, weight, version, locktime, vin, vout",
  }),
  read({
    name: "decodescript",
    summary: "Decode a script (hex): its asm, type, address and P2SH/segwit wrappings.",
    params: [param("hexstring", "STRING", true, "the script, hex", hexBytes("a script", 0, 10_000))],
    result: "OBJECT: asm, type, address, p2sh, segwit",
  }),
  read({
    name: "estimatesmartfee",
    summary: "Fee rate (coin per kvB) estimated to confirm within a number of blocks.",
    params: [
      param("conf_target", "NUMBER", true, "confirmation target in blocks (1-1008)", intRange(1, 1008)),
      param(
        "estimate_mode",
        "STRING",
        false,
        "unset, economical or conservative",
        oneOfAnyCase(["unset", "economical", "conservative"]),
      ),
    ],
    result: "OBJECT: feerate, errors, blocks",
  }),
  none("getconnectioncount", "Number of peer connections.", "NUMBER"),
  {
    ...none(
      "getpeerinfo",
      "Every connected peer: address, version, direction, ping, bytes sent and received.",
      "ARRAY of peer objects",
    ),
    table: objectCells,
  },
  none("uptime", "Seconds since the node started.", "NUMBER: seconds"),
  read({
    name: "getindexinfo",
    summary: "The optional indexes (txindex, coinstatsindex, block filters) and whether each is synced.",
    params: [param("index_name", "STRING", false, "only this index", word("an index name such as txindex"))],
    result: "OBJECT: index name → {synced, best_block_height}",
  }),
];

export const utxoMethods: MethodDef[] = [...specMethods, ...ownMethods];
