import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // two cores: each file may start its own node; keep them from starving each other
    maxWorkers: 2,
    fileParallelism: true,
  },
});
