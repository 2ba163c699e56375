/**
 * Solvency's identity rule: which network a proof is of (re-derived by its verifier, else claimed), what it
 * is called, the snapshots that cannot be judged together, and the tokens that mirror a native coin.
 */
import { type NetworkId, nativeCoinLabel, networkLabel, wellKnownAt } from "../chains/assets.js";
import { MESSAGE_COINS, type NetworkName } from "../chains/coins.js";
import { type LedgerReads, sharedLedgers } from "../judge/reads.js";
import { type AuditFault, sharedLedgerWords } from "../judge/words.js";
import type { Proof } from "../proof/document.js";
import { unitOf } from "../reserves/claims.js";
import type { LedgerUntold } from "../reserves/evm/ledgers.js";
import { type NativeMirror, nativeMirrorsOf } from "../reserves/evm/mirrors.js";
import type { Backing } from "./solvency-types.js";

/** The network a UTXO proof claims: its coin (from its addresses' form) and its `chain` field, by the coin table. */
export function claimedUtxoNetwork(p: Proof): NetworkId | null {
  const coin = MESSAGE_COINS.find((c) => c.ticker === unitOf(p));
  const genesis = coin?.networks[p.chain as NetworkName]?.genesis;
  return genesis ? `utxo:${genesis}` : null;
}

/** A backing's network: the verifier's, re-derived from the node, else what the document claims. */
export function networkOfBacking(b: Backing): { network: NetworkId | null; rederived: boolean } {
  const v = b.entry.verify?.chain.network;
  if (v) return { network: v, rederived: true };
  return { network: b.utxo ? claimedUtxoNetwork(b.utxo) : `evm:${b.evm!.chain.chain_id}`, rederived: false };
}

export const tokenOf = (b: Backing): string | undefined => (b.evm && b.id !== "native" ? b.id : undefined);
export const heightOf = (b: Backing): number => (b.utxo ? b.utxo.height : b.evm!.block.number);

/** "Tether's USDT on Ethereum", or "a token named USDT at 0x…, on anvil (chain id 31337)", or "LTC on Litecoin regtest". */
export function whatIs(b: Backing, network: NetworkId | null): string {
  if (network === null)
    return b.entry.verify
      ? "a proof whose network could not be told (its node could not say)"
      : "a proof whose addresses do not say which coin (--verify asks its node)";
  const token = tokenOf(b);
  const known = wellKnownAt(network, token);
  if (known) return known.label;
  const on = networkLabel(network);
  if (!token) return b.utxo ? nativeCoinLabel(network) : `the native coin of ${on}`;
  const sym = b.evm!.assets.find((a) => a.id === token)?.symbol;
  return `a token${sym ? ` named ${sym}` : ""} at ${token} on ${on}`;
}

/**
 * Proofs of one network at different heights or blocks that cannot be joined: EVM proofs always, UTXO proofs
 * without --verify (only the verifier can say which outputs were still unspent at the joint height). One line
 * per network, or none. Grouped by the network each document claims, before anything is sent.
 */
export function snapshotConflicts(backings: Backing[], verify: boolean): string[] {
  const by = new Map<string, Backing[]>();
  for (const b of backings) {
    // a UTXO proof whose addresses do not tell the coin: grouped by its network field, to be safe
    const n = networkOfBacking(b).network ?? `the "${b.utxo?.chain}" network`;
    by.set(n, [...(by.get(n) ?? []), b]);
  }
  const out: string[] = [];
  for (const [n, bs] of by) {
    const heights = new Set(bs.map(heightOf));
    if (heights.size < 2 || (verify && bs.every((b) => b.utxo))) continue;
    const list = [...new Map(bs.map((b) => [b.file, heightOf(b)])).entries()].map(([f, h]) => `${f} at ${h}`);
    out.push(
      `${networkLabel(n)}: proofs at different ${bs[0]!.utxo ? "heights" : "blocks"} (${list.join(", ")}) cannot be counted together — ${bs[0]!.utxo ? "give --verify to judge them at the highest, or proofs of one height" : "make them at one block"}`,
    );
  }
  return out;
}

/** The native mirrors among the backings' EVM proofs (reserves/evm/mirrors.ts), by `network token`. */
export function nativeMirrors(backings: Backing[]): Map<string, NativeMirror> {
  return nativeMirrorsOf(
    backings.flatMap((b) => {
      const { network } = networkOfBacking(b);
      const tracks = b.entry.verify?.tracks_native;
      const follows = b.entry.verify?.tracks_follows;
      return b.evm && network
        ? [{ doc: b.evm, network, ...(tracks ? { tracks } : {}), ...(follows ? { follows } : {}) }]
        : [];
    }),
  );
}

/**
 * The backings' EVM tokens whose tracking of the native coin their node could not tell (the verifier's probe:
 * a node that refused or ignored the state override, a chain with no state at a block), by `network token`,
 * each with why: such a token may be the native coin again, so solvency cannot say for it.
 */
export function trackingUnknown(backings: Backing[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const b of backings) {
    const { network } = networkOfBacking(b);
    for (const [token, why] of Object.entries(b.entry.verify?.tracking_unknown ?? {}))
      if (network && !out.has(`${network} ${token}`)) out.set(`${network} ${token}`, why);
  }
  return out;
}

/**
 * The backings' EVM tokens that are a second facade of one ledger (judge/reads.ts `sharedLedgers`, over every
 * backing of a chain in the order given, each proof's tokens asked at every address of it), or whose node could
 * not list what their balanceOf reads at an address of any proof (asked for their own proof or beside another's:
 * never taken as sharing none): by `network token`, the fault — solvency cannot say for them.
 */
export function ledgerFaults(
  backings: Backing[],
): Map<string, Extract<AuditFault, { code: "ledger-untold" | "ledger-unprobed" }>> {
  const out = new Map<string, Extract<AuditFault, { code: "ledger-untold" | "ledger-unprobed" }>>();
  const list: LedgerReads[] = [];
  const order = new Map<string, number>();
  // every token a proof's node could not list, its own or another proof's asked beside, by `network token`
  const untold = new Map<string, LedgerUntold>();
  for (const b of backings) {
    const { network } = networkOfBacking(b);
    const token = tokenOf(b);
    const v = b.entry.verify;
    if (!network || !token || !v) continue;
    for (const [t, why] of Object.entries(v.ledger_unknown ?? {}))
      if (!untold.has(`${network} ${t.toLowerCase()}`)) untold.set(`${network} ${t.toLowerCase()}`, why);
    // every token its proof's node was asked at the proof's addresses (the other proofs' tokens of the chain
    // beside): a slot read by two facades at any holders meets
    for (const [t, slots] of Object.entries(v.ledger_slots?.tokens ?? {}))
      list.push({ network, token: t, slots });
    if (!order.has(`${network} ${token.toLowerCase()}`))
      order.set(`${network} ${token.toLowerCase()}`, order.size);
  }
  // in the declared order: the earlier declared token counts, the later facade cannot say
  const rank = (r: LedgerReads) => order.get(`${r.network} ${r.token}`) ?? order.size;
  const byToken = new Map(
    [...sharedLedgers([...list].sort((a, b) => rank(a) - rank(b)))].map(([k, s]) => [k.toLowerCase(), s]),
  );
  for (const b of backings) {
    const { network } = networkOfBacking(b);
    const token = tokenOf(b);
    if (!network || !token || out.has(`${network} ${token}`)) continue;
    const why = untold.get(`${network} ${token.toLowerCase()}`);
    const s = byToken.get(`${network} ${token}`.toLowerCase());
    if (why) out.set(`${network} ${token}`, { code: "ledger-unprobed", ...why });
    else if (s) out.set(`${network} ${token}`, { code: "ledger-untold", detail: sharedLedgerWords(s) });
  }
  return out;
}
