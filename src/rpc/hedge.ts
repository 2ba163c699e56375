/**
 * The hedge of an idempotent read: if the first endpoint has not answered after `hedgeMs`, the next is asked
 * too and the first definitive answer wins (docs/architecture.md, the client). Without a second endpoint or a
 * hedge, just the first.
 */
import type { Outcome } from "./classify.js";
import type { Endpoint } from "./endpoint.js";

/** One attempt's outcome, where and how long it took. */
export type Attempt<T> = { ep: Endpoint; out: Outcome<T>; ms: number };

export async function hedged<T>(
  a: Endpoint,
  b: Endpoint | undefined,
  hedgeMs: number,
  attempt: (ep: Endpoint) => Promise<Outcome<T>>,
  onHedge: () => void,
): Promise<Attempt<T>[]> {
  const t0 = Date.now();
  const run = (ep: Endpoint) => attempt(ep).then((out) => ({ ep, out, ms: Date.now() - t0 }));
  const pa = run(a);
  if (!b || hedgeMs <= 0) return [await pa];
  let timer: NodeJS.Timeout | undefined;
  const early = await Promise.race([
    pa,
    new Promise<null>((r) => (timer = setTimeout(() => r(null), hedgeMs))),
  ]);
  clearTimeout(timer);
  if (early) return [early];
  onHedge();
  const pb = run(b);
  const done: Attempt<T>[] = [];
  return new Promise((resolve) => {
    for (const [i, p] of [pa, pb].entries()) {
      p.catch(
        (e: unknown): Attempt<T> => ({
          ep: i === 0 ? a : b,
          out: { kind: "maybe", why: String((e as Error)?.message ?? e) },
          ms: Date.now() - t0,
        }),
      ).then((r) => {
        done.push(r);
        if (r.out.kind === "ok" || r.out.kind === "final" || done.length === 2) resolve([...done]);
      });
    }
  });
}
