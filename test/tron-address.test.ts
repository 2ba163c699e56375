/**
 * A TRON address read by chaingw (src/chains/tron.ts: @scure/base's base58check over @noble/hashes' SHA-256,
 * which replaced a hand-written loop, issue 60) gives what @scure/base's base58check over node:crypto's
 * SHA-256 gives — the same 20 bytes, or the same refusal in the same words — for addresses as TronWeb makes
 * them and for every one-character change, cut, extension and wrong version.
 */
import { createHash } from "node:crypto";
import { bytesToHex } from "@noble/hashes/utils.js";
import { createBase58check } from "@scure/base";
import fc from "fast-check";
import { TronWeb } from "tronweb";
import { describe, expect, it } from "vitest";
import { tronToHex20 } from "../src/chains/tron.js";

const check = createBase58check((d: Uint8Array) => new Uint8Array(createHash("sha256").update(d).digest()));
const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** @scure/base's reading over node:crypto's SHA-256, and tronToHex20's words when it refuses */
function reference(addr: string): string {
  let raw: Uint8Array;
  try {
    raw = check.decode(addr);
  } catch (e) {
    const why = /checksum/i.test((e as Error).message) ? "bad checksum" : (e as Error).message;
    return `throws ${JSON.stringify(addr)} is not a valid TRON address (${why})`;
  }
  if (raw.length !== 21 || raw[0] !== 0x41)
    return `throws ${JSON.stringify(addr)} is not a TRON address (expected version byte 0x41 and 20 bytes)`;
  return `0x${bytesToHex(raw.subarray(1))}`;
}

function ours(addr: string): string {
  try {
    return tronToHex20(addr);
  } catch (e) {
    return `throws ${(e as Error).message}`;
  }
}

describe("TRON addresses: chaingw's reading against @scure/base's base58check over node:crypto", () => {
  it("TronWeb's addresses, and each changed, cut, lengthened or of another version byte", () => {
    const body = fc.uint8Array({ minLength: 20, maxLength: 20 });
    fc.assert(
      fc.property(
        body,
        fc.integer({ min: 0, max: 33 }),
        fc.constantFrom(...B58, "0", "O", "I", "l", "é"),
        fc.integer({ min: 0, max: 255 }),
        (b, at, c, version) => {
          const addr = TronWeb.address.fromHex(`41${bytesToHex(b)}`) as string;
          expect(ours(addr)).toBe(`0x${bytesToHex(b)}`);
          const variants = [
            addr,
            `${addr.slice(0, at)}${c}${addr.slice(at + 1)}`,
            addr.slice(0, at),
            `${addr}${c}`,
            `1${addr}`,
            check.encode(Uint8Array.from([version, ...b])),
            check.encode(Uint8Array.from([0x41, ...b, version])),
          ];
          for (const v of variants) expect(ours(v)).toBe(reference(v));
        },
      ),
      { numRuns: 300 },
    );
  });
});
