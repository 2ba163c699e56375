// Allocations of a Node process without a clock (so not moved by the host's load): V8's sampling heap profiler,
// objects collected by the GC included, started before the program and read at its exit. Preload it:
//   ALLOC_PROFILE_OUT=alloc.json node --require ./bench/alloc-profile.cjs bin/chaingw …
// At exit it writes to stderr one line "alloc-profile: TOTAL MB allocated (main thread)" and, with
// ALLOC_PROFILE_OUT, the top functions by bytes allocated (self), as JSON, to that file. Main thread only.
"use strict";
const inspector = require("node:inspector");
const { writeFileSync } = require("node:fs");

const session = new inspector.Session();
session.connect();
session.post("HeapProfiler.enable");
session.post("HeapProfiler.startSampling", {
  samplingInterval: 32768,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
process.on("exit", () => {
  session.post("HeapProfiler.stopSampling", (err, r) => {
    if (err) return void process.stderr.write(`alloc-profile: ${err.message}\n`);
    const by = new Map();
    let total = 0;
    const walk = (n) => {
      const f = n.callFrame;
      const key = `${f.functionName || "(anonymous)"} ${f.url.replace(/^.*\//, "")}:${f.lineNumber + 1}`;
      by.set(key, (by.get(key) ?? 0) + n.selfSize);
      total += n.selfSize;
      for (const c of n.children) walk(c);
    };
    walk(r.profile.head);
    process.stderr.write(`alloc-profile: ${(total / 1e6).toFixed(1)} MB allocated (main thread)\n`);
    if (process.env.ALLOC_PROFILE_OUT) {
      const top = [...by].sort((a, b) => b[1] - a[1]).slice(0, 40);
      writeFileSync(
        process.env.ALLOC_PROFILE_OUT,
        `${JSON.stringify({ total_mb: total / 1e6, top: top.map(([f, b]) => ({ f, mb: +(b / 1e6).toFixed(2) })) }, null, 1)}\n`,
      );
    }
  });
});
