/**
 * Finding a reorg's fork among the cache's claims (what each cached answer took the chain to be: a block's
 * height and hash) by asking an upstream for its blocks at those heights, in arrays. The pool (upstreams.ts)
 * decides when to look (an anchor block that changed, a chain it starts following) and what to drop and say.
 */
import { groupOf } from "../chains/index.js";
import type { ChainGroup } from "../chains/types.js";
import { TransportError } from "../errors/index.js";
import { type BatchOutcome, callBatch } from "../rpc/batch.js";
import type { BatchEntry, JsonRpcClient } from "../rpc/client.js";
import type { ProductConfig } from "./config.js";
import type { Claims } from "./state.js";

export const CHECK_MARKS = { idempotent: true, heavy: false };
/** A reorg's fork is looked for among the cache's claims: this many heights an array, at most so many arrays. */
const WALK_HEIGHTS = 64;
const WALK_ROUNDS = 4;

type Chain = ProductConfig["chain"];

/** The call that asks the hash of the block at `height`. */
export function hashCall(chain: Chain, height: number): BatchEntry {
  const bh = groupOf(chain).blockHash as NonNullable<ChainGroup["blockHash"]>;
  return { method: bh.method, params: bh.params(height), marks: CHECK_MARKS, plain: true };
}

/** A block hash from its call's outcome; null: no such block (null, or the node's error: out of range). */
export function hashIn(chain: Chain, o: BatchOutcome | undefined): string | null {
  if (o === undefined || o instanceof Error) return null;
  const bh = groupOf(chain).blockHash;
  const v = bh?.member ? (o.result as Record<string, unknown> | null)?.[bh.member] : o.result;
  return typeof v === "string" && v.length > 0 ? v : null;
}

/** Where the cache's claims and an upstream's chain part (see `walkClaims`). */
export type Walked = { fork: number; lowestBad?: number; claims: number; read: boolean };

/**
 * The fork of the cache's claims and the upstream's chain (asked through `checker`): every claim at the
 * cache's highest claimed heights against the upstream's blocks there, in arrays of WALK_HEIGHTS, at most
 * WALK_ROUNDS — every height, not down to the first that agrees: the new chain's answers cached since a reorg
 * (however many) agree above the old chain's. Returns the height above which entries go (-1: every entry
 * tied to a block — the upstream unreadable, or claims past the bound below a disagreeing lowest), the lowest
 * claim the upstream disagrees with, how many claims were read, and whether the shared records were.
 */
export async function walkClaims(
  cache: { claims(scope: string, heights: number): Promise<Claims> },
  checker: JsonRpcClient,
  chain: Chain,
  scope: string,
): Promise<Walked> {
  const limit = WALK_HEIGHTS * WALK_ROUNDS;
  const { claims, all: whole, read } = await cache.claims(scope, limit);
  const byHeight = new Map<number, Set<string>>();
  for (const c of claims) {
    const set = byHeight.get(c.height) ?? new Set();
    byHeight.set(c.height, set);
    set.add(c.hash);
  }
  const heights = [...byHeight.keys()];
  let lowestBad: number | undefined;
  let agreesBelow = false;
  let sure = true;
  try {
    walk: for (let r = 0; r < WALK_ROUNDS; r++) {
      const part = heights.slice(r * WALK_HEIGHTS, (r + 1) * WALK_HEIGHTS);
      if (part.length === 0) break;
      const outs = await callBatch(
        checker,
        part.map((h) => hashCall(chain, h)),
      );
      for (const [k, h] of part.entries()) {
        const o = outs[k];
        if (o instanceof TransportError) {
          sure = false;
          break walk;
        }
        const hash = hashIn(chain, o);
        const held = byHeight.get(h) as Set<string>;
        if (hash !== null && held.size === 1 && held.has(hash)) {
          if (lowestBad !== undefined) agreesBelow = true;
        } else [lowestBad, agreesBelow] = [h, false];
      }
    }
  } catch {
    sure = false;
  }
  // the fork: below the lowest claim the node disagrees with; -1: every entry tied to a block
  const fork = !sure
    ? -1
    : lowestBad === undefined
      ? (heights[0] ?? -1)
      : whole || agreesBelow
        ? lowestBad - 1
        : -1;
  return { fork, lowestBad, claims: claims.length, read };
}
