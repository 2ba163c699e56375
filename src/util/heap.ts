/**
 * Keeps the heap at the window's size however long the run (batch arrays, eth_getLogs windows). V8 sizes its old generation to the machine
 * (gigabytes here), and requests in flight live long enough to be promoted there; so it collects rarely
 * and a run of 50,000 requests used twice the memory of 1,000 without holding more. When the heap and
 * the answers' buffers have grown by a bound since the run began, a full collection runs (none at all in
 * runs that stay under it). The bound counts what the run added, not the program itself: the command
 * tree's code and source (11 MB of old space once the bundle grew to 1.5 MB) had pushed a 10,000-call
 * batch over a bound of the whole heap, and its one full collection, marking all that code in one pause,
 * cost ~20 % of the run's instructions (issue 60). `gc` is V8's own, enabled at run time for this command
 * only. The young generation doubles up to 32 MB while allocation stays fast; it is held at 8 MB (same
 * speed, measured: 200,000 requests peak at 90 MB instead of 114).
 */
const MB = 1024 * 1024;
/** CHAINGW_BATCH_HEAP_MB: a number >= 0 (0: a collection after every chunk, for tests); else 24 (MB the run may add) */
function heapBound(): number {
  const text = process.env.CHAINGW_BATCH_HEAP_MB?.trim();
  const n = text ? Number(text) : Number.NaN;
  return (Number.isFinite(n) && n >= 0 ? n : 24) * MB;
}
const YOUNG_MAX = 8 * 1024 * 1024;
/** A run's heap tuning (one per run, made before its first request): `check()` after each chunk written. */
export const newHeapTuner = () => {
  const tuner = {
    gc: undefined as (() => void) | undefined,
    youngFixed: false,
    /** the bound now: raised above what a collection leaves, so a window larger than the base bound
     * (big blocks) does not collect after every chunk */
    bound: -1,
    /** the old generation and buffers when the run began (the program: its code, sources, settings) */
    start: -1,
    /** the old generation (where promoted garbage waits) and the buffers; the young one is swept anyway */
    oldSize(v8: typeof import("node:v8")): number {
      let old = v8.getHeapStatistics().external_memory;
      for (const sp of v8.getHeapSpaceStatistics()) {
        if (sp.space_name === "old_space" || sp.space_name === "large_object_space")
          old += sp.space_used_size;
        // the young generation doubles while allocation stays fast (4 → 32 MB); at 8 MB it stops growing
        if (sp.space_name === "new_space" && !this.youngFixed && sp.space_size >= YOUNG_MAX) {
          v8.setFlagsFromString("--semi-space-growth-factor=1");
          this.youngFixed = true;
        }
      }
      return old;
    },
    check(): void {
      const v8 = require("node:v8") as typeof import("node:v8");
      if (this.bound < 0) {
        const base = heapBound();
        this.bound = base === 0 ? 0 : this.start + base;
      }
      if (this.oldSize(v8) < this.bound) return;
      if (!this.gc) {
        v8.setFlagsFromString("--expose-gc");
        this.gc = (require("node:vm") as typeof import("node:vm")).runInNewContext("gc") as () => void;
      }
      this.gc();
      // what survives is the window (and the program); let garbage reach half of it (8 MB at least) again
      const base = heapBound();
      const live = this.oldSize(v8);
      this.bound = base === 0 ? 0 : Math.max(this.start + base, live + Math.max(8 * MB, live / 2));
    },
  };
  tuner.start = tuner.oldSize(require("node:v8") as typeof import("node:v8"));
  return tuner;
};
