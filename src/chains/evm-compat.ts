/**
 * The EVM-compat group: TRON's JSON-RPC (java-tron). Its traits: T-addresses (and the 41-hex form) besides
 * the 20-byte hex, gasUsed counting energy, no `pending`/`safe` tags, reverts as -32000 "REVERT opcode
 * executed", and block hashes whose first 8 bytes are the block number.
 */
import { IntegrityError, type RpcError } from "../errors/index.js";
import type { JsonValue } from "../json/lossless.js";
import { isJsonObject } from "../util/text.js";

/** TRON's address codec, required on first use: its base58 library is no cost of a call that needs none. */
import * as tronCodec from "./tron.js";

// tron.ts loads its base58/sha256 code on first use itself: importing it costs nothing at start-up
const tron = () => tronCodec;

import { accountNetwork } from "./networks.js";
import type { ChainGroup } from "./types.js";

const asString = (v: JsonValue | undefined): string | undefined => (typeof v === "string" ? v : undefined);

/**
 * The chain's rule: bytes 0-7 of a block hash are its number, big-endian. Also the block answered must
 * be the one asked for (by hash, or by explicit number).
 */
function verifyTronBlock(result: JsonValue, asked: unknown, by: "number" | "hash", name: string): void {
  if (!isJsonObject(result)) return;
  const r = result as Record<string, JsonValue>;
  const number = asString(r.number);
  const hash = asString(r.hash);
  const fail = (why: string) =>
    new IntegrityError(`${name}: upstream integrity error in block ${number ?? "?"}: ${why}`, {
      hint: "The upstream's answer breaks a rule of the chain; try another endpoint. --no-verify skips this check.",
    });
  if (!number || !/^0x[0-9a-fA-F]{1,16}$/.test(number))
    throw fail(`number ${JSON.stringify(r.number)} is not a QUANTITY`);
  if (!hash || !/^0x[0-9a-fA-F]{64}$/.test(hash))
    throw fail(`hash ${JSON.stringify(r.hash)} is not 32 bytes`);
  const n = BigInt(number);
  const prefix = BigInt(hash.slice(0, 18));
  if (prefix !== n)
    throw fail(
      `hash ${hash} starts with 0x${hash.slice(2, 18)} (${prefix}), not the block number ${number} (${n})`,
    );
  if (by === "hash" && typeof asked === "string" && asked.toLowerCase() !== hash.toLowerCase())
    throw fail(`asked for block ${asked}, got ${hash}`);
  if (by === "number" && typeof asked === "string" && asked.startsWith("0x") && BigInt(asked) !== n)
    throw fail(`asked for block ${asked}, got ${number}`);
}

/** T-address or 41-hex → 20-byte hex; undefined for text of neither form; throws for a bad T-address. */
function normaliseAddress(t: string): string | undefined {
  if (/^(0x)?41[0-9a-fA-F]{40}$/.test(t)) return `0x${t.replace(/^0x/, "").slice(2).toLowerCase()}`;
  if (!/^T/.test(t)) return undefined;
  if (!tron().looksLikeTronBase58(t)) throw new Error(`${JSON.stringify(t)} is not a TRON base58 address`);
  return tron().tronToHex20(t);
}

function displayAddress(v: string): string | undefined {
  if (!/^0x[0-9a-fA-F]{40}$/.test(v)) return undefined;
  try {
    return tron().hex20ToTron(v);
  } catch {
    return undefined;
  }
}

export const evmCompatChain: ChainGroup = Object.freeze({
  name: "evm-compat",
  title: "EVM-compat chain (TRON's JSON-RPC)",
  rawParams: "cast",
  cookieAuth: false,
  freshConnectionsForArrays: false,
  tip: { method: "eth_blockNumber" },
  utxoScan: false,
  legacyEnvelopes: false,
  maxLag: 6,
  evm: Object.freeze({
    blockTags: ["latest", "earliest", "finalized"],
    refusedTags: ["pending", "safe"],
    // java-tron: "QUANTITY not supported, just support TAG as latest" (eth_getBalance, eth_getCode, ...)
    stateTags: ["latest"],
    addressForms: "0x + 40 hex digits, 41 + 40 hex digits, or a base58 T-address",
    normaliseAddress,
    displayAddress,
    gasUnit: "energy",
    baseUnit: "sun",
    // 1 TRX = 1,000,000 sun (TRON's docs); energy is paid in sun, so fees read in sun too
    units: [
      { name: "sun", decimals: 0 },
      { name: "trx", decimals: 6 },
    ],
    // java-tron's eth_call takes only "latest" (see docs/upstream notes), never a block hash
    eip1898: false,
    native: { symbol: "TRX", decimals: 6 },
    // java-tron: eth_getBalance/eth_call take "latest" only (-32602 "QUANTITY not supported, just support
    // TAG as latest"); the EIP-1898 object form checks that the block exists, then runs at the head
    pinnedStateReads: false,
    messageSignature: "tip191",
    eip55: false,
    // gateways in front of java-tron cap arrays at 100 entries (the fixture does the same)
    maxBatch: 100,
    network: (id: bigint) => accountNetwork("evm-compat", id),
    isRevert: (e: RpcError) => e.code === -32000 && /revert/i.test(e.rpcMessage),
    verifyBlock: verifyTronBlock,
  }),
});
