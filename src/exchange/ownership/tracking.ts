/**
 * The tracking probe for an exchange's token rows (issue 55, item 4): a token declared with `--token
 * SYMBOL=0x…` whose balanceOf moves with the native balance of the file's addresses (`a.balance`, `a.balance +
 * 1`, another row's address's balance) is the native coin again, and backs nothing twice; one whose balanceOf
 * moves when another declared token's code answers otherwise (`B.balanceOf(a)` returning `A.balanceOf(a)`) is
 * that token's coins again, and backs nothing either: the token it reads counts them, once. The same probe as
 * chaingw's own proofs (reserves/evm/tracking-read.ts `readTracking`: each token's balanceOf asked straight, as
 * the balance read asks it, with the native balances raised by a state override), asked once per node and snapshot block for
 * every token read there, at the token rows' addresses, with every EVM address the node's rows name raised.
 */
import type { ChainGroup } from "../../chains/types.js";
import { ChaingwError } from "../../errors/index.js";
import { sharedLedgers, type TokenReads } from "../../judge/reads.js";
import { ledgerUntoldWords, readsDetail, sharedLedgerWords } from "../../judge/words.js";
import type { Finding } from "../../reserves/verdict.js";
import { claim } from "../../reserves/verifier.js";
import type { JsonRpcClient } from "../../rpc/client.js";
import type { BalanceCheck } from "./balances.js";
import type { OwnershipRow } from "./read.js";
import type { RowResult } from "./report.js";
import { isEvmAddress } from "./signatures.js";

/**
 * What the probe told of one token on one node at one block: `tracks` true, its balanceOf moved with a native
 * balance (the detail says whose); null, the node could not tell (refused or ignored the state override, or
 * the token's call failed: why); false, it did not move.
 */
export interface TokenTracking {
  tracks: boolean | null;
  detail: string;
  /**
   * tracks null: why the node could not tell (its own words), the solvency finding's reason; absent where the
   * shared-ledger rule made it "cannot tell" (its words in `detail`)
   */
  why?: string;
  /**
   * tracks true: what the probe saw it read, as data — the native coin (at which address, whose balance, which
   * block) or another declared token, whose coins they are, counted once as it (judge/reads.ts, words.ts)
   */
  reads?: TokenReads;
}

/** The node's side the probe needs: its client and chain (an EVM node of `--node`). */
interface ProbeNode {
  client: JsonRpcClient;
  chain: ChainGroup;
}

/**
 * Every token of `rows` (their contracts by `tokenOf`, undefined: the native coin or not a token row) asked at
 * `block` on `node`: the token rows' addresses read, every EVM address of `rows` raised. By token, lowercase.
 */
export async function probeRows(
  node: ProbeNode,
  rows: readonly OwnershipRow[],
  tokenOf: (row: OwnershipRow) => string | undefined,
  block: string,
  signal?: AbortSignal,
): Promise<Map<string, TokenTracking>> {
  const holders = new Map<string, Set<string>>();
  const all = new Set<string>();
  for (const r of rows) {
    if (!isEvmAddress(r.address)) continue;
    const a = r.address.toLowerCase();
    all.add(a);
    const t = tokenOf(r)?.toLowerCase();
    if (t !== undefined) (holders.get(t) ?? holders.set(t, new Set()).get(t))?.add(a);
  }
  const out = new Map<string, TokenTracking>();
  if (!holders.size) return out;
  const untold = (why: string) => {
    for (const t of holders.keys())
      out.set(t, {
        tracks: null,
        detail: `whether its balanceOf reads the native coin the node cannot tell: ${why}`,
        why,
      });
    return out;
  };
  if (!node.chain.evm?.pinnedStateReads)
    return untold("the chain serves no state at a block, so no balance can be overridden there");
  const addresses = [...new Set([...holders.values()].flatMap((s) => [...s]))];
  const also = [...all].filter((a) => !addresses.includes(a));
  const { readTracking } = await import("../../reserves/evm/tracking-read.js");
  let read: Awaited<ReturnType<typeof readTracking>>;
  try {
    read = await readTracking(node.client, node.chain, [...holders.keys()], addresses, block, signal, also);
  } catch (e) {
    if (e instanceof ChaingwError) return untold(e.message);
    throw e;
  }
  if (!read.applied) return untold(read.why);
  const at = `block ${BigInt(block)}`;
  const n = BigInt(block).toString();
  for (const t of holders.keys()) {
    const m = read.moved.get(t);
    const failed = read.failed.get(t);
    const other = read.reads.get(t);
    const reads: TokenReads | undefined =
      other && !m
        ? { of: "token", token: other.token, address: other.address, block: n }
        : m
          ? {
              of: "native",
              address: m.address,
              ...(m.follows === m.address ? {} : { follows: m.follows }),
              block: n,
            }
          : undefined;
    out.set(
      t,
      reads
        ? { tracks: true, reads, detail: readsDetail(reads) }
        : failed !== undefined
          ? {
              tracks: null,
              detail: `whether its balanceOf reads the native coin the node cannot tell: ${failed}`,
              why: failed,
            }
          : {
              tracks: false,
              detail: `its balanceOf moved with no native balance of the ${all.size} addresses at ${at}`,
            },
    );
  }
  await ledgersOf(node, holders, block, out, signal);
  return out;
}

/**
 * Two facades of one ledger among the node's declared tokens (judge/reads.ts `sharedLedgers`, in the file's
 * order; reserves/evm/ledgers.ts: one eth_createAccessList a token an address of its rows): a later facade, or every token
 * where the node cannot list what balanceOf reads, cannot be told — unless the probe already told it.
 */
async function ledgersOf(
  node: ProbeNode,
  holders: ReadonlyMap<string, ReadonlySet<string>>,
  block: string,
  out: Map<string, TokenTracking>,
  signal?: AbortSignal,
): Promise<void> {
  const tokens = [...holders.keys()];
  if (tokens.length < 2) return;
  const { readLedgerSlots } = await import("../../reserves/evm/ledgers.js");
  let read: Awaited<ReturnType<typeof readLedgerSlots>>;
  try {
    read = await readLedgerSlots(
      node.client,
      node.chain,
      new Map([...holders].map(([t, hs]) => [t, [...hs]])),
      block,
      signal,
    );
  } catch (e) {
    if (!(e instanceof ChaingwError)) throw e;
    read = { told: false, why: e.message };
  }
  const untold = (t: string, detail: string) => {
    if (out.get(t)?.tracks === false) out.set(t, { tracks: null, detail });
  };
  if (!read.told) {
    const why = read.why;
    const words = ledgerUntoldWords(
      typeof why === "string" ? { address: null, answer: why } : { ...why, all: true },
    );
    for (const t of tokens) untold(t, words);
    return;
  }
  for (const [t, why] of read.failed) untold(t, ledgerUntoldWords(why));
  const list = [...read.slots].map(([token, s]) => ({ network: "", token, slots: [...s] }));
  for (const [k, s] of sharedLedgers(list)) untold(k.slice(1), sharedLedgerWords(s));
}

/**
 * A token row's tracking as `reserves verify` names it (a claim: the row stands, its key signed and the balance
 * is there), or none: solvency counts such a token for no asset (exchange/ownership/holdings.ts).
 */
export function trackingFinding(r: RowResult): Finding[] {
  const t = r.balance?.tracking;
  if (!t) return [];
  const said = t.tracks
    ? t.reads?.of === "token"
      ? `its token ${t.detail}, which solvency counts once, as that token`
      : `its token ${t.detail}: the native coin again, which solvency counts once, as itself`
    : `${t.detail}; solvency takes it as proven for no audit`;
  return [claim("tracking", `${r.coin} ${r.address}: ${said}`, `line ${r.line}`)];
}

/** A balance check as the row's report keeps it: the places the chain gives, and the tracking, where told. */
export function balanceRecord(b: BalanceCheck): NonNullable<RowResult["balance"]> {
  // built member by member, in the report's order (spread records: ~60 µs a row at 10,000 rows with nodes)
  const r: NonNullable<RowResult["balance"]> = {
    value: b.value ?? null,
    block: b.block ?? null,
    holds: b.holds,
    detail: b.detail,
  };
  if (b.decimals !== undefined) r.decimals = b.decimals;
  if (b.tracking) r.tracking = b.tracking;
  return r;
}
