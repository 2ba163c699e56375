/**
 * The parts of ox chaingw uses. Bundled apart into dist/ox.cjs (scripts/build.mjs) and required when an
 * ABI-aware command first needs it, so the bundle every call loads does not carry the codec.
 */
export * as AbiError from "ox/AbiError";
export * as AbiEvent from "ox/AbiEvent";
export * as AbiFunction from "ox/AbiFunction";
export * as AbiParameters from "ox/AbiParameters";
