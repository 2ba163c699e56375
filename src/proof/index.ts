/**
 * The proof library as one module: the build bundles it apart (dist/proof.cjs, with @noble/curves and
 * @scure/btc-signer), so the start-up of every other command does not parse ~300 KB it never runs.
 */
export * from "./account-message.js";
export * from "./address.js";
export * from "./curve.js";
export * from "./document.js";
export * from "./errors.js";
export * from "./evm-document.js";
export * from "./jcs.js";
export * from "./keccak.js";
export * from "./message.js";
