import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { accountHexOfKey, keccak256, keccakBackend, keccakReady } from "../src/proof/keccak.js";

// keccak-256 as src/proof/keccak.ts gives it (the accounts of an address file's recovered keys): @noble/hashes'
// keccak_256 until keccakReady(), then hash-wasm's — both against published values, hash-wasm's against
// @noble/hashes', the reference.

describe("keccak-256 before hash-wasm is compiled: @noble/hashes'", () => {
  it("answers with @noble/hashes (the published digest of 'abc', private key 1's account)", () => {
    expect(keccakBackend()).toBe("noble");
    expect(bytesToHex(keccak256(utf8ToBytes("abc")))).toBe(
      "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45",
    );
    const one = secp256k1.getPublicKey(hexToBytes(`${"0".repeat(63)}1`), false);
    expect(accountHexOfKey(one)).toBe("7e5f4552091a69125d5dfcb7b8c2659029395bdf");
  });
});

describe("keccak-256 by hash-wasm, the same digest as @noble/hashes", () => {
  it("hashes the published values (the empty string, 'abc')", async () => {
    await keccakReady();
    expect(keccakBackend()).toBe("wasm");
    expect(bytesToHex(keccak256(new Uint8Array(0)))).toBe(
      "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
    );
    expect(bytesToHex(keccak256(utf8ToBytes("abc")))).toBe(
      "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45",
    );
  });

  it("gives @noble/hashes' digest for every length across the block edges (0-700 bytes)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 700 }), (data) => {
        expect(bytesToHex(keccak256(data))).toBe(bytesToHex(keccak_256(data)));
      }),
      { numRuns: 2000 },
    );
    for (const n of [135, 136, 137, 271, 272, 273])
      expect(bytesToHex(keccak256(new Uint8Array(n).fill(n)))).toBe(
        bytesToHex(keccak_256(new Uint8Array(n).fill(n))),
      );
  });

  it("gives a key's Ethereum account: private key 1's is 0x7e5f…5bdf, any key's @noble/hashes'", () => {
    const one = secp256k1.getPublicKey(hexToBytes(`${"0".repeat(63)}1`), false);
    expect(accountHexOfKey(one)).toBe("7e5f4552091a69125d5dfcb7b8c2659029395bdf");
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 65, maxLength: 65 }), (pub) => {
        expect(accountHexOfKey(pub)).toBe(bytesToHex(keccak_256(pub.subarray(1)).subarray(12)));
      }),
      { numRuns: 1000 },
    );
  });
});
