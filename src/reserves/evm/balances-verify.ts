/**
 * `reserves verify` of an EVM balances proof. Every field that carries meaning is re-derived; the steps:
 *  1. the digest (RFC 8785 form) matches (the reader has already checked the totals and holder counts), and
 *     the inputs as given normalise to the proof's addresses, tokens and block;
 *  2. the node is an EVM-style node (eth_chainId) on the proof's chain id, and the network name, the native
 *     coin's symbol and decimals are the chain's own definition's;
 *  3. the node has the proof's block (else it is behind: "cannot say", and by how much), and the block at the
 *     proof's number is still the proof's block (canonical);
 *  4. every token's decimals() and symbol(), re-read at that block, are the proof's;
 *  5. every balance, re-read at that block, is the proof's;
 *  6. ownership: each signature is judged again over the proof's challenge (and `--challenge` must be that
 *     challenge): a key's EIP-191 / TIP-191 signature offline, a contract wallet's EIP-1271 answer at the
 *     proof's block (a node without that state: "cannot say"); the proven totals come from the balances
 *     that re-read equal, never from the document's own figures.
 * A node that cannot read state at that block (not an archive node; a chain that serves the head only), of
 * another kind or on another chain makes the verdict "cannot say" (exit 3), never "holds". A latest-only
 * snapshot can be re-read only while the head is still the proof's block; otherwise verify says it cannot.
 */

import { chainOf } from "../../chains/index.js";
import type { Chain } from "../../chains/types.js";
import { ChaingwError, RpcError } from "../../errors/index.js";
import { type AccountFormat, verifyAccountSignature } from "../../proof/account-message.js";
import type { SignatureLine } from "../../proof/document.js";
import type { EvmProof } from "../../proof/evm-document.js";
import { digestOf } from "../../proof/jcs.js";
import type { JsonRpcClient } from "../../rpc/client.js";
import { formatUnits } from "../../util/units.js";
import { quorumClaim, share } from "../claims.js";
import {
  type ChallengeCheck,
  checkChallenge,
  counted,
  type Findings,
  signatureLines,
  type Verdict,
  verdictOf,
} from "../verdict.js";
import { planBalances } from "./balances.js";
import {
  readBalances,
  readBlock,
  readChainId,
  readTokenMeta,
  StateUnavailableError,
} from "./balances-read.js";
import { judgeSignatures, provenTotals, type SignatureJudgement } from "./ownership.js";

/** @deprecated the one verdict type is `Verdict` (reserves/verdict.ts) */
export type EvmVerdict = Verdict;

export interface EvmAssetVerdict {
  id: string;
  symbol: string | null;
  decimals: number | null;
  total: string;
  total_base_units: string;
  /** decimals and symbol re-read at the proof's block (tokens), or the chain's own (native); null: not checked */
  metadata_ok: boolean | null;
  checked: number;
  mismatches: number;
}

export interface EvmVerifyReport extends Findings {
  format: string;
  verdict: Verdict;
  /** true only for "holds" */
  holds: boolean;
  /** what the proof states that no chain confirms */
  claims: { created_at: string; quorum: string | null };
  digest: { ok: boolean; claimed: string; computed: string };
  inputs: { ok: boolean; detail: string };
  chain: { ok: boolean | null; detail: string };
  block: { ok: boolean | null; number: number; hash: string; detail: string };
  metadata: { ok: boolean | null; detail: string };
  balances: { ok: boolean | null; checked: number; detail: string };
  assets: EvmAssetVerdict[];
  /** the challenge the signatures are over, and --challenge when it was required */
  challenge: ChallengeCheck;
  /** per address with a signature: proven, unproven (the chain answered against it) or cannot-say */
  ownership: {
    addresses: {
      address: string;
      ownership: "proven" | "unproven" | "cannot-say";
      format: string;
      detail: string;
    }[];
    /** per asset, re-derived from the balances that re-read equal */
    proven: { asset: string; amount: string; base_units: string; share: string }[];
    proven_addresses: number;
  };
  /** each balance that differs, at most 100 */
  mismatches: { asset: string; address: string; proof: string; node: string }[];
  summary: string;
}

export type EvmVerifyEvent = { type: "read"; done: number; total: number } | { type: "step"; text: string };

const assetName = (p: EvmProof, id: string) => {
  const a = p.assets.find((x) => x.id === id);
  return a?.symbol ?? id;
};

const same = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** 1b. The inputs as given, normalised again, are the proof's addresses, tokens and block. */
async function checkInputs(proof: EvmProof, chain: Chain, f: Findings): Promise<EvmVerifyReport["inputs"]> {
  const bad = (why: string) => {
    f.failures.push(`inputs: ${why}`);
    return { ok: false, detail: why };
  };
  let plan: Awaited<ReturnType<typeof planBalances>>;
  try {
    plan = await planBalances({
      chain,
      args: proof.inputs.addresses,
      tokens: proof.inputs.tokens,
      native: proof.inputs.native,
      block: proof.inputs.block,
    });
  } catch (e) {
    const details = e instanceof ChaingwError && e.details?.length ? `: ${e.details.join("; ")}` : "";
    return bad(`the inputs as given are not valid input (${(e as Error).message}${details})`);
  }
  if (!same(plan.addresses, proof.addresses))
    return bad("the addresses as given do not normalise to the addresses the proof states balances for");
  const ids = [...(plan.native ? ["native"] : []), ...plan.tokens];
  if (
    !same(
      ids,
      proof.assets.map((a) => a.id),
    )
  )
    return bad(
      `the assets asked (${ids.join(", ")}) are not the proof's (${proof.assets.map((a) => a.id).join(", ")})`,
    );
  if (plan.block !== "latest" && BigInt(plan.block) !== BigInt(proof.block.number))
    return bad(`block ${proof.inputs.block} was asked, the proof is at block ${proof.block.number}`);
  return {
    ok: true,
    detail: `${counted(plan.given.length, "address")} as given, ${counted(ids.length, "asset")}`,
  };
}

/** 2. The node's chain, and what the chain's own definition says of the network and its coin. */
async function checkChain(
  client: JsonRpcClient,
  proof: EvmProof,
  chain: Chain,
  f: Findings,
): Promise<EvmVerifyReport["chain"]> {
  let id: bigint;
  try {
    id = await readChainId(client, chain);
  } catch (e) {
    if (!(e instanceof RpcError)) throw e;
    const detail = `the node is not an EVM-style node: it answered eth_chainId with "${e.rpcMessage}" (${e.code})${/not found/i.test(e.rpcMessage) ? " (a bitcoind-family node?)" : ""}; give the proof a node of chain id ${proof.chain.chain_id}`;
    f.cannot_say.push(`node: ${detail}`);
    return { ok: null, detail };
  }
  if (id.toString() !== proof.chain.chain_id) {
    const detail = `the node is on chain id ${id}, the proof on ${proof.chain.chain_id}: this node cannot check it; ask a node of chain id ${proof.chain.chain_id}`;
    f.cannot_say.push(`chain: ${detail}`);
    return { ok: null, detail };
  }
  const traits = chain.evm as NonNullable<Chain["evm"]>;
  const network = traits.network(id);
  const problems: string[] = [];
  if ((network?.name ?? null) !== proof.chain.network)
    problems.push(
      `chain.network: the proof names the network ${JSON.stringify(proof.chain.network)}, chain id ${id} is ${network ? `"${network.name}"` : "no network chaingw names"}`,
    );
  const native = proof.assets.find((a) => a.id === "native");
  if (native) {
    const symbol = network?.symbol ?? traits.native.symbol;
    if (native.symbol !== symbol)
      problems.push(
        `native coin: the proof calls it ${JSON.stringify(native.symbol)}, chain id ${id}'s coin is "${symbol}"`,
      );
    if (native.decimals !== traits.native.decimals)
      problems.push(
        `native coin: the proof gives it ${native.decimals} decimals, the ${chain.name} chain's coin has ${traits.native.decimals}`,
      );
  }
  for (const p of problems) f.failures.push(p);
  return problems.length
    ? { ok: false, detail: problems.join("; ") }
    : { ok: true, detail: `chain id ${id}${proof.chain.network ? ` (${proof.chain.network})` : ""}` };
}

export interface EvmVerifyOptions {
  /** the challenge the signatures must be over (verify --challenge): another one fails */
  challenge?: string;
  /** signatures to judge instead of the proof's own */
  signatures?: SignatureLine[];
}

export async function verifyEvmProof(
  client: JsonRpcClient,
  proof: EvmProof,
  onEvent: (e: EvmVerifyEvent) => void = () => {},
  signal?: AbortSignal,
  o: EvmVerifyOptions = {},
): Promise<EvmVerifyReport> {
  const chain = chainOf(proof.chain.group);
  const f: Findings = { failures: [], cannot_say: [] };
  const computed = digestOf(proof);
  const digest = { ok: computed === proof.digest, claimed: proof.digest, computed };
  if (!digest.ok)
    f.failures.push(`digest: the document hashes to ${computed}, not ${proof.digest} (it was edited)`);
  const inputs = await checkInputs(proof, chain, f);

  onEvent({ type: "step", text: "checking the chain and the block" });
  const chainV = await checkChain(client, proof, chain, f);

  const block = await checkBlock(client, chain, proof, chainV.ok, f);
  const metadata: EvmVerifyReport["metadata"] = { ok: null, detail: "not checked" };
  const balances: EvmVerifyReport["balances"] = { ok: null, checked: 0, detail: "not re-read" };
  const assets: EvmAssetVerdict[] = proof.assets.map((a) => ({
    id: a.id,
    symbol: a.symbol,
    decimals: a.decimals,
    total: a.total.amount,
    total_base_units: a.total.base_units,
    metadata_ok: a.id === "native" ? chainV.ok : null,
    checked: 0,
    mismatches: 0,
  }));
  const mismatches: EvmVerifyReport["mismatches"] = [];
  /** every balance that differs (mismatches keeps the first 100 for the report) */
  const differing = new Set<string>();

  const at = block.ok ? await rereadTag(client, chain, proof, block, balances, f) : undefined;
  if (at !== undefined) {
    const tokens = proof.assets.filter((a) => a.id !== "native");
    try {
      onEvent({ type: "step", text: `re-reading ${counted(tokens.length, "token")}' decimals and symbol` });
      Object.assign(metadata, await checkMetadata(client, chain, proof, at, assets, f, signal));
      await checkBalances(
        client,
        chain,
        proof,
        at,
        assets,
        { balances, mismatches, differing },
        f,
        onEvent,
        signal,
      );
    } catch (e) {
      if (!(e instanceof StateUnavailableError)) throw e;
      balances.detail = e.message;
      f.cannot_say.push(`${e.message}${e.hint ? ` — ${e.hint}` : ""}`);
    }
  }

  onEvent({ type: "step", text: "checking ownership signatures" });
  const { challenge, ownership } = await checkOwnership(
    client,
    proof,
    chain,
    at,
    balances.ok !== null,
    differing,
    o,
    f,
    signal,
  );

  const verdict = verdictOf(f);
  const summary = summaryOf(proof, verdict, f);
  return {
    format: proof.format,
    verdict,
    holds: verdict === "holds",
    claims: { created_at: proof.created_at, quorum: quorumClaim(proof.quorum) },
    digest,
    inputs,
    chain: chainV,
    block,
    metadata,
    balances,
    assets,
    challenge,
    ownership,
    mismatches,
    failures: f.failures,
    cannot_say: f.cannot_say,
    summary,
  };
}

type Block = EvmVerifyReport["block"];

/** Step: the proof's block on the node's chain now (holds, fails: no longer canonical; cannot say: behind). */
async function checkBlock(
  client: JsonRpcClient,
  chain: Chain,
  proof: EvmProof,
  chainOk: boolean | null,
  f: Findings,
): Promise<Block> {
  const n = proof.block.number;
  const block: Block = { ok: null, number: n, hash: proof.block.hash, detail: "not checked" };
  if (chainOk !== null) {
    const head = await readBlock(client, chain, "latest");
    if (head === null || head.number < n) {
      block.detail = `the node's head is block ${head?.number ?? "?"}${head ? `, ${counted(n - head.number, "block")} behind the proof's block ${n}` : ""}: it cannot check this proof yet; verify again once it has caught up`;
      f.cannot_say.push(`block: ${block.detail}`);
    } else {
      const now = await readBlock(client, chain, `0x${n.toString(16)}`);
      block.ok = now !== null && now.hash === proof.block.hash;
      block.detail = block.ok
        ? `block ${n} is ${proof.block.hash} on the node's chain`
        : now === null
          ? `the node has no block ${n} though its head is ${head.number}`
          : `block ${n} is now ${now.hash}, not the proof's ${proof.block.hash}: the proof's block is no longer canonical`;
      if (!block.ok) f.failures.push(`block: ${block.detail}`);
    }
  }
  return block;
}

/**
 * Step: the block tag the balances are read again at: the pinned block, or "latest" for a latest-only
 * snapshot while the head is still its block (else cannot say, said in `balances`).
 */
async function rereadTag(
  client: JsonRpcClient,
  chain: Chain,
  proof: EvmProof,
  block: Block,
  balances: EvmVerifyReport["balances"],
  f: Findings,
): Promise<string | undefined> {
  const n = proof.block.number;
  if (block.ok) {
    if (proof.snapshot === "pinned") return `0x${n.toString(16)}`;
    else {
      // a latest-only snapshot can be read again only while the head is still its block
      const head = await readBlock(client, chain, "latest");
      if (head && head.number === n && head.hash === proof.block.hash) return "latest";
      else {
        balances.detail = `a latest-only snapshot: the ${chain.name} chain serves state at its head only, and the head is now block ${head?.number ?? "?"}, so the balances at block ${n} cannot be re-read`;
        f.cannot_say.push(balances.detail);
      }
    }
  }
  return undefined;
}

/** Step: each token's decimals and symbol read again at the block, against the proof's. */
async function checkMetadata(
  client: JsonRpcClient,
  chain: Chain,
  proof: EvmProof,
  at: string,
  assets: EvmAssetVerdict[],
  f: Findings,
  signal: AbortSignal | undefined,
): Promise<EvmVerifyReport["metadata"]> {
  const n = proof.block.number;
  const tokens = proof.assets.filter((a) => a.id !== "native");
  const metadata: EvmVerifyReport["metadata"] = { ok: null, detail: "not checked" };
  const meta = await readTokenMeta(
    client,
    chain,
    tokens.map((t) => t.id),
    at,
    signal,
  );
  const changed: string[] = [];
  tokens.forEach((t, k) => {
    const m = meta[k] as (typeof meta)[number];
    const v = assets.find((a) => a.id === t.id) as EvmAssetVerdict;
    const diffs: string[] = [];
    if (m.decimals !== t.decimals)
      diffs.push(`decimals ${m.decimals ?? "none"} (the proof says ${t.decimals ?? "none"})`);
    if (m.symbol !== t.symbol || m.symbol_source !== t.symbol_source)
      diffs.push(
        `symbol ${JSON.stringify(m.symbol)} as ${m.symbol_source} (the proof says ${JSON.stringify(t.symbol)} as ${t.symbol_source})`,
      );
    v.metadata_ok = diffs.length === 0;
    if (diffs.length) changed.push(`token ${t.id} answers ${diffs.join(" and ")} at block ${n}`);
  });
  for (const c of changed) f.failures.push(c);
  metadata.ok = changed.length === 0;
  metadata.detail = metadata.ok
    ? `${counted(tokens.length, "token")}' decimals and symbol re-read at block ${n}, all equal; the native coin's from the chain's definition`
    : `${changed.length} of ${counted(tokens.length, "token")} answer other decimals or symbol`;
  return metadata;
}

/** Step: every balance read again at the block; each that differs is a failure naming the asset and address. */
async function checkBalances(
  client: JsonRpcClient,
  chain: Chain,
  proof: EvmProof,
  at: string,
  assets: EvmAssetVerdict[],
  r: {
    balances: EvmVerifyReport["balances"];
    mismatches: EvmVerifyReport["mismatches"];
    differing: Set<string>;
  },
  f: Findings,
  onEvent: (e: EvmVerifyEvent) => void,
  signal: AbortSignal | undefined,
): Promise<void> {
  const n = proof.block.number;
  const ids = proof.assets.map((a) => a.id);
  const { balances, mismatches, differing } = r;
  const values = await readBalances(
    client,
    chain,
    ids,
    proof.addresses,
    at,
    (done, total) => onEvent({ type: "read", done, total }),
    signal,
  );
  let stillThere = true;
  if (at === "latest") {
    const head = await readBlock(client, chain, "latest");
    stillThere = head !== null && head.number === n && head.hash === proof.block.hash;
  }
  if (!stillThere) {
    balances.detail = `the head moved off block ${n} during the re-read; a latest-only snapshot cannot be re-read now`;
    f.cannot_say.push(balances.detail);
  } else {
    proof.assets.forEach((a, i) => {
      const v = assets[i] as EvmAssetVerdict;
      a.balances.forEach((b, j) => {
        const node = (values[i] as bigint[])[j] as bigint;
        v.checked++;
        if (node.toString() === b.base_units) return;
        differing.add(`${a.id} ${b.address}`);
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
      f.failures.push(
        `${assetName(proof, m.asset)} of ${m.address}: the proof says ${m.proof}, the node ${m.node} base units at block ${n}`,
      );
  }
}

/** The one line the verdict is printed with. */
function summaryOf(proof: EvmProof, verdict: ReturnType<typeof verdictOf>, f: Findings): string {
  const n = proof.block.number;
  const totals = proof.assets
    .map((a) => `${a.total.amount} ${a.symbol ?? a.id}${a.decimals === null ? " (base units)" : ""}`)
    .join(", ");
  return verdict === "holds"
    ? `${totals} held by ${counted(proof.addresses.length, "address")} at block ${n} (${proof.block.hash}), every balance re-read`
    : verdict === "fails"
      ? `the proof does not hold: ${counted(f.failures.length, "failing item")}`
      : `cannot say whether the proof holds: ${f.cannot_say[0]}`;
}

/** 6. Ownership: signatures over the challenge, judged again; proven totals from the balances that held. */
async function checkOwnership(
  client: JsonRpcClient,
  proof: EvmProof,
  chain: Chain,
  at: string | undefined,
  /** the balances were re-read (equal or not); false: none was confirmed */
  reRead: boolean,
  differs: Set<string>,
  o: EvmVerifyOptions,
  f: Findings,
  signal?: AbortSignal,
): Promise<Pick<EvmVerifyReport, "challenge" | "ownership">> {
  const text = proof.challenge ?? null;
  const challenge = checkChallenge(text, o.challenge, f);
  const lines: SignatureLine[] = signatureLines(o.signatures, proof.ownership?.signatures);
  const none = { addresses: [], proven: [], proven_addresses: 0 };
  if (lines.length === 0 || challenge.ok === false) return { challenge, ownership: none };
  if (text === null) {
    f.failures.push("signatures: the proof has no challenge to check them against");
    return { challenge, ownership: none };
  }
  let judged: SignatureJudgement[];
  if (at !== undefined) judged = await judgeSignatures(client, chain, lines, text, at, signal);
  else {
    // the proof's block cannot be read: a key's signature still can be judged; a contract wallet's cannot
    const format: AccountFormat = chain.evm?.messageSignature ?? "eip191";
    judged = lines.map((l) => {
      const address = l.address.toLowerCase();
      let r: { valid: boolean; detail: string } = { valid: false, detail: "not a 65-byte key signature" };
      try {
        r = verifyAccountSignature(format, address, l.signature, text);
      } catch {}
      return r.valid
        ? { address, valid: true, format, detail: r.detail }
        : {
            address,
            valid: false,
            format,
            cannotSay: true,
            detail: `${r.detail}; whether a contract wallet at ${address} approves it cannot be asked at block ${proof.block.number} on this node`,
          };
    });
  }
  const inProof = new Set(proof.addresses);
  const addresses: EvmVerifyReport["ownership"]["addresses"] = [];
  judged.forEach((j, i) => {
    if (!inProof.has(j.address)) return; // proves nothing the proof counts
    const state = j.valid ? "proven" : j.cannotSay ? "cannot-say" : "unproven";
    addresses.push({ address: j.address, ownership: state, format: j.format, detail: j.detail });
    if (state === "unproven")
      f.failures.push(`signature for ${j.address} does not verify over the challenge: ${j.detail}`);
    if (state === "cannot-say") f.cannot_say.push(`signature for ${j.address}: ${j.detail}`);
    const claimed = o.signatures ? undefined : proof.ownership?.signatures[i];
    if (claimed && state !== "cannot-say" && claimed.valid !== j.valid)
      f.failures.push(
        `signature for ${j.address}: the document says ${claimed.valid ? "valid" : "invalid"}, it is ${j.valid ? "valid" : "invalid"}`,
      );
  });
  // proven: the addresses proven, counting only balances the node confirmed (none when nothing was re-read)
  const provenSet = new Set(addresses.filter((a) => a.ownership === "proven").map((a) => a.address));
  const proven = provenTotals(
    {
      assets: proof.assets.map((a) => ({
        ...a,
        balances: a.balances.filter((b) => reRead && !differs.has(`${a.id} ${b.address}`)),
      })),
    },
    provenSet,
  ).map((p, k) => ({
    ...p,
    share: share(
      BigInt(p.base_units),
      BigInt((proof.assets[k] as EvmProof["assets"][number]).total.base_units),
    ),
  }));
  return { challenge, ownership: { addresses, proven, proven_addresses: provenSet.size } };
}

/** Whole units of a base amount for a message, with the asset's decimals (base units when unknown). */
export const wholeUnits = (base: string, decimals: number | null) => formatUnits(BigInt(base), decimals ?? 0);
