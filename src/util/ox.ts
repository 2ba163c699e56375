/**
 * The parts of `ox` chaingw uses (ABI encoding and decoding of functions, events and errors, EIP-55
 * checksums): the one wrapper, bundled into a file of its own (dist/ox.cjs, scripts/build.mjs) like the
 * proof library, and required when an ABI-aware command or a balance read first needs it, so the bundle
 * every call loads does not carry the codec. Import it with `await import()` (or from a module that is
 * itself imported that way, as src/evm/abi.ts is).
 */
export * as AbiError from "ox/AbiError";
export * as AbiEvent from "ox/AbiEvent";
export * as AbiFunction from "ox/AbiFunction";
export * as AbiParameters from "ox/AbiParameters";
export * as Address from "ox/Address";
