/**
 * A cap on requests at work at once: a freed slot is handed directly to the next waiter (so the count
 * stays right), and a wait ends — leaving the line, with nothing sent — when the request is interrupted or
 * its own request timeout runs out. Used for fresh connections (src/rpc/http.ts) and for `serve`'s
 * per-upstream caps (src/serve/upstreams.ts).
 */
import { HttpFailure } from "./failure.js";

export class Slots {
  /** slots taken now */
  inUse = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(readonly max: number) {}

  /** Takes a free slot at once, if there is one and nobody waits in line. */
  tryAcquire(): boolean {
    if (this.inUse >= this.max) return false;
    this.inUse++;
    return true;
  }

  /** Takes a slot, waiting in line when all are taken; `busy` words the timeout's failure. */
  async acquire(
    opts: { signal?: AbortSignal; requestTimeoutMs: number },
    busy: (ms: number) => string,
  ): Promise<void> {
    if (this.tryAcquire()) return;
    if (opts.signal?.aborted) throw new HttpFailure("interrupted", "unsent");
    await new Promise<void>((resolve, reject) => {
      const done = (err?: HttpFailure) => {
        clearTimeout(timer);
        opts.signal?.removeEventListener("abort", onAbort);
        if (!err) return resolve();
        const i = this.waiters.indexOf(granted);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(err);
      };
      const granted = () => done();
      const onAbort = () => done(new HttpFailure("interrupted", "unsent"));
      const timer =
        opts.requestTimeoutMs > 0
          ? setTimeout(
              () => done(new HttpFailure(busy(opts.requestTimeoutMs), "unsent", true)),
              opts.requestTimeoutMs,
            )
          : undefined;
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(granted);
    });
  }

  /** Frees a slot: to the next waiter if any, else back to the pool. */
  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.inUse--;
  }
}
