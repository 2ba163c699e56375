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
import { atParam, prepareRead, readMany, type StateAt } from "./balances-read.js";
import type { Tracking } from "./mirrors.js";

/**
 * Why a declared token's storage reads were not told (reserves/evm/ledgers.ts): the holder whose
 * eth_createAccessList of balanceOf failed and what the node answered (`address` null: the call was not
 * answered at all, `answer` the error); `all`: no token's call was answered with an access list (the node does
 * not list storage reads). Such a token may be a facade of a ledger another declared token reads: never taken as
 * sharing none.
 */
export interface LedgerUntold {
  address: string | null;
  answer: string;
  all?: true;
}

/** One eth_createAccessList the node did not answer with an access list: the holder asked, and its answer. */
export type LedgerCallFailure = LedgerUntold & { address: string };

/**
 * What the node told of each token's reads: "contract slot" pairs outside the token, and the tokens one of whose
 * calls failed (`failed`: the first such call); or, no token told, the first failed call.
 */
export type LedgerRead =
  | { told: false; why: LedgerCallFailure | string }
  | { told: true; slots: Map<string, Set<string>>; failed: Map<string, LedgerCallFailure> };

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
 * nothing asked. A token one of whose calls failed is not told (`failed`: a facade may read the ledger only
 * there), never taken as reading nothing. A node that has no such method (or answers every call with an error):
 * `told` false, its first answer.
 */
export async function readLedgerSlots(
  client: JsonRpcClient,
  chain: ChainGroup,
  holders: ReadonlyMap<string, readonly string[]>,
  block: StateAt,
  signal?: AbortSignal,
): Promise<LedgerRead> {
  const slots = new Map<string, Set<string>>();
  const failed = new Map<string, LedgerCallFailure>();
  if (holders.size < 2) return { told: true, slots, failed };
  const asks = [...holders].flatMap(([t, hs]) => hs.map((h) => [t.toLowerCase(), h] as const));
  const res = await readMany(
    client,
    chain,
    asks.map(([t, h]) =>
      prepareRead(chain, "eth_createAccessList", [
        { to: t, data: `0x70a08231${h.slice(2).toLowerCase().padStart(64, "0")}` },
        atParam(block),
      ]),
    ),
    undefined,
    signal,
  );
  for (const [k, [t, address]] of asks.entries()) {
    const o = res[k];
    const s = o === undefined || o instanceof ChaingwError ? undefined : slotsOf(o.result, t);
    if (s) for (const x of s) (slots.get(t) ?? slots.set(t, new Set()).get(t))?.add(x);
    else if (!failed.has(t))
      failed.set(t, {
        address,
        answer:
          o instanceof RpcError
            ? o.rpcMessage
            : o instanceof ChaingwError
              ? o.message
              : JSON.stringify(o?.result ?? null).slice(0, 160),
      });
    if (s && !slots.has(t)) slots.set(t, new Set());
  }
  for (const t of failed.keys()) slots.delete(t);
  if (!slots.size) return { told: false, why: [...failed.values()][0] as LedgerCallFailure };
  return { told: true, slots, failed };
}

/**
 * A proof's tokens (with the other proofs' on its chain, two or more) asked `readLedgerSlots` at every address of
 * the proof, at block `at`, as the proof's tracking keeps it: `ledger` (each token's reads, at any of them) and
 * `ledgerUnknown` (the tokens not told, this proof's and the others' alike, why: an other proof's token whose
 * call failed here may read, at this proof's addresses only, the ledger one of this proof's tokens reads).
 */
export async function probeLedgers(
  client: JsonRpcClient,
  chain: ChainGroup,
  proof: EvmProof,
  at: StateAt,
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
  const untold = (why: LedgerCallFailure | string) =>
    typeof why === "string" ? { address: null, answer: why } : why;
  if (!read.told) {
    const why = untold(read.why);
    return { ledgerUnknown: asked.map((token) => ({ token, ...why, all: true })) };
  }
  // every token's reads at this proof's addresses, and every token not told here (this proof's and the others'
  // alike: solvency-identity.ts ledgerFaults)
  const failed = [...read.failed];
  return {
    ledger: { tokens: Object.fromEntries([...read.slots].map(([t, s]) => [t, [...s]])) },
    ...(failed.length ? { ledgerUnknown: failed.map(([token, why]) => ({ token, ...why })) } : {}),
  };
}
