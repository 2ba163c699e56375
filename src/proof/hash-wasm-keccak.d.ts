// hash-wasm's keccak alone (its dist/keccak.umd.min.js, 11 KB), not the package's index, which bundles every
// algorithm's WebAssembly (~270 KB); the types are the index's.
declare module "hash-wasm/dist/keccak.umd.min.js" {
  export { createKeccak } from "hash-wasm";
}
