/**
 * The parts of `ox` chaingw uses (ABI encoding and decoding, EIP-55 checksums), in one module that the build
 * bundles into a file of its own (dist/ox.cjs, scripts/build.mjs): ox is ~480 KB of bundle, and carried
 * inside dist/chaingw.cjs it cost every start-up ~7 ms even unused. Import it with `await import()` only (the
 * build turns that into a require of dist/ox.cjs).
 */
export * as AbiFunction from "ox/AbiFunction";
export * as Address from "ox/Address";
