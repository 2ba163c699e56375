/**
 * `reserves verify` of an EVM balances proof:
 *  1. the digest (RFC 8785 form) matches (the reader has already checked the totals and holder counts);
 *  2. the node is on the proof's chain (eth_chainId);
 *  3. the block at the proof's number is still the proof's block (canonical);
 *  4. every balance, re-read at that block, is the proof's.
 * A node that cannot read state at that block (not an archive node; a chain that serves the head only) makes
 * the verdict "cannot say" (exit 3), never "holds". A latest-only snapshot can be re-read only while the
 * head is still the proof's block; otherwise verify says it cannot be re-read.
 */
import { chainOf } from "../chains/index.js";
import type { EvmProof } from "../proof/evm-document.js";
import { digestOf } from "../proof/jcs.js";
import type { JsonRpcClient } from "../rpc/client.js";
import { formatUnits } from "../util/units.js";
import { readBalances, readBlock, readChainId, StateUnavailableError } from "./balances-read.js";

export type EvmVerdict = "holds" | "fails" | "cannot-say";

export interface EvmAssetVerdict {
  id: string;
  symbol: string | null;
  total: string;
  total_base_units: string;
  checked: number;
  mismatches: number;
}

export interface EvmVerifyReport {
  format: string;
  verdict: EvmVerdict;
  /** true only for "holds" */
  holds: boolean;
  digest: { ok: boolean; claimed: string; computed: string };
  chain: { ok: boolean | null; detail: string };
  block: { ok: boolean | null; number: number; hash: string; detail: string };
  balances: { ok: boolean | null; checked: number; detail: string };
  assets: EvmAssetVerdict[];
  /** each balance that differs, at most 100 */
  mismatches: { asset: string; address: string; proof: string; node: string }[];
  failures: string[];
  summary: string;
}

export type EvmVerifyEvent = { type: "read"; done: number; total: number } | { type: "step"; text: string };

const assetName = (p: EvmProof, id: string) => {
  const a = p.assets.find((x) => x.id === id);
  return a?.symbol ?? id;
};

export async function verifyEvmProof(
  client: JsonRpcClient,
  proof: EvmProof,
  onEvent: (e: EvmVerifyEvent) => void = () => {},
  signal?: AbortSignal,
): Promise<EvmVerifyReport> {
  const chain = chainOf(proof.chain.group);
  const failures: string[] = [];
  const cannot: string[] = [];
  const computed = digestOf(proof);
  const digest = { ok: computed === proof.digest, claimed: proof.digest, computed };
  if (!digest.ok)
    failures.push(`digest: the document hashes to ${computed}, not ${proof.digest} (it was edited)`);

  onEvent({ type: "step", text: "checking the chain and the block" });
  const id = await readChainId(client, chain);
  const chainOk = id.toString() === proof.chain.chain_id;
  const chainV = {
    ok: chainOk,
    detail: chainOk
      ? `chain id ${id}${proof.chain.network ? ` (${proof.chain.network})` : ""}`
      : `the node is on chain id ${id}, the proof on ${proof.chain.chain_id}`,
  };
  if (!chainOk) failures.push(`chain: ${chainV.detail}`);

  const n = proof.block.number;
  const block: EvmVerifyReport["block"] = { ok: null, number: n, hash: proof.block.hash, detail: "" };
  const balances: EvmVerifyReport["balances"] = { ok: null, checked: 0, detail: "" };
  const assets: EvmAssetVerdict[] = proof.assets.map((a) => ({
    id: a.id,
    symbol: a.symbol,
    total: a.total.amount,
    total_base_units: a.total.base_units,
    checked: 0,
    mismatches: 0,
  }));
  const mismatches: EvmVerifyReport["mismatches"] = [];
  if (chainOk) {
    const now = await readBlock(client, chain, `0x${n.toString(16)}`);
    block.ok = now !== null && now.hash === proof.block.hash;
    block.detail = block.ok
      ? `block ${n} is ${proof.block.hash} on the node's chain`
      : now === null
        ? `the node has no block ${n} (behind, or another chain)`
        : `block ${n} is now ${now.hash}, not the proof's ${proof.block.hash}: the proof's block is no longer canonical`;
    if (!block.ok) failures.push(`block: ${block.detail}`);
  }

  let at: string | undefined;
  if (block.ok) {
    if (proof.snapshot === "pinned") at = `0x${n.toString(16)}`;
    else {
      // a latest-only snapshot can be read again only while the head is still its block
      const head = await readBlock(client, chain, "latest");
      if (head && head.number === n && head.hash === proof.block.hash) at = "latest";
      else {
        balances.detail = `a latest-only snapshot: the ${chain.name} chain serves state at its head only, and the head is now block ${head?.number ?? "?"}, so the balances at block ${n} cannot be re-read`;
        cannot.push(balances.detail);
      }
    }
  }
  if (at !== undefined) {
    const ids = proof.assets.map((a) => a.id);
    try {
      const values = await readBalances(
        client,
        chain,
        ids,
        proof.addresses,
        at,
        (done, total) => onEvent({ type: "read", done, total }),
        signal,
      );
      let same = true;
      if (at === "latest") {
        const head = await readBlock(client, chain, "latest");
        same = head !== null && head.number === n && head.hash === proof.block.hash;
      }
      if (!same) {
        balances.detail = `the head moved off block ${n} during the re-read; a latest-only snapshot cannot be re-read now`;
        cannot.push(balances.detail);
      } else {
        proof.assets.forEach((a, i) => {
          const v = assets[i] as EvmAssetVerdict;
          a.balances.forEach((b, j) => {
            const node = (values[i] as bigint[])[j] as bigint;
            v.checked++;
            if (node.toString() === b.base_units) return;
            v.mismatches++;
            if (mismatches.length < 100)
              mismatches.push({
                asset: a.id,
                address: b.address,
                proof: b.base_units,
                node: node.toString(),
              });
          });
          balances.checked += v.checked;
        });
        const bad = assets.reduce((s, a) => s + a.mismatches, 0);
        balances.ok = bad === 0;
        balances.detail = balances.ok
          ? `${balances.checked} balances re-read at block ${n}, all equal`
          : `${bad} of ${balances.checked} balances differ at block ${n}`;
        for (const m of mismatches)
          failures.push(
            `${assetName(proof, m.asset)} of ${m.address}: the proof says ${m.proof}, the node ${m.node} base units at block ${n}`,
          );
      }
    } catch (e) {
      if (!(e instanceof StateUnavailableError)) throw e;
      balances.detail = e.message;
      cannot.push(`${e.message}${e.hint ? ` — ${e.hint}` : ""}`);
    }
  }

  const verdict: EvmVerdict = failures.length ? "fails" : cannot.length ? "cannot-say" : "holds";
  const totals = proof.assets
    .map((a) => `${a.total.amount} ${a.symbol ?? a.id}${a.decimals === null ? " (base units)" : ""}`)
    .join(", ");
  const summary =
    verdict === "holds"
      ? `${totals} held by ${proof.addresses.length} address${proof.addresses.length === 1 ? "" : "es"} at block ${n} (${proof.block.hash}), every balance re-read`
      : verdict === "fails"
        ? `the proof does not hold: ${failures.length} failing item${failures.length === 1 ? "" : "s"}`
        : `cannot say whether the proof holds: ${cannot[0]}`;
  return {
    format: proof.format,
    verdict,
    holds: verdict === "holds",
    digest,
    chain: chainV,
    block,
    balances,
    assets,
    mismatches,
    failures: [...failures, ...cannot],
    summary,
  };
}

/** Whole units of a base amount for a message, with the asset's decimals (base units when unknown). */
export const wholeUnits = (base: string, decimals: number | null) => formatUnits(BigInt(base), decimals ?? 0);
