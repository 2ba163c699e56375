/**
 * TRON addresses: base58check `T...` (version byte 0x41 + 20 bytes + 4 checksum bytes) and the 20-byte
 * hex form java-tron's JSON-RPC accepts and returns. node:crypto and @scure/base are loaded on first use
 * only, so commands that never meet a T-address do not pay for them at start-up.
 */
import type { BytesCoder } from "@scure/base";

const TRON_VERSION = 0x41;
let coder: BytesCoder | undefined;

function base58check(): BytesCoder {
  if (!coder) {
    // loaded on first use: the bundle keeps these modules but runs them only when a T-address shows up
    const { createHash } = require("node:crypto") as typeof import("node:crypto");
    const { createBase58check } = require("@scure/base") as typeof import("@scure/base");
    coder = createBase58check(
      (data: Uint8Array) => new Uint8Array(createHash("sha256").update(data).digest()),
    );
  }
  return coder;
}

export const looksLikeTronBase58 = (s: string): boolean => /^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(s);

const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const B58_DIGIT = new Int8Array(128).fill(-1);
for (const [i, c] of [...B58].entries()) B58_DIGIT[c.charCodeAt(0)] = i;

/**
 * A well-formed TRON address's 20 bytes, in hex, or undefined (then `base58check` reads it and says what is
 * wrong): its 34 characters as one 25-byte number, version 0x41 and its checksum (a row of an exchange's
 * file decoded through the general coder took ~13 µs).
 */
function fastHex20(addr: string): string | undefined {
  if (addr.length !== 34) return undefined;
  const b = new Uint8Array(25);
  for (let i = 0; i < 34; i++) {
    const c = addr.charCodeAt(i);
    let carry = c < 128 ? (B58_DIGIT[c] as number) : -1;
    if (carry < 0) return undefined;
    for (let j = 24; j >= 0; j--) {
      carry += (b[j] as number) * 58;
      b[j] = carry & 0xff;
      carry >>= 8;
    }
    if (carry) return undefined;
  }
  if (b[0] !== TRON_VERSION) return undefined;
  const { createHash } = require("node:crypto") as typeof import("node:crypto");
  const once = createHash("sha256").update(b.subarray(0, 21)).digest();
  const sum = createHash("sha256").update(once).digest();
  for (let k = 0; k < 4; k++) if (sum[k] !== b[21 + k]) return undefined;
  return Buffer.from(b.subarray(1, 21)).toString("hex");
}

/** `T...` → `0x` + 40 lowercase hex digits. Throws an Error saying what is wrong (checksum, version). */
export function tronToHex20(addr: string): string {
  const fast = fastHex20(addr);
  if (fast !== undefined) return `0x${fast}`;
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
