/**
 * The parts of `ox` chaingw uses (ABI encoding and decoding, EIP-55 checksums), in one module that the build
 * bundles into a file of its own (dist/ox.cjs, ~105 KB, scripts/build.mjs), like the proof library: only
 * balance reads need it, and every other start-up should not parse it. Import it with `await import()` only (the
 * build turns that into a require of dist/ox.cjs).
 */
export * as AbiFunction from "ox/AbiFunction";
export * as Address from "ox/Address";
