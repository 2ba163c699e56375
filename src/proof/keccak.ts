/**
 * keccak-256 (Ethereum's, the pre-standard padding 0x01, not SHA3-256's 0x06) for the rows of an exchange's
 * address file: every EVM and TRON row's recovered key is hashed once to its account, 50,000 times in a large
 * file. Two field libraries, one answer (test/keccak.test.ts holds them to each other and to published
 * digests): hash-wasm's keccak (WebAssembly, one hasher reused, no object per key) once `keccakReady()` has
 * compiled it — the row judges await it before a file's rows —, else @noble/hashes' keccak_256. Chosen by
 * measurement (docs/benchmarks.md): over 50,000 keys hash-wasm takes about a quarter of @noble/hashes' CPU
 * (the digest and its hex included); the `keccak` package's native binding, with a stream object per hash,
 * took as long as @noble/hashes.
 */

import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { IHasher } from "hash-wasm";
import { createKeccak } from "hash-wasm/dist/keccak.umd.min.js";

let wasm: IHasher | undefined;
let compiling: Promise<void> | undefined;

/**
 * Compiles hash-wasm's keccak once (lazily: never at start-up); from then on `keccak256` and
 * `accountHexOfKey` use it. A failure leaves @noble/hashes answering — the same digests.
 */
export function keccakReady(): Promise<void> {
  compiling ??= createKeccak(256).then(
    (h) => {
      wasm = h;
    },
    () => undefined,
  );
  return compiling;
}

/** Which library answers now: "wasm" once `keccakReady()` has compiled it, else "noble". */
export const keccakBackend = (): "wasm" | "noble" => (wasm ? "wasm" : "noble");

export function keccak256(data: Uint8Array): Uint8Array {
  if (!wasm) return keccak_256(data);
  wasm.init();
  wasm.update(data);
  return wasm.digest("binary");
}

/**
 * The account of an uncompressed public key (04 ‖ X ‖ Y, 65 bytes): the last 20 bytes of keccak256(X ‖ Y),
 * as 40 lowercase hex digits, no 0x.
 */
export function accountHexOfKey(pub: Uint8Array): string {
  const xy = pub.subarray(1, 65);
  if (!wasm) return bytesToHex(keccak_256(xy).subarray(12));
  wasm.init();
  wasm.update(xy);
  return wasm.digest("hex").slice(24);
}
