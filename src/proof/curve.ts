/**
 * secp256k1's ECDSA operations every signed-message reader uses (public-key recovery, DER signature checks,
 * a key's compressed form), at native speed where the package ships libsecp256k1 for this platform, else in
 * @noble/curves, the reference: both give the same answer for every input (test/curve.test.ts).
 *
 * The native code is the N-API build of libsecp256k1 that the `secp256k1` npm package ships prebuilt
 * (linux x64 glibc and musl, macOS arm64, Windows x64), copied into dist/ by the build: chosen by measurement
 * (docs/benchmarks.md, issue 60) — 1.4× libsecp256k1's own C loop per recovery, where libsecp256k1 compiled
 * to WebAssembly (tiny-secp256k1 2.2) took 7× and @noble/curves 45×. It is loaded on the first signature,
 * never at start-up; a platform without it, or a file that does not load, falls back to @noble/curves.
 * Schnorr (BIP-340) checks stay in @noble/curves: the prebuilt module has none, and the files read here
 * hold few.
 */

import { join } from "node:path";
import { secp256k1 } from "@noble/curves/secp256k1.js";

/** The prebuilt module's one class: each method answers 0 when it succeeded, else the step that failed. */
interface Native {
  ecdsaRecover(output: Uint8Array, sig64: Uint8Array, recovery: number, digest: Uint8Array): number;
  ecdsaVerify(sig64: Uint8Array, digest: Uint8Array, pub: Uint8Array): number;
  publicKeyConvert(output: Uint8Array, pub: Uint8Array): number;
}

/** The prebuilt files the build copies into dist/, for this platform, in the order they are tried. */
export function nativeFiles(platform = process.platform, arch = process.arch): string[] {
  const id = `${platform}-${arch}`;
  if (id === "linux-x64") return ["secp256k1-linux-x64-glibc.node", "secp256k1-linux-x64-musl.node"];
  if (id === "darwin-arm64" || id === "win32-x64") return [`secp256k1-${id}.node`];
  return [];
}

let native: Native | null | undefined;
let forced: "native" | "noble" | undefined;

function load(): Native | null {
  // dist/ beside the bundle; from the sources (tests), the built dist/
  const dirs = [__dirname, join(__dirname, "..", "..", "dist")];
  for (const file of nativeFiles())
    for (const dir of dirs) {
      try {
        const mod = { exports: {} as { Secp256k1?: new () => Native } };
        process.dlopen(mod, join(dir, file));
        if (mod.exports.Secp256k1) return new mod.exports.Secp256k1();
      } catch {
        // not this file (another libc, or not there): the next, else @noble/curves
      }
    }
  return null;
}

/** The native module, loaded on first use; null where there is none (or @noble/curves is chosen). */
function nativeModule(): Native | null {
  if (forced === "noble") return null;
  native ??= load();
  return native;
}

/**
 * Which implementation answers: "native" (libsecp256k1) or "noble". Given a name, chooses it (tests compare
 * the two row by row; "native" where there is none stays "noble").
 */
export function curveBackend(choose?: "native" | "noble"): "native" | "noble" {
  if (choose) forced = choose;
  return nativeModule() ? "native" : "noble";
}

/**
 * A key's bytes in the two forms @noble/curves reads (02/03 ‖ x, 04 ‖ x ‖ y): libsecp256k1 also reads the
 * "hybrid" 06/07 form, which must stay no key here as it is in the reference.
 */
const plainKey = (pub: Uint8Array): boolean =>
  (pub.length === 33 && (pub[0] === 2 || pub[0] === 3)) || (pub.length === 65 && pub[0] === 4);

const buf = (b: Uint8Array): Buffer => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/**
 * The public key whose signature `compact` (r ‖ s, 64 bytes) with recovery id `recovery` (0-3) is over
 * `digest`, compressed (33 bytes) or not (65); undefined when none is: r or s out of range or zero, r + n
 * past the field for ids 2 and 3, or no point with that x.
 */
export function recoverKey(
  compact: Uint8Array,
  recovery: number,
  digest: Uint8Array,
  compressed: boolean,
): Uint8Array | undefined {
  const n = nativeModule();
  if (n && compact.length === 64 && digest.length === 32 && recovery >= 0 && recovery <= 3) {
    const out = Buffer.alloc(compressed ? 33 : 65);
    return n.ecdsaRecover(out, compact, recovery, digest) === 0
      ? new Uint8Array(out.buffer, out.byteOffset, out.length)
      : undefined;
  }
  try {
    const s = secp256k1.Signature.fromBytes(compact, "compact").addRecoveryBit(recovery);
    return s.recoverPublicKey(digest).toBytes(compressed);
  } catch {
    return undefined;
  }
}

/**
 * Whether the DER signature `der` (no sighash byte) by `pub` is over `digest`, with low S (as BIP-322 and
 * Bitcoin's standard rules require). The DER text is read by @noble/curves' strict reader either way.
 */
export function verifyDer(der: Uint8Array, digest: Uint8Array, pub: Uint8Array): boolean {
  const n = nativeModule();
  if (!n) {
    try {
      return secp256k1.verify(der, digest, pub, { prehash: false, lowS: true, format: "der" });
    } catch {
      return false;
    }
  }
  let sig: ReturnType<typeof secp256k1.Signature.fromBytes>;
  try {
    sig = secp256k1.Signature.fromBytes(der, "der");
  } catch {
    return false;
  }
  // libsecp256k1 refuses a high S itself; a key that does not parse is no key
  if (sig.hasHighS() || digest.length !== 32 || !plainKey(pub)) return false;
  return n.ecdsaVerify(sig.toBytes("compact"), digest, buf(pub)) === 0;
}

/** A public key as its 33-byte compressed form, or undefined when the bytes are not a point of the curve. */
export function compressedKey(pub: Uint8Array): Uint8Array | undefined {
  const n = nativeModule();
  if (n && plainKey(pub)) {
    const out = Buffer.alloc(33);
    return n.publicKeyConvert(out, buf(pub)) === 0
      ? new Uint8Array(out.buffer, out.byteOffset, 33)
      : undefined;
  }
  try {
    return secp256k1.Point.fromBytes(pub).toBytes(true);
  } catch {
    return undefined;
  }
}
