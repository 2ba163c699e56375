import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // dist/ older than src/ is rebuilt before any test (the tests run the built bundle)
    globalSetup: ["test/setup.global.ts"],
    // a hang guard, not a measure (test/helpers/procs.ts HANG_GUARD_MS): on a loaded machine a node is slow,
    // not wrong; waits follow the node's progress and the process's exit (`until`)
    testTimeout: 600_000,
    hookTimeout: 600_000,
    // two cores: each file may start its own node; keep them from starving each other
    maxWorkers: 2,
    fileParallelism: true,
  },
});
