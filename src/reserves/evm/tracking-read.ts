/**
 * The tracking probe of `reserves verify` (and of an exchange's token rows): which declared tokens' balanceOf
 * reads the native coin (moves when the holders' native balances are raised by a state override) or another
 * declared token (moves when that token's code answers otherwise, reads-token.ts). Split from balances-read.ts,
 * whose reads it shares.
 */
import type { ChainGroup } from "../../chains/index.js";
import type { BatchOutcome } from "../../rpc/batch.js";
import type { JsonRpcClient } from "../../rpc/client.js";
import { type AssetId, atParam, prepareRead, readMany, type StateAt } from "./balances-read.js";
import { PROBE_CODE } from "./probe-code.js";
import { askProbe, type ProbeAsk, probeAnswer, probeWords } from "./probe-straight.js";
import { answeringOtherwise, firstAsks, type ReadsAsk, readsOf } from "./reads-token.js";

/**
 * The scratch account the tracking probe runs at (scripts/balance-probe.sol's code given to it by the call's
 * state override; no key holds it, nothing is deployed there).
 */
const PROBE_ACCOUNT = "0x00000000000000000000000000000000c0de0b01";
/** Addresses read in one probe call (a word of calldata and one balanceOf each). */
const PROBE_CHUNK = 400;

/**
 * What the node answered to the tracking probe (`readTracking`): `applied` false when it did not apply the
 * state override (refused or ignored it: `why`), so no token's answer tells anything; else per token the first
 * address where its balanceOf moved and whose native balance it followed (`follows`: one address's, or null —
 * several at once), or why its balanceOf could not be asked so (`failed`).
 */
export type TrackingRead =
  | { applied: false; why: string }
  | {
      applied: true;
      moved: Map<AssetId, { address: string; follows: string | null }>;
      failed: Map<AssetId, string>;
      /**
       * per token whose balanceOf moved when the other `tokens` answered otherwise (their code replaced by one
       * answering SENTINEL, reads-token.ts): which token it reads, and where — its balances are that token's coins
       */
      reads: Map<AssetId, { token: AssetId; address: string }>;
    };

/** `n` distinct amounts between 2^64 and 2^66 wei (18 to 74 coins of 18 decimals), drawn afresh each probe. */
async function probeDeltas(n: number): Promise<bigint[]> {
  const { randomBytes } = await import("node:crypto");
  const seen = new Set<bigint>();
  const out: bigint[] = [];
  for (let k = 0; out.length < n && k < n * 4 + 16; k++) {
    const d = (1n << 64n) + BigInt(`0x${randomBytes(9).toString("hex")}`) * 3n;
    if (!seen.has(d)) {
      seen.add(d);
      out.push(d);
    }
  }
  if (out.length < n) throw new Error("the tracking probe could not draw distinct amounts");
  return out;
}

/**
 * Each token's answers at each chunk of `mine`, plainly and with the native balances raised (`res` from
 * `start`, two a token and chunk): where it moved first and whose raised balance it followed (`byDelta`), why
 * its answer could not be read (`failed`), its plain answers by "token chunk", and where its answers end.
 */
function movedOf(
  tokens: AssetId[],
  mine: string[][],
  res: readonly (BatchOutcome | undefined)[],
  start: number,
  byDelta: Map<bigint, string>,
) {
  const moved = new Map<AssetId, { address: string; follows: string | null }>();
  const failed = new Map<AssetId, string>();
  const plain = new Map<string, BatchOutcome | undefined>();
  let i = start;
  for (const t of tokens)
    for (const [k, c] of mine.entries()) {
      const [before, after] = [res[i], res[i + 1]];
      plain.set(`${t} ${k}`, before);
      i += 2;
      const [b, r] = [probeWords(before, c.length), probeWords(after, c.length)];
      if (!b || !r) {
        if (!failed.has(t))
          failed.set(
            t,
            `its balanceOf at the proof's addresses, read by the probe${b ? " with their native balances raised" : ""}, answered ${probeAnswer(b ? after : before)}`,
          );
        continue;
      }
      const j = r.findIndex((v, k) => v !== b[k]);
      if (j >= 0 && !moved.has(t))
        moved.set(t, {
          address: c[j] as string,
          follows: byDelta.get((r[j] as bigint) - (b[j] as bigint)) ?? null,
        });
    }
  return { moved, failed, plain, next: i };
}

/**
 * Which `tokens` track the native coin of `addresses` (the proof's) or `also` (the other proofs' addresses on
 * the same chain) at `block`: each token's balanceOf at the proof's addresses asked straight, as the balance
 * read asks it (probe-straight.ts: a token answering a contract otherwise is not told apart), once as the
 * chain has it and once with the native balance of every one of those addresses raised by eth_call's state
 * override (geth, erigon, reth, nethermind, anvil), each by its own distinct amount, drawn afresh; the native
 * balances read by scripts/balance-probe.sol's code given to a scratch account; a token whose answer moves reads the native coin (a mirror,
 * whatever it adds: `a.balance + 1`, another address's balance, a sum of several), and the amount it moved by
 * tells whose balance it follows. First the probe reads the native balances back through the same override: a
 * node that refuses or ignores state overrides tells nothing (`applied` false). In the same batch, each token is
 * read again with every other token's code answering SENTINEL (reads-token.ts): one that moves reads one of
 * them, found by halving (`reads`).
 */
export async function readTracking(
  client: JsonRpcClient,
  chain: ChainGroup,
  tokens: AssetId[],
  addresses: string[],
  block: StateAt,
  signal?: AbortSignal,
  also: readonly string[] = [],
  alsoTokens: readonly string[] = [],
): Promise<TrackingRead> {
  const word = (a: string) => a.slice(2).toLowerCase().padStart(64, "0");
  const all = [...new Set([...addresses, ...also].map((a) => a.toLowerCase()))];
  const chunks = <T>(list: T[]): T[][] =>
    Array.from({ length: Math.ceil(list.length / PROBE_CHUNK) }, (_, k) =>
      list.slice(k * PROBE_CHUNK, (k + 1) * PROBE_CHUNK),
    );
  const code = { [PROBE_ACCOUNT]: { code: PROBE_CODE } };
  // the probe's code reads native balances only (token 0); every token is asked straight (probe-straight.ts)
  const call = (who: string[], override: object) =>
    prepareRead(chain, "eth_call", [
      { to: PROBE_ACCOUNT, data: `0x${"0".repeat(64)}${who.map(word).join("")}` },
      atParam(block),
      override,
    ]);
  const ask = (asks: ProbeAsk[]) =>
    askProbe(
      asks,
      atParam(block),
      (p) => prepareRead(chain, "eth_call", p),
      (e) => readMany(client, chain, e, undefined, signal),
    );
  // the native balances as the chain has them, read by the probe itself
  const parts = chunks(all);
  const natives = await ask(parts.map((c) => ({ probe: call(c, code) })));
  const native: bigint[] = [];
  for (const [k, c] of parts.entries()) {
    const w = probeWords(natives[k], c.length);
    if (!w)
      return {
        applied: false,
        why: `the node did not apply eth_call's state override (the probe's code given to ${PROBE_ACCOUNT} answered ${probeAnswer(natives[k])})`,
      };
    native.push(...w);
  }
  const deltas = await probeDeltas(all.length);
  const raised = all.map((_, k) => (native[k] as bigint) + (deltas[k] as bigint));
  const raising = Object.fromEntries(
    all.map((a, k) => [a, { balance: `0x${(raised[k] as bigint).toString(16)}` }]),
  );
  const mine = chunks(addresses.map((a) => a.toLowerCase()));
  const first = firstAsks(tokens, mine, alsoTokens);
  const sentinel = (a: ReadsAsk): ProbeAsk => ({
    token: a.token,
    who: mine[a.chunk] as string[],
    override: answeringOtherwise(a.others),
  });
  const res = await ask([
    // the control: the raised balances read back by the probe's code
    ...parts.map((c) => ({ probe: call(c, { ...code, ...raising }) })),
    // each token as the balance read asks it, then with only the native balances raised
    ...tokens.flatMap((t) =>
      mine.flatMap((c) => [
        { token: t, who: c },
        { token: t, who: c, override: raising },
      ]),
    ),
    // each token read again with every other token's code answering SENTINEL: a token that reads one moves
    ...first.map(sentinel),
  ]);
  for (const [k, c] of parts.entries()) {
    const w = probeWords(res[k], c.length);
    const at = k * PROBE_CHUNK;
    const bad = w ? w.findIndex((v, j) => v !== raised[at + j]) : 0;
    if (bad >= 0)
      return {
        applied: false,
        why: `the node did not apply eth_call's state override (the native balance of ${c[bad]} set to ${raised[at + bad]} read back as ${w ? w[bad] : probeAnswer(res[k])})`,
      };
  }
  const byDelta = new Map(deltas.map((d, k) => [d, all[k] as string]));
  const { moved, failed, plain, next } = movedOf(tokens, mine, res, parts.length, byDelta);
  const reads = await readsOf(
    {
      tokens,
      also: alsoTokens,
      chunks: mine,
      plain,
      first: res.slice(next),
      ask: (calls) => ask(calls.map(sentinel)),
      words: probeWords,
      answer: probeAnswer,
    },
    failed,
  );
  // a token seen moving is told, whatever else it answered
  for (const t of [...moved.keys(), ...reads.keys()]) failed.delete(t);
  return { applied: true, moved, failed, reads };
}
