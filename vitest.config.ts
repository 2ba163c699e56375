import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // dist/ older than src/ is rebuilt before any test (the tests run the built bundle)
    globalSetup: ["test/setup.global.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // two cores: each file may start its own node; keep them from starving each other
    maxWorkers: 2,
    fileParallelism: true,
  },
});
