/**
 * Which answers cannot change, and so may be served again from the cache: what is keyed by a block hash,
 * and what sits deep enough below the tip that a reorg will not move it. Nothing that depends on the tip
 * is stored: a verbose UTXO header or block carries `confirmations`, which is left out of the stored
 * bytes' meaning — it is recomputed from the gateway's tip each time the answer is served.
 */
import { type JsonValue, parseLossless, quantityOf } from "../json/lossless.js";
import { isJsonObject } from "../util/text.js";
import type { CacheDep } from "./state.js";

export interface CachePlan {
  key: string;
  /** whether an answer may be stored (it is deep enough, and not null) */
  storable(raw: string, best: number | undefined): boolean;
  /** the stored answer as served now (confirmations brought up to the tip) */
  serve(raw: Buffer, best: number | undefined): Buffer | undefined;
  /**
   * The block a stored answer depends on (a reorg past it drops the answer); undefined: it holds on any
   * chain that has it (the raw bytes of a block or header by hash).
   */
  dep(raw: string | Buffer): CacheDep | undefined;
}

const deep = (h: number | undefined, best: number | undefined, depth: number) =>
  h !== undefined && best !== undefined && h <= best - depth;

const parse = (raw: string): JsonValue | undefined => {
  try {
    return parseLossless(raw);
  } catch {
    return undefined;
  }
};

const asIs = (raw: Buffer) => raw;
const none = () => undefined;

/** The block named by an answer's members (height, hash): a dep in `scope`, or undefined when either is missing. */
const blockOf =
  (scope: string, height: string, hash: string, next?: string) =>
  (raw: string | Buffer): CacheDep | undefined => {
    const v = parse(typeof raw === "string" ? raw : raw.toString("utf8"));
    if (!isJsonObject(v)) return undefined;
    const h = quantityOf(v[height]);
    // a verbose UTXO block or header carries its successor's hash: it holds while that block does
    const nextHash = next === undefined ? undefined : v[next];
    if (h !== undefined && typeof nextHash === "string") return { scope, height: h + 1, hash: nextHash };
    const x = v[hash];
    return h !== undefined && typeof x === "string" ? { scope, height: h, hash: x } : undefined;
  };
const CONFIRMATIONS = /"confirmations":(-?\d+)/;

/** A verbose header/block: stored once deep (nextblockhash is settled then), confirmations computed when served. */
function withConfirmations(raw: Buffer, best: number | undefined): Buffer | undefined {
  if (best === undefined) return undefined;
  const text = raw.toString("utf8");
  const m = CONFIRMATIONS.exec(text);
  const hm = /"height":(\d+)/.exec(text);
  if (!m || !hm) return undefined;
  const conf = best - Number(hm[1]) + 1;
  if (conf < 1) return undefined;
  return Buffer.from(
    text.slice(0, m.index) + `"confirmations":${conf}` + text.slice(m.index + m[0].length),
    "utf8",
  );
}

/**
 * A plan whose answers depend on a block: stored only with that block named (an answer without it — a
 * receipt with a height and no hash — would be dropped by no reorg).
 */
const tied = (p: CachePlan): CachePlan => ({
  ...p,
  storable: (raw, best) => p.storable(raw, best) && p.dep(raw) !== undefined,
});

/**
 * The cache plan of a call, or undefined when its answer may change. `product` is the product's cache
 * scope (its name and chain); `params` are the checked params as sent; `hash` keyed reads are immutable,
 * height keyed ones once `depth` blocks deep.
 */
export function cachePlan(
  product: string,
  method: string,
  params: unknown[],
  depth: number,
): CachePlan | undefined {
  const key = `${product}|${method}|${JSON.stringify(params)}`;
  const objectDeep =
    (
      heightOf: (o: Record<string, JsonValue>) => JsonValue | undefined,
      onChain?: (o: Record<string, JsonValue>) => boolean,
    ) =>
    (raw: string, best: number | undefined) => {
      const v = parse(raw);
      return isJsonObject(v) && deep(quantityOf(heightOf(v)), best, depth) && (onChain?.(v) ?? true);
    };
  switch (method) {
    case "getblockhash": {
      // outside the registry, its params arrive as parsed (lossless numbers)
      const h = quantityOf(params[0] as JsonValue) ?? (typeof params[0] === "number" ? params[0] : undefined);
      const dep = (raw: string | Buffer): CacheDep | undefined => {
        const v = parse(typeof raw === "string" ? raw : raw.toString("utf8"));
        return h !== undefined && typeof v === "string" ? { scope: product, height: h, hash: v } : undefined;
      };
      return tied({
        key,
        storable: (raw, best) => deep(h, best, depth) && raw.startsWith('"'),
        serve: asIs,
        dep,
      });
    }
    case "getblockheader":
    case "getblock": {
      const rawHex = method === "getblock" ? params[1] === 0 : params[1] === false;
      if (rawHex)
        // the raw bytes of a block or header are the hash's preimage: they cannot change
        return { key, storable: (raw) => raw.startsWith('"'), serve: asIs, dep: none };
      return tied({
        key,
        // a block off the best chain (a reorg's loser: confirmations -1, no successor) is no answer to
        // keep: its confirmations would be computed as if it were on it
        storable: objectDeep(
          (o) => o.height,
          (o) => typeof o.nextblockhash === "string" && (quantityOf(o.confirmations) ?? 0) >= 1,
        ),
        serve: withConfirmations,
        dep: blockOf(product, "height", "hash", "nextblockhash"),
      });
    }
    case "eth_getBlockByHash":
      return tied({
        key,
        storable: objectDeep((o) => o.number),
        serve: asIs,
        dep: blockOf(product, "number", "hash"),
      });
    case "eth_getTransactionByHash":
    case "eth_getTransactionReceipt":
      return tied({
        key,
        storable: objectDeep((o) => o.blockNumber),
        serve: asIs,
        dep: blockOf(product, "blockNumber", "blockHash"),
      });
    default:
      return undefined;
  }
}
