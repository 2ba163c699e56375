/**
 * Who controls a contract wallet an exchange's row names (a Safe's getOwners() and getThreshold() at the row's
 * snapshot block, through its network's `--node`): whether the row's signers are among its owners, enough of
 * them for its threshold.
 */
import { ChaingwError } from "../../errors/index.js";
import type { Prepared } from "../../methods/prepare.js";
import { prepareRead, readFailure, readMany } from "../../reserves/evm/balances-read.js";
import type { ChainNode } from "./balances.js";
import type { OwnershipRow } from "./read.js";

export interface OwnersCheck {
  controls: boolean | null;
  detail: string;
}

const SEL_GET_OWNERS = "0xa0e67e2b";
const SEL_GET_THRESHOLD = "0xe75235b8";

const hexWords = (hex: string): bigint[] => {
  const body = hex.slice(2);
  const out: bigint[] = [];
  for (let i = 0; i + 64 <= body.length; i += 64) out.push(BigInt(`0x${body.slice(i, i + 64)}`));
  return out;
};

/**
 * A contract wallet's owners and threshold at the row's snapshot block (`snapshot`, else the latest) on its
 * network's node (`net` as `--node` names it): whether the signers control it.
 */
export async function contractOwners(
  node: ChainNode | undefined,
  snapshot: string | undefined,
  net: string,
  row: OwnershipRow,
  signers: string[],
  signal?: AbortSignal,
): Promise<OwnersCheck> {
  if (!node)
    return {
      controls: null,
      detail: `that they control the contract ${row.address} needs a node for ${net} (--node ${net}=URL), not checked`,
    };
  if (node.unread !== undefined) return { controls: null, detail: node.unread };
  const block = snapshot ?? "latest";
  const at = block === "latest" ? "the latest block" : `block ${BigInt(block)}`;
  const entries: Prepared[] = [
    prepareRead(node.chain, "eth_getCode", [row.address, block]),
    prepareRead(node.chain, "eth_call", [{ to: row.address, data: SEL_GET_OWNERS }, block]),
    prepareRead(node.chain, "eth_call", [{ to: row.address, data: SEL_GET_THRESHOLD }, block]),
  ];
  const [code, owners, threshold] = await readMany(node.client, node.chain, entries, undefined, signal);
  if (code instanceof ChaingwError)
    return {
      controls: null,
      detail: readFailure(entries[0] as Prepared, code, "eth_getCode", block).message,
    };
  if (code?.result === "0x")
    return {
      controls: false,
      detail: `${row.address} has no code at ${at}: not a contract, and its owners' signatures prove nothing for it`,
    };
  const hex = (x: typeof owners) => (x instanceof ChaingwError ? undefined : x?.result);
  const ow = hex(owners);
  const th = hex(threshold);
  if (typeof ow !== "string" || typeof th !== "string" || ow.length < 130 || th.length !== 66)
    return {
      controls: null,
      detail: `the contract answers neither getOwners() nor getThreshold() at ${at} (not a Safe-style wallet): who controls it is not read`,
    };
  return ownersJudged(hexWords(ow), BigInt(th), signers, at);
}

/** The owners a Safe-style wallet lists (its getOwners() words) and its threshold, against the signers. */
function ownersJudged(words: bigint[], t: bigint, signers: string[], at: string): OwnersCheck {
  const n = Number(words[1] ?? 0n);
  const list = words.slice(2, 2 + n).map((w) => `0x${w.toString(16).padStart(40, "0")}`);
  const named = signers.filter((s) => list.includes(s.toLowerCase()));
  const missing = signers.filter((s) => !list.includes(s.toLowerCase()));
  if (missing.length)
    return {
      controls: false,
      detail: `the contract's owners at ${at} are ${list.join(", ")}: ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not among them`,
    };
  if (BigInt(new Set(named.map((s) => s.toLowerCase())).size) < t)
    return {
      controls: false,
      detail: `${named.length} of its owners signed; the contract needs ${t} at ${at}`,
    };
  return {
    controls: true,
    detail: `the contract names them among its ${list.length} owners, threshold ${t}, at ${at}`,
  };
}
