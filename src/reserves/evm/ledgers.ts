/**
 * The shared-ledger probe (issue 55, item 4): two declared tokens whose balanceOf both read the storage of one
 * third contract — a ledger neither is, declared by nobody — are two facades of the same coins. The node is asked
 * `eth_createAccessList` of each declared token's balanceOf(holder) at the proof's block, at every address that
 * holds it (one call a token an address, as many as the balances read: a facade may read the ledger at one
 * address only): the storage slots it reads at contracts other than itself. Anvil lists the token's own slots too; geth leaves
 * the callee out; both are left out here. A node without eth_createAccessList cannot tell. Data in (the
 * answers), the judgement in judge/reads.ts `sharedLedgers`.
 */
import type { ChainGroup } from "../../chains/index.js";
import { ChaingwError, RpcError } from "../../errors/index.js";
import type { EvmProof } from "../../proof/evm-document.js";
import type { JsonRpcClient } from "../../rpc/client.js";
import { isJsonObject } from "../../util/text.js";
import { prepareRead, readMany } from "./balances-read.js";
import type { Tracking } from "./mirrors.js";

/** What the node told of each token's reads: "contract slot" pairs outside the token; or why it could not. */
export type LedgerRead =
  | { told: false; why: string }
  | { told: true; slots: Map<string, Set<string>>; failed: Map<string, string> };

/** The storage `eth_createAccessList` lists outside `token`, as "contract slot", or undefined (not an access list). */
function slotsOf(result: unknown, token: string): Set<string> | undefined {
  if (!isJsonObject(result as never) || !Array.isArray((result as { accessList?: unknown }).accessList))
    return undefined;
  const out = new Set<string>();
  for (const e of (result as { accessList: unknown[] }).accessList) {
    const { address, storageKeys } = (e ?? {}) as { address?: unknown; storageKeys?: unknown };
    if (typeof address !== "string" || !Array.isArray(storageKeys)) return undefined;
    if (address.toLowerCase() === token) continue;
    for (const k of storageKeys)
      if (typeof k === "string") out.add(`${address.toLowerCase()} ${k.toLowerCase()}`);
  }
  return out;
}

/**
 * Each token's storage reads outside itself when asked balanceOf at each of its `holders` at `block`, every
 * slot any of them read: one `eth_createAccessList` a token an address, in batches. Fewer than two tokens:
 * nothing asked. A token one of whose calls failed is not told (a facade may read the ledger only there). A node
 * that has no such method (or answers every call with an error): `told` false, its answer.
 */
export async function readLedgerSlots(
  client: JsonRpcClient,
  chain: ChainGroup,
  holders: ReadonlyMap<string, readonly string[]>,
  block: string,
  signal?: AbortSignal,
): Promise<LedgerRead> {
  const slots = new Map<string, Set<string>>();
  const failed = new Map<string, string>();
  if (holders.size < 2) return { told: true, slots, failed };
  const asks = [...holders].flatMap(([t, hs]) => hs.map((h) => [t.toLowerCase(), h] as const));
  const res = await readMany(
    client,
    chain,
    asks.map(([t, h]) =>
      prepareRead(chain, "eth_createAccessList", [
        { to: t, data: `0x70a08231${h.slice(2).toLowerCase().padStart(64, "0")}` },
        block,
      ]),
    ),
    undefined,
    signal,
  );
  for (const [k, [t]] of asks.entries()) {
    const o = res[k];
    const s = o === undefined || o instanceof ChaingwError ? undefined : slotsOf(o.result, t);
    if (s) for (const x of s) (slots.get(t) ?? slots.set(t, new Set()).get(t))?.add(x);
    else if (!failed.has(t))
      failed.set(
        t,
        `eth_createAccessList of its balanceOf answered ${o instanceof RpcError ? o.rpcMessage : o instanceof ChaingwError ? o.message : JSON.stringify(o?.result ?? null).slice(0, 160)}`,
      );
    if (s && !slots.has(t)) slots.set(t, new Set());
  }
  for (const t of failed.keys()) slots.delete(t);
  if (!slots.size)
    return {
      told: false,
      why: `the node did not list the storage a balanceOf reads: ${[...failed.values()][0]}`,
    };
  return { told: true, slots, failed };
}

/**
 * A proof's tokens (with the other proofs' on its chain, two or more) asked `readLedgerSlots` at every address of
 * the proof, at block `at`, as the proof's tracking keeps it: `ledger` (each token's reads, at any of them) and
 * `ledgerUnknown` (the tokens not told, why).
 */
export async function probeLedgers(
  client: JsonRpcClient,
  chain: ChainGroup,
  proof: EvmProof,
  at: string,
  signal?: AbortSignal,
  /** the other proofs' tokens on the chain: asked beside, so one reading a ledger theirs read is told */
  also: readonly string[] = [],
): Promise<Pick<Tracking, "ledger" | "ledgerUnknown">> {
  const tokens = proof.assets.flatMap((a) => (a.id === "native" ? [] : [a.id.toLowerCase()]));
  const addresses = proof.addresses.map((a) => a.toLowerCase());
  const asked = [...new Set([...tokens, ...also])];
  if (!tokens.length || asked.length < 2 || !addresses.length) return {};
  let read: LedgerRead;
  try {
    read = await readLedgerSlots(client, chain, new Map(asked.map((t) => [t, addresses])), at, signal);
  } catch (e) {
    if (!(e instanceof ChaingwError)) throw e;
    read = { told: false, why: e.message };
  }
  if (!read.told) return { ledgerUnknown: tokens.map((token) => ({ token, why: read.why })) };
  // every token's reads at this proof's addresses (the others' too, solvency-identity.ts ledgerFaults); this
  // proof's tokens only as not told
  const failed = [...read.failed].filter(([t]) => tokens.includes(t));
  return {
    ledger: { tokens: Object.fromEntries([...read.slots].map(([t, s]) => [t, [...s]])) },
    ...(failed.length ? { ledgerUnknown: failed.map(([token, why]) => ({ token, why })) } : {}),
  };
}
