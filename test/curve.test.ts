import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { judgeRow } from "../src/exchange/ownership/judge.js";
import { readOwnershipFile } from "../src/exchange/ownership/read.js";
import { compressedKey, curveBackend, recoverKey, verifyDer } from "../src/proof/curve.js";
import { runCli } from "./helpers/cli.js";
import { trackDir } from "./helpers/procs.js";

// libsecp256k1 (the prebuilt native module, src/proof/curve.ts) against @noble/curves, the reference: the same
// answer for every input, valid or forged. Each case runs through both and compares.

const N = secp256k1.Point.CURVE().n;
const P = secp256k1.Point.CURVE().p;
const word = (x: bigint) => hexToBytes(x.toString(16).padStart(64, "0"));
const hex = (b: Uint8Array | undefined) => (b ? bytesToHex(b) : "none");

/** what `f` answers through libsecp256k1, then through @noble/curves */
function both<T>(f: () => T): [T, T] {
  curveBackend("native");
  const a = f();
  curveBackend("noble");
  const b = f();
  curveBackend("native");
  return [a, b];
}

afterEach(() => {
  curveBackend("native");
});

describe("secp256k1 at native speed, the same answers as @noble/curves", () => {
  it("runs natively on this machine (linux x64), from the built dist/", () => {
    expect(curveBackend()).toBe("native");
  });

  it("recovers the same key, or none, for signatures valid and forged", () => {
    const sig = fc.record({
      key: fc.uint8Array({ minLength: 32, maxLength: 32 }),
      digest: fc.uint8Array({ minLength: 32, maxLength: 32 }),
      // 0: as signed; 1: high S; 2: random r and s; 3: recovery ids 2 and 3 (r below p - n); 4: edges
      tamper: fc.integer({ min: 0, max: 4 }),
      rnd: fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
      recovery: fc.integer({ min: 0, max: 3 }),
      compressed: fc.boolean(),
    });
    const edges = [0n, 1n, N - 1n, N, N + 1n, P - N - 1n, P - N, 2n ** 256n - 1n];
    fc.assert(
      fc.property(sig, ({ key, digest, tamper, rnd, recovery, compressed }) => {
        const priv = sha256(key);
        const s0 = secp256k1.sign(digest, priv, { prehash: false, format: "recovered" });
        let r = BigInt(`0x${bytesToHex(s0.subarray(1, 33))}`);
        let s = BigInt(`0x${bytesToHex(s0.subarray(33))}`);
        let rec = s0[0] as number;
        if (tamper === 1) [s, rec] = [N - s, rec ^ 1];
        if (tamper === 2) [r, s, rec] = [rnd % 2n ** 256n, (rnd * 7n) % 2n ** 256n, recovery];
        if (tamper === 3) [r, rec] = [(rnd % (P - N - 1n)) + 1n, 2 + (recovery & 1)];
        if (tamper === 4)
          [r, s, rec] = [edges[recovery] as bigint, edges[(recovery + 3) % 8] as bigint, recovery];
        const compact = new Uint8Array([...word(r), ...word(s)]);
        const [a, b] = both(() => hex(recoverKey(compact, rec, digest, compressed)));
        expect(a).toBe(b);
        if (tamper === 0) expect(a).toBe(bytesToHex(secp256k1.getPublicKey(priv, compressed)));
      }),
      { numRuns: 400 },
    );
  });

  it("compresses the same keys and refuses the same bytes (hybrid keys, x past p, off the curve)", () => {
    const pub = secp256k1.getPublicKey(sha256(utf8ToBytes("k")), false);
    const hybrid = Uint8Array.from(pub);
    hybrid[0] = 6 + ((pub[64] as number) & 1);
    const offCurve = Uint8Array.from(pub);
    offCurve[64] = (offCurve[64] as number) ^ 1;
    const pastP = new Uint8Array([2, ...word(P + 1n)]);
    const cases = [
      pub,
      secp256k1.getPublicKey(sha256(utf8ToBytes("k")), true),
      hybrid,
      offCurve,
      pastP,
      new Uint8Array([2, ...word(P - 1n)]),
      new Uint8Array(33),
      new Uint8Array(64),
      pub.subarray(1),
    ];
    for (const c of cases) {
      const [a, b] = both(() => hex(compressedKey(c)));
      expect(a, bytesToHex(c)).toBe(b);
    }
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 33, maxLength: 33 }), (bytes) => {
        bytes[0] = 2 + ((bytes[0] as number) & 1);
        const [a, b] = both(() => hex(compressedKey(bytes)));
        expect(a).toBe(b);
      }),
      { numRuns: 200 },
    );
  });

  it("checks DER signatures alike: low S only, the right key and digest, malformed text refused", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.integer({ min: 0, max: 4 }),
        fc.nat(),
        (key, digest, tamper, at) => {
          const priv = sha256(key);
          const sig = secp256k1.Signature.fromBytes(
            secp256k1.sign(digest, priv, { prehash: false, format: "compact" }),
            "compact",
          );
          let der = (tamper === 1 ? new secp256k1.Signature(sig.r, N - sig.s) : sig).toBytes("der");
          let pub = secp256k1.getPublicKey(priv, at % 2 === 0);
          let d = digest;
          if (tamper === 2) pub = secp256k1.getPublicKey(sha256(priv), true);
          if (tamper === 3) d = sha256(digest);
          if (tamper === 4) {
            der = Uint8Array.from(der);
            der[at % der.length] = ((der[at % der.length] as number) + 1) & 0xff;
          }
          const [a, b] = both(() => verifyDer(der, d, pub));
          expect(a).toBe(b);
          if (tamper === 0) expect(a).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("judges every row of the exchanges' address files the same, row for row", () => {
    const dir = join(__dirname, "fixtures", "exchange", "ownership");
    const files = readdirSync(dir).filter((f) => f.endsWith(".csv"));
    expect(files.length).toBeGreaterThan(5);
    let rows = 0;
    for (const f of files) {
      const file = readOwnershipFile(readFileSync(join(dir, f), "utf8"));
      for (const row of file.rows) {
        if (row.signatures.length === 0) continue;
        const [a, b] = both(() => judgeRow(row, file.layout));
        expect(a, `${f} line ${row.line}`).toEqual(b);
        rows++;
      }
    }
    expect(rows).toBeGreaterThan(200);
  });
});

describe("a large address file, judged on every core", () => {
  it("3,200 rows (OKX's audit file 400 times: EVM, TRON, BTC 2-of-3, DOGE, ed25519, EOS): each row judged as in the 8-row file", async () => {
    const src = readFileSync(join(__dirname, "fixtures/exchange/ownership/okx_OKC_DTT_AUP2025.csv"), "utf8");
    const [header, ...rest] = src.trimEnd().split("\n");
    const dir = mkdtempSync(join(tmpdir(), "chaingw-curve-"));
    trackDir(dir);
    const big = join(dir, "big.csv");
    writeFileSync(big, `${header}\n${Array.from({ length: 400 }, () => rest.join("\n")).join("\n")}\n`);
    const small = await runCli([
      "reserves",
      "verify",
      join(__dirname, "fixtures/exchange/ownership/okx_OKC_DTT_AUP2025.csv"),
      "--json",
    ]);
    const large = await runCli(["reserves", "verify", big, "--json"]);
    expect(large.stderr).toBe("");
    expect(large.exitCode).toBe(small.exitCode);
    const one = JSON.parse(small.stdout).rows as { status: string; reason: string; form?: string }[];
    const all = JSON.parse(large.stdout).rows as typeof one;
    expect(all).toHaveLength(400 * one.length);
    const seen = all.map((r, i) => {
      const o = one[i % one.length] as (typeof one)[number];
      return r.status === o.status && r.reason === o.reason && r.form === o.form;
    });
    expect(seen.every(Boolean)).toBe(true);
  });
});
