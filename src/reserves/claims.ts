/**
 * How a proof's claims are named in verdicts and reports: a node without its URL, the quorum a proof was
 * made under, a share of a whole, the coin of a UTXO proof. A leaf: the verifiers, the quorum runner and the
 * reports all use it, and it uses none of them.
 */
import { coinOf } from "../chains/coins.js";
import { decodeProofAddress } from "../proof/address.js";
import type { Proof, Quorum, QuorumNode } from "../proof/document.js";

/**
 * "node 2 at http://10.0.0.5:9332/ (/LitecoinCore:0.21.4/, chain regtest, tip 110 3f2a…)": a node named by
 * what it says of itself and, where the run knows it, by its URL with credentials stripped (an endpoint's
 * `label`). A proof records no URL (it may hold credentials, and means nothing to another auditor).
 */
export const nodeName = (n: QuorumNode, i: number, url?: string): string =>
  `node ${i + 1}${url ? ` at ${url}` : ""} (${n.client}, chain ${n.chain}, tip ${n.height} ${n.block_hash.slice(0, 18)}…)`;

/** The proof's quorum as a claim: "2 nodes agreed: node 1 (…), node 2 (…)", or null. */
export const quorumClaim = (q: Quorum | undefined): string | null =>
  q ? `made under a quorum: ${q.k} nodes agreed: ${q.nodes.map((n, i) => nodeName(n, i)).join("; ")}` : null;

/** `part / whole` as a percentage with two decimals, exact (BigInt), "n/a" for an empty whole. */
export function share(part: bigint, whole: bigint): string {
  if (whole === 0n) return "n/a";
  const bp = (part * 10_000n * 2n + whole) / (whole * 2n);
  return `${bp / 100n}.${(bp % 100n).toString().padStart(2, "0")}%`;
}

/** The coin's ticker for the summary line, from the addresses' own form where it says, else the node's coin. */
export function unitOf(proof: Proof, nodeCoin?: string | null): string {
  return unitOfAddresses(
    proof.by_address.map((a) => a.address),
    nodeCoin,
  );
}

/**
 * The coin's ticker of the first address whose form names one coin; else the node's coin's (a coin id, as
 * its chain names it, `coinOfNode`: test networks share base58 prefixes, descriptors name no coin); else "coins".
 */
export function unitOfAddresses(addresses: Iterable<string>, nodeCoin?: string | null): string {
  for (const address of addresses) {
    try {
      const coins = new Set(decodeProofAddress(address).networks.map((n) => n.chain));
      const only = coins.size === 1 ? coinOf([...coins][0] as string) : undefined;
      if (only) return only.ticker;
    } catch {
      // a descriptor: says nothing about the coin
    }
  }
  return (nodeCoin ? coinOf(nodeCoin)?.ticker : undefined) ?? "coins";
}
