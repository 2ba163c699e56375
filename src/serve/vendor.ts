/**
 * The gateway's two libraries, prom-client and ioredis (~530 KB with their dependencies): the build bundles
 * them apart (dist/serve-vendor.cjs), required when `chaingw serve` starts, so no other command's start-up
 * parses them. Only plain library code lives here: no chaingw class crosses the bundle boundary.
 */

export { Redis } from "ioredis";
export * as prom from "prom-client";
