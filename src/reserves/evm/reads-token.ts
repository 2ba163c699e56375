/**
 * The token-reads-token probe of `readTracking` (tracking-read.ts; issue 55, item 4): a declared token whose
 * balanceOf moves when other declared tokens' code answers otherwise (a state override giving each of them
 * SENTINEL's code) reads their balances — `B.balanceOf(a)` returning `A.balanceOf(a)` is A's coins again.
 * Linear in the tokens: per token and chunk of addresses, one ask (a straight call an address,
 * probe-straight.ts) with every OTHER declared token's code replaced at once (N asks a chunk for N tokens); only a token whose answer moved is then split in halves,
 * one half's code replaced a call, to name the token it reads — ⌈log2(N−1)⌉ calls per such token, at the one
 * chunk where it moved. Data in (the answers), the calls asked through `ask`.
 */
import type { BatchOutcome } from "../../rpc/batch.js";

/** A token's contract, lowercase. */
type AssetId = string;

/**
 * What a token's code is replaced by, to see whether another token's balanceOf reads it: any call to it answers
 * one word, 10^30 + 0x5e47 (PUSH32 w, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN) — no balance a real token
 * holds at an address, and room to add to it without overflow.
 */
export const SENTINEL = `0x7f${(10n ** 30n + 0x5e47n).toString(16).padStart(64, "0")}60005260206000f3`;

/** The override giving each of `tokens` SENTINEL's code. */
export const answeringOtherwise = (tokens: readonly AssetId[]): Record<string, { code: string }> =>
  Object.fromEntries(tokens.map((t) => [t, { code: SENTINEL }]));

/**
 * What the token-reads-token probe saw, as a finding's `detail` says it, for both paths: "reads the token at
 * 0x…: its balanceOf(0x…) moved when that token answered otherwise at block N (eth_call with a state
 * override): that token's coins again".
 */
export function readsTokenDetail(r: { token: string; address: string; block: number | bigint }): string {
  return `reads the token at ${r.token}: its balanceOf(${r.address}) moved when that token answered otherwise at block ${r.block} (eth_call with a state override): that token's coins again`;
}

/** One call of the probe: token `t` read at `chunk` (its index) with `others`' code answering SENTINEL. */
export interface ReadsAsk {
  token: AssetId;
  chunk: number;
  others: readonly AssetId[];
}

/** The pieces of the probe `readsOf` needs from readTracking: the answers' reading and the node. */
export interface ReadsProbe {
  tokens: readonly AssetId[];
  /** the other proofs' declared tokens on the chain: answering otherwise too, never probed themselves */
  also?: readonly AssetId[];
  chunks: readonly string[][];
  /** each token's answer at each chunk with no token replaced, by "token chunk" */
  plain: ReadonlyMap<string, BatchOutcome | undefined>;
  /** the answers to `firstAsks(tokens, chunks)`, in that order */
  first: readonly (BatchOutcome | undefined)[];
  /** asks the node these calls (one batch), answers in order */
  ask: (calls: ReadsAsk[]) => Promise<(BatchOutcome | undefined)[]>;
  words: (o: BatchOutcome | undefined, n: number) => bigint[] | undefined;
  answer: (o: BatchOutcome | undefined) => string;
}

/**
 * The first round: each token at each chunk with every other declared token's code replaced — its proof's and
 * `also`, the other proofs' on its chain (none with one token in all).
 */
export function firstAsks(
  tokens: readonly AssetId[],
  chunks: readonly string[][],
  also: readonly AssetId[] = [],
): ReadsAsk[] {
  const all = [...new Set([...tokens, ...also])];
  if (all.length < 2) return [];
  return tokens.flatMap((token) =>
    chunks.map((_, chunk) => ({ token, chunk, others: all.filter((o) => o !== token) })),
  );
}

/** The first index where `r` differs from `b` (an answer that is no words differs: -2), or -1. */
function movedAt(b: bigint[], r: bigint[] | undefined): number {
  if (!r) return -2;
  return r.findIndex((v, x) => v !== b[x]);
}

/**
 * The tokens whose balanceOf moved when the other tokens' code answered SENTINEL: which token each reads, and
 * where. A token that answered plainly and fails with the others replaced: `failed`, why (the probe cannot
 * tell). Each moving token is split in halves at the chunk where it moved: the first half's code replaced —
 * moved (or failed: that half touches its answer), the token it reads is in that half, else in the other —
 * until one token is left. Rounds: ⌈log2(N−1)⌉, one batch each, one call per moving token.
 */
export async function readsOf(
  p: ReadsProbe,
  failed: Map<AssetId, string>,
): Promise<Map<AssetId, { token: AssetId; address: string }>> {
  const asks = firstAsks(p.tokens, p.chunks, p.also);
  /** per moving token: where it moved, and the tokens that may be the one it reads */
  const open = new Map<AssetId, { chunk: number; address: string; among: AssetId[] }>();
  for (const [i, a] of asks.entries()) {
    if (open.has(a.token)) continue;
    const c = p.chunks[a.chunk] as string[];
    const b = p.words(p.plain.get(`${a.token} ${a.chunk}`), c.length);
    if (!b) continue;
    const j = movedAt(b, p.words(p.first[i], c.length));
    if (j === -2 && !failed.has(a.token))
      failed.set(
        a.token,
        `its balanceOf, read with the other ${a.others.length === 1 ? `declared token (${a.others[0]})` : `${a.others.length} declared tokens`} answering otherwise, answered ${p.answer(p.first[i])}`,
      );
    if (j >= 0) open.set(a.token, { chunk: a.chunk, address: c[j] as string, among: [...a.others] });
  }
  // bounded: each round halves every open token's candidates, at most ⌈log2(N−1)⌉ rounds
  for (let round = 0; round < 64; round++) {
    const split = [...open].filter(([, o]) => o.among.length > 1);
    if (!split.length) break;
    const calls = split.map(([token, o]) => ({
      token,
      chunk: o.chunk,
      others: o.among.slice(0, Math.ceil(o.among.length / 2)),
    }));
    const answers = await p.ask(calls);
    for (const [k, [token, o]] of split.entries()) {
      const c = p.chunks[o.chunk] as string[];
      const b = p.words(p.plain.get(`${token} ${o.chunk}`), c.length) as bigint[];
      const half = calls[k]?.others as AssetId[];
      const j = movedAt(b, p.words(answers[k], c.length));
      o.among = j === -1 ? o.among.slice(half.length) : half;
      if (j >= 0) o.address = c[j] as string;
    }
  }
  return new Map([...open].map(([t, o]) => [t, { token: o.among[0] as AssetId, address: o.address }]));
}
