/**
 * TRON address conversions for tests: 20-byte `0x` hex <-> base58check `T...`.
 *
 * Written from scratch on purpose (node:crypto only, base58 by hand) so that tests compare the
 * product's converter against an independent implementation rather than against itself.
 *
 * A TRON address is 21 bytes: the version byte 0x41 followed by the 20 bytes an EVM address has.
 * Base58check appends the first 4 bytes of sha256(sha256(21 bytes)) and encodes the 25 bytes in
 * the Bitcoin alphabet.
 */
import { createHash } from "node:crypto";

/** The Bitcoin base58 alphabet (no 0, O, I, l). */
const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** TRON's address version byte; every base58 TRON address therefore starts with `T`. */
export const TRON_ADDRESS_PREFIX = 0x41;

function sha256(data: Uint8Array): Buffer {
  return createHash("sha256").update(data).digest();
}

function checksum(payload: Uint8Array): Buffer {
  return sha256(sha256(payload)).subarray(0, 4);
}

function base58Encode(bytes: Uint8Array): string {
  // Leading zero bytes map one-to-one onto leading "1"s; the rest is a big-endian number.
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  let value = 0n;
  for (const b of bytes) value = (value << 8n) | BigInt(b);
  let out = "";
  while (value > 0n) {
    out = ALPHABET[Number(value % 58n)] + out;
    value /= 58n;
  }
  return "1".repeat(zeros) + out;
}

function base58Decode(text: string): Uint8Array {
  let zeros = 0;
  while (zeros < text.length && text[zeros] === "1") zeros++;
  let value = 0n;
  for (const ch of text) {
    const digit = ALPHABET.indexOf(ch);
    if (digit < 0) throw new Error(`invalid base58 character ${JSON.stringify(ch)}`);
    value = value * 58n + BigInt(digit);
  }
  const body: number[] = [];
  while (value > 0n) {
    body.unshift(Number(value & 0xffn));
    value >>= 8n;
  }
  return Uint8Array.from([...new Array<number>(zeros).fill(0), ...body]);
}

function hexToBytes(hex: string): Uint8Array {
  const clean = hex.startsWith("0x") || hex.startsWith("0X") ? hex.slice(2) : hex;
  if (clean.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(clean)) {
    throw new Error(`not a hex string: ${JSON.stringify(hex)}`);
  }
  return Uint8Array.from(Buffer.from(clean, "hex"));
}

/**
 * `0x` + 40 hex digits (or the 21-byte `41...` form) -> `T...` base58check.
 * @throws on anything that is not 20 bytes, or 21 bytes starting with 0x41.
 */
export function tronHexToBase58(hex20: string): string {
  let bytes = hexToBytes(hex20);
  if (bytes.length === 21) {
    if (bytes[0] !== TRON_ADDRESS_PREFIX) throw new Error(`21-byte address must start with 41: ${hex20}`);
    bytes = bytes.subarray(1);
  }
  if (bytes.length !== 20) throw new Error(`address must be 20 bytes, got ${bytes.length}: ${hex20}`);
  const payload = Uint8Array.from([TRON_ADDRESS_PREFIX, ...bytes]);
  return base58Encode(Uint8Array.from([...payload, ...checksum(payload)]));
}

/**
 * `T...` base58check -> `0x` + 40 lowercase hex digits (the 0x41 version byte is dropped, as the
 * node's JSON-RPC output does).
 * @throws on a bad character, wrong length, wrong version byte or wrong checksum.
 */
export function tronBase58ToHex(addr: string): string {
  const raw = base58Decode(addr);
  if (raw.length !== 25) throw new Error(`base58 address must decode to 25 bytes, got ${raw.length}`);
  const payload = raw.subarray(0, 21);
  const expected = checksum(payload);
  if (!Buffer.from(raw.subarray(21)).equals(expected)) throw new Error(`bad checksum in ${addr}`);
  if (payload[0] !== TRON_ADDRESS_PREFIX) {
    throw new Error(`version byte must be 0x41, got 0x${payload[0].toString(16).padStart(2, "0")}`);
  }
  return `0x${Buffer.from(payload.subarray(1)).toString("hex")}`;
}
