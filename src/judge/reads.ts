/**
 * One balance backs one asset, for a declared token whose balanceOf reads another's coins (issue 55, item 4):
 * the rule both paths apply — chaingw's own EVM proofs (liabilities/solvency.ts) and an exchange's token rows
 * (exchange/ownership/holdings.ts). What the verifier's probe saw (reserves/evm/balances-read.ts
 * `readTracking`: balanceOf moving with a native balance, or when another declared token's code answered
 * otherwise) is its input; a token that reads the native coin or another declared token backs nothing — the
 * coin it reads counts once, as itself. Data in, a typed finding out (words.ts words it).
 */
import type { HoldingChain, HoldingFinding } from "./words.js";

/**
 * What the probe saw a token's balanceOf read, as data (words.ts `readsDetail` words it): the native coin —
 * its balanceOf(`address`) moved with that address's native balance (`follows` absent), another address's, or
 * several at once (null) — or another declared token (`token`), whose code answering otherwise moved it; at
 * block `block` (a decimal number).
 */
export type TokenReads =
  | { of: "native"; address: string; follows?: string | null; block: string }
  | { of: "token"; token: string; address: string; block: string };

/** The finding that a token reading `reads` is not counted as `asset` (`coin`: as its source names it). */
export function readsFinding(
  reads: TokenReads,
  held: { asset: string; coin: string; is: HoldingChain },
): HoldingFinding {
  return { code: reads.of === "token" ? "reads-token" : "reads-native", ...held, reads };
}

/**
 * One declared token's storage reads outside itself, asked balanceOf at each address that holds it
 * (reserves/evm/ledgers.ts): every slot any of them read.
 */
export interface LedgerReads {
  network: string;
  token: string;
  /** "contract slot" */
  slots: readonly string[];
}

/**
 * Two facades of one ledger: of `list`'s tokens in their declared order, each whose balanceOf reads a storage
 * slot of another contract that an earlier declared token's balanceOf reads too, on the same chain, at whichever
 * holder each read it (a slot names its contract and its key: one ledger entry read by two facades at two holders
 * is the same coins) —
 * by `network token`, that earlier token and the slot. The rule: the earlier counts, as itself; for the later
 * one whether its coins are other coins cannot be said (the shared slot may be the balance itself, or a
 * setting both read), so it proves nothing for the audit and its asset is CANNOT SAY where it would cover it.
 */
export function sharedLedgers(
  list: readonly LedgerReads[],
): Map<string, { with: string; ledger: string; slot: string }> {
  const first = new Map<string, string>();
  const out = new Map<string, { with: string; ledger: string; slot: string }>();
  for (const r of list)
    for (const s of r.slots) {
      const k = `${r.network} ${s}`;
      const earlier = first.get(k);
      if (earlier === undefined) first.set(k, r.token);
      else if (earlier !== r.token && !out.has(`${r.network} ${r.token}`)) {
        const [ledger, slot] = s.split(" ") as [string, string];
        out.set(`${r.network} ${r.token}`, { with: earlier, ledger, slot });
      }
    }
  return out;
}
