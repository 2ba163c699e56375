/**
 * Tokens that are their network's native coin again: a contract whose balanceOf is each address's native
 * balance (Polygon's MRC20 at 0x…1010, Celo's GoldToken: `return account.balance`). Counting the native
 * balance and such a token's counts one coin twice, so `solvency` keys both as the native coin and
 * `reserves balances` names the mirror. Data in, data out.
 */
import { knownNativeMirror, type NetworkId } from "../../chains/assets.js";
import type { ChainGroup } from "../../chains/types.js";
import type { EvmProof } from "../../proof/evm-document.js";
import type { JsonRpcClient } from "../../rpc/client.js";
import { counted } from "../verdict.js";
import type { StateAt } from "./balances-read.js";
import type { LedgerUntold } from "./ledgers.js";
import { readsTokenDetail } from "./reads-token.js";

/**
 * A token that is its network's native coin again, as data (judge/words.ts `mirrorWords` words it): the token
 * (its contract, the symbol it states) on `network` at block `block`, and how it was told — a known mirror
 * contract (`known`: chains/assets.ts's name for it), balances equal to the native ones at each of `addresses`
 * read both ways, or the verifier's probe (its balanceOf(`address`) moved with a native balance: that address's,
 * `follows`' or, null, several at once).
 */
export type NativeMirror = { token: string; symbol: string | null; network: NetworkId; block: number } & (
  | { how: "known"; known: string }
  | { how: "equal"; addresses: number }
  | { how: "tracks"; address: string; follows?: string | null }
);

/**
 * The mirrors among `docs`' tokens, by `network token`, each with how it was told: a known mirror contract
 * (chains/assets.ts), a token whose balance equals the native balance at every address some document reads
 * both for at one block, and is not zero at one of them at least, or a token the verifier found tracking the
 * native balance (`tracks`: its balanceOf moved when the holder's native balance was overridden).
 */
export function nativeMirrorsOf(
  docs: readonly {
    doc: EvmProof;
    network: NetworkId;
    tracks?: Record<string, string>;
    /** per tracking token whose native balance it followed, when not its holder's own (null: several) */
    follows?: Record<string, string | null>;
  }[],
): Map<string, NativeMirror> {
  const out = new Map<string, NativeMirror>();
  const native = new Map<string, string>();
  for (const { doc, network } of docs)
    for (const bal of doc.assets.find((a) => a.id === "native")?.balances ?? [])
      native.set(`${network} ${doc.block.number} ${bal.address}`, bal.base_units);
  for (const { doc, network, tracks, follows } of docs)
    for (const a of doc.assets) {
      const key = `${network} ${a.id}`;
      if (a.id === "native" || out.has(key)) continue;
      const known = knownNativeMirror(network, a.id);
      const token = { token: a.id, symbol: a.symbol ?? null, network, block: doc.block.number };
      if (known) {
        out.set(key, { ...token, how: "known", known });
        continue;
      }
      let common = 0;
      let equal = true;
      let nonzero = false;
      for (const bal of a.balances) {
        const n = native.get(`${network} ${doc.block.number} ${bal.address}`);
        if (n === undefined) continue;
        common++;
        if (n !== bal.base_units) equal = false;
        if (n !== "0") nonzero = true;
      }
      const at = tracks?.[a.id];
      if (common && equal && nonzero) out.set(key, { ...token, how: "equal", addresses: common });
      // the verifier's probe: balanceOf moved with the holder's native balance, whatever it adds to it
      else if (at !== undefined)
        out.set(key, {
          ...token,
          how: "tracks",
          address: at,
          ...(follows && a.id in follows ? { follows: follows[a.id] } : {}),
        });
    }
  return out;
}

/**
 * The tokens whose balanceOf moved with the holder's native balance: each reads the native coin, a mirror
 * however it adds to it. `probed` false: not asked (no tokens, or a chain that serves no state at a block),
 * null: the node did not apply the state override (refused or ignored it). `unknown`: the tokens the node
 * could not tell about (every token when `probed` is not true), each with why — solvency cannot say for them.
 */
export interface Tracking {
  probed: boolean | null;
  /** `follows`: absent when it moved with `address`'s own native balance; another address's; null: several */
  tokens: { token: string; address: string; follows?: string | null }[];
  /** absent when every token was told */
  unknown?: { token: string; why: string }[];
  /**
   * the tokens whose balanceOf moved when another of the proof's tokens answered otherwise (`reads`: that token;
   * `address`: where): that token's coins again (judge/reads.ts); absent when none
   */
  reads?: { token: string; reads: string; address: string }[];
  /** each token's storage reads outside itself at the proof's addresses (reserves/evm/ledgers.ts), when asked */
  ledger?: { tokens: Record<string, string[]> };
  /** the tokens (this proof's and the other proofs' asked beside) whose storage reads the node could not list, each with why */
  ledgerUnknown?: ({ token: string } & LedgerUntold)[];
  detail: string;
}

/**
 * Asks the node which of the proof's tokens track the native coin at its addresses, at block `at`
 * (`readTracking`: balanceOf again with the holder's native balance overridden). `values`: the balances as
 * re-read, `[asset][address]` in the proof's order.
 */
export async function probeTracking(
  client: JsonRpcClient,
  chain: ChainGroup,
  proof: EvmProof,
  at: StateAt,
  signal?: AbortSignal,
  /** the other proofs' addresses on the same chain: their native balances are raised too */
  also: readonly string[] = [],
  /** and what each token's balanceOf reads (ledgers.ts `probeLedgers`: two facades of one ledger) */
  ledgers = false,
  /** the other proofs' tokens on the same chain: answering otherwise too, their storage reads asked too */
  alsoTokens: readonly string[] = [],
): Promise<Tracking> {
  const told = await probeNative(client, chain, proof, at, signal, also, alsoTokens);
  if (!ledgers) return told;
  const { probeLedgers } = await import("./ledgers.js");
  return { ...told, ...(await probeLedgers(client, chain, proof, at, signal, alsoTokens)) };
}

/** `probeTracking`'s native side: the probe of `readTracking`, its answers as the proof's tracking. */
async function probeNative(
  client: JsonRpcClient,
  chain: ChainGroup,
  proof: EvmProof,
  at: StateAt,
  signal: AbortSignal | undefined,
  also: readonly string[],
  alsoTokens: readonly string[],
): Promise<Tracking> {
  const tokens = proof.assets.flatMap((a, i) => (a.id === "native" ? [] : [{ id: a.id, i }]));
  if (!tokens.length) return { probed: false, tokens: [], detail: "no tokens" };
  const untold = (why: string) => tokens.map((t) => ({ token: t.id, why }));
  const unknownText = (why: string) =>
    `whether ${tokens.length === 1 ? `token ${tokens[0]!.id}` : `tokens ${tokens.map((t) => t.id).join(", ")}`} read the native coin the node cannot tell: ${why}`;
  if (!chain.evm?.pinnedStateReads) {
    const why = "the chain serves no state at a block, so no balance can be overridden there";
    return { probed: false, tokens: [], unknown: untold(why), detail: unknownText(why) };
  }
  const { readTracking } = await import("./tracking-read.js");
  const read = await readTracking(
    client,
    chain,
    tokens.map((t) => t.id),
    proof.addresses,
    at,
    signal,
    also,
    alsoTokens,
  );
  if (!read.applied)
    return { probed: null, tokens: [], unknown: untold(read.why), detail: unknownText(read.why) };
  const found = [...read.moved].map(([token, m]) => ({
    token,
    address: m.address,
    ...(m.follows === m.address ? {} : { follows: m.follows }),
  }));
  const unknown = [...read.failed].map(([token, why]) => ({ token, why }));
  // a token seen reading the native coin is told so, whatever else it reads
  const reads = [...read.reads]
    .filter(([t]) => !read.moved.has(t))
    .map(([token, r]) => ({ token, reads: r.token, address: r.address }));
  const lines = [
    ...reads.map(
      (r) =>
        `token ${r.token}: ${readsTokenDetail({
          token: r.reads,
          address: r.address,
          block: typeof at === "string" ? BigInt(at) : BigInt(at.number),
        })}`,
    ),
    ...found.map(
      (f) =>
        `token ${f.token}: balanceOf(${f.address}) moves with ${followsText(f)}: it reads the native coin`,
    ),
    ...unknown.map(
      (u) => `token ${u.token}: whether it reads the native coin the node cannot tell: ${u.why}`,
    ),
  ];
  return {
    probed: true,
    tokens: found,
    ...(unknown.length ? { unknown } : {}),
    ...(reads.length ? { reads } : {}),
    detail: lines.length
      ? lines.join("; ")
      : `no token's balanceOf moves with the native balances of the ${counted(proof.addresses.length + also.length, "address")}${also.length ? ` (${also.length} of other proofs on the chain)` : ""}`,
  };
}

/** Whose native balance a tracking token's balanceOf moved with, as a verdict says it. */
export function followsText(f: { follows?: string | null }): string {
  return f.follows === undefined
    ? "that address's native balance"
    : f.follows === null
      ? "the native balances of several of the audit's addresses at once"
      : `the native balance of ${f.follows}`;
}
