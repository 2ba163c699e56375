/**
 * TRON addresses: base58check `T...` (version byte 0x41 + 20 bytes + 4 checksum bytes) and the 20-byte
 * hex form java-tron's JSON-RPC accepts and returns. node:crypto and @scure/base are loaded on first use
 * only, so commands that never meet a T-address do not pay for them at start-up.
 */
import type { BytesCoder } from "@scure/base";

const TRON_VERSION = 0x41;
let coder: BytesCoder | undefined;

/**
 * The base58check coder: @scure/base's, its checksum by node:crypto's one-shot `hash` (no Hash object per
 * call). It replaced a hand-written decoder (its own base58 loop, a `createHash` per checksum) by
 * measurement, on the 30,000 TRON addresses of an exchange's file, in one process (issue 60): the loop
 * 276-326 ms of CPU; @scure/base with @noble/hashes' SHA-256 132-194 ms (and 24 kB more in the fast path's
 * bundle); with node:crypto's `createHash` 166-226 ms; with its `hash` 114-118 ms. The same bytes and the
 * same refusals (test/tron-address.test.ts).
 */
function base58check(): BytesCoder {
  if (!coder) {
    // loaded on first use: the bundle keeps these modules but runs them only when a T-address shows up
    const { hash } = require("node:crypto") as typeof import("node:crypto");
    const { createBase58check } = require("@scure/base") as typeof import("@scure/base");
    coder = createBase58check((data: Uint8Array) => hash("sha256", data, "buffer"));
  }
  return coder;
}

export const looksLikeTronBase58 = (s: string): boolean => /^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(s);

/** `T...` → `0x` + 40 lowercase hex digits. Throws an Error saying what is wrong (checksum, version). */
export function tronToHex20(addr: string): string {
  let raw: Uint8Array;
  try {
    raw = base58check().decode(addr);
  } catch (e) {
    const why = /checksum/i.test((e as Error).message) ? "bad checksum" : (e as Error).message;
    throw new Error(`${JSON.stringify(addr)} is not a valid TRON address (${why})`);
  }
  if (raw.length !== 21 || raw[0] !== TRON_VERSION)
    throw new Error(
      `${JSON.stringify(addr)} is not a TRON address (expected version byte 0x41 and 20 bytes)`,
    );
  return `0x${Buffer.from(raw.subarray(1)).toString("hex")}`;
}

/** `0x` + 40 hex (as the node returns addresses) → `T...`. */
export function hex20ToTron(hex: string): string {
  const body = Buffer.from(hex.replace(/^0x/i, ""), "hex");
  if (body.length !== 20) throw new Error(`not a 20-byte address: ${hex}`);
  return base58check().encode(Uint8Array.from([TRON_VERSION, ...body]));
}
