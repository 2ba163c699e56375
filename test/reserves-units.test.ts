import { createHash } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bech32, bech32m, createBase58check } from "@scure/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { base58CheckDecode, bech32Decode } from "../src/chains/codec.js";
import { reportHuman } from "../src/cli/render/reserves.js";
import { JsonNumber } from "../src/json/lossless.js";
import { plainColumns } from "../src/output/human.js";
import { readAddressList } from "../src/reserves/address-list.js";
import { checkAddress, mixedFamilies } from "../src/reserves/utxo/address.js";
import { formatCoins, toSats } from "../src/reserves/utxo/amount.js";
import { parseIndexRange as parseRange } from "../src/reserves/utxo/input.js";

/** The entries of an address list file as readAddressList gives them, with their line numbers. */
function listLines(text: string): { line: number; text: string }[] {
  const f = join(tmpdir(), `chaingw-list-${process.pid}-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(f, text);
  const out: { line: number; text: string }[] = [];
  try {
    readAddressList([], f, (t, line, source) => {
      expect(source).toBe(f);
      out.push({ line, text: t });
    });
  } finally {
    rmSync(f);
  }
  return out;
}

// Pure pieces of the reserves workflow: address codecs, exact amounts, input lines.

const why = (a: string) => {
  const r = checkAddress(a);
  return r.ok ? "ok" : r.why;
};

describe("address checks (chain-agnostic)", () => {
  const prog = (n: number) => new Uint8Array(n).fill(7);
  const enc = (codec: typeof bech32, hrp: string, v: number, n: number) =>
    codec.encode(hrp, [v, ...codec.toWords(prog(n))]);

  it("accepts bech32 v0 and bech32m v1+ of any prefix, base58check of any version", () => {
    expect(why(enc(bech32, "bc", 0, 20))).toBe("ok");
    expect(why(enc(bech32, "tb", 0, 32))).toBe("ok");
    expect(why(enc(bech32m, "bc", 1, 32))).toBe("ok");
    expect(why(enc(bech32m, "xyz", 16, 40))).toBe("ok");
    expect(why("rltc1qsghmgrx24vzgnagac6vrhu0nu59cf2tetszw3c")).toBe("ok");
    expect(why("1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2")).toBe("ok");
    expect(why("mjqUUMCfYA7ukf2EbYpAnjwFkL92igrtQx")).toBe("ok");
    const upper = enc(bech32, "bc", 0, 20).toUpperCase();
    const v = checkAddress(upper);
    expect(v.ok && v.value).toMatchObject({ address: upper.toLowerCase(), prefix: "hrp:bc" });
  });

  it("refuses bad checksums and broken witness rules with a reason", () => {
    expect(why("rltc1qsghmgrx24vzgnagac6vrhu0nu59cf2tetszw3d")).toMatch(/checksum/);
    expect(why("1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3")).toMatch(/base58check checksum/);
    expect(why(enc(bech32m, "bc", 0, 20))).toMatch(/v0 address must use bech32/);
    expect(why(enc(bech32, "bc", 1, 32))).toMatch(/must use bech32m/);
    expect(why(enc(bech32, "bc", 0, 25))).toMatch(/20 or 32/);
    expect(why(enc(bech32m, "bc", 1, 41))).toMatch(/2 to 40/);
    expect(why(enc(bech32m, "bc", 17, 20))).toMatch(/witness version/);
    const mixed = enc(bech32, "bc", 0, 20);
    expect(why(mixed.slice(0, 10) + mixed.slice(10).toUpperCase())).not.toBe("ok");
    expect(why("hello world")).toMatch(/spaces/);
    expect(why("0xdeadbeef")).not.toBe("ok");
  });

  it("knows when prefixes cannot share one network", () => {
    expect(mixedFamilies(["hrp:rltc", "base58:111", "base58:58"])).toBeUndefined();
    expect(mixedFamilies(["hrp:bc", "base58:0", "base58:5"])).toBeUndefined();
    expect(mixedFamilies(["hrp:bc", "hrp:rltc"])).toMatch(/different networks/);
    expect(mixedFamilies(["base58:0", "base58:111"])).toMatch(/different networks/);
    expect(mixedFamilies(["hrp:ltc", "base58:0"])).toMatch(/different networks/);
    // unknown prefixes are the node's to judge
    expect(mixedFamilies(["hrp:xyz", "base58:77"])).toBeUndefined();
  });
});

// the fast codecs of src/reserves/codec.ts must give @scure/base's verdict on every input
describe("address codecs agree with @scure/base", () => {
  const sha256 = (b: Uint8Array) => new Uint8Array(createHash("sha256").update(b).digest());
  const b58c = createBase58check(sha256);
  const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
  const B32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
  // one edit of a valid text: substitute a character, drop one, swap two neighbours
  const mutate = (s: string, pos: number, ch: string, how: number) => {
    const i = pos % s.length;
    if (how === 0) return s.slice(0, i) + ch + s.slice(i + 1);
    if (how === 1) return s.slice(0, i) + s.slice(i + 1);
    return i + 1 < s.length ? s.slice(0, i) + s[i + 1] + s[i] + s.slice(i + 2) : s;
  };
  const scureB58 = (s: string) => {
    try {
      return Buffer.from(b58c.decode(s)).toString("hex");
    } catch {
      return undefined;
    }
  };
  const oursB58 = (s: string) => {
    const r = base58CheckDecode(s);
    return r.ok ? Buffer.from(r.payload).toString("hex") : undefined;
  };
  // variant, prefix, word count, first word, and the strict byte length of the words after the first
  const scureB32 = (s: string) => {
    const a = bech32.decodeUnsafe(s, 90);
    const b = a ? undefined : bech32m.decodeUnsafe(s, 90);
    const d = a ?? b;
    const rest = d && bech32.fromWordsUnsafe(d.words.slice(1));
    return (
      d && `${a ? "bech32" : "bech32m"}:${d.prefix}:${d.words.length}:${d.words[0] ?? -1}:${rest?.length}`
    );
  };
  const oursB32 = (s: string) => {
    const d = bech32Decode(s, 90);
    return d && `${d.variant}:${d.hrp}:${d.words}:${d.first}:${d.restBytes}`;
  };
  const runs = { numRuns: 3000 };

  it("base58check: same payload for valid texts, same refusal for edited ones", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 40 }),
        fc.nat(),
        fc.constantFrom(...B58, "0", "O", "l", "I", " "),
        fc.nat(2),
        (payload, pos, ch, how) => {
          const text = b58c.encode(payload);
          expect(oursB58(text)).toBe(Buffer.from(payload).toString("hex"));
          const edited = mutate(text, pos, ch, how);
          expect(oursB58(edited)).toBe(scureB58(edited));
        },
      ),
      runs,
    );
  });

  it("bech32 and bech32m: same words and variant for valid texts, same refusal for edited ones", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("bc", "tb", "bcrt", "ltc", "rltc", "x", "a!b~c"),
        fc.boolean(),
        fc.uint8Array({ minLength: 0, maxLength: 40 }),
        fc.nat(),
        fc.constantFrom(...B32, "1", "b", "i", "o", "Q", "~"),
        fc.nat(2),
        (hrp, m, bytes, pos, ch, how) => {
          const codec = m ? bech32m : bech32;
          // a witness version word, then the program's bytes as words
          const words = [bytes.length % 17, ...codec.toWords(bytes)];
          const text = codec.encode(hrp, words, 90);
          expect(oursB32(text)).toBe(
            `${m ? "bech32m" : "bech32"}:${hrp}:${words.length}:${words[0]}:${bytes.length}`,
          );
          const edited = mutate(text, pos, ch, how);
          expect(oursB32(edited)).toBe(scureB32(edited));
        },
      ),
      runs,
    );
  });

  it("strict padding: at most 4 zero bits, as BIP173's convertbits", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(bech32, bech32m),
        fc.array(fc.nat(31), { minLength: 1, maxLength: 60 }),
        (codec, words) => {
          const d = bech32Decode(codec.encode("bc", words, 200), 200);
          expect(d?.restBytes).toBe(bech32.fromWordsUnsafe(words.slice(1))?.length);
        },
      ),
      runs,
    );
  });
});

describe("exact amounts", () => {
  it("reads decimal text into base units without floats", () => {
    expect(toSats(new JsonNumber("50.00000000"), "a")).toBe(5_000_000_000n);
    expect(toSats(new JsonNumber("0.00000001"), "a")).toBe(1n);
    expect(toSats(new JsonNumber("1e-05"), "a")).toBe(1000n);
    expect(toSats(new JsonNumber("21000000"), "a")).toBe(2_100_000_000_000_000n);
    expect(() => toSats(new JsonNumber("0.000000001"), "a")).toThrow(/more than 8 decimals/);
    expect(() => toSats(new JsonNumber("-1"), "a")).toThrow();
    expect(formatCoins(505_000_000_000n)).toBe("5050.00000000");
    expect(formatCoins(1n)).toBe("0.00000001");
  });

  it("round-trips every amount and sums exactly where floats drift", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2_100_000_000_000_000n }), (s) => {
        expect(toSats(new JsonNumber(formatCoins(s)), "a")).toBe(s);
      }),
    );
    const parts = Array.from({ length: 1000 }, () => "0.10000001");
    const exact = parts.reduce((a, p) => a + toSats(p, "a"), 0n);
    expect(formatCoins(exact)).toBe("100.00001000");
    expect(parts.reduce((a, p) => a + Number(p), 0)).not.toBe(100.00001);
  });
});

describe("input lines and ranges", () => {
  it("ignores blank lines and comments, keeps line numbers", () => {
    expect(listLines("# head\n\n a1 \nb2 # note\n#c\n")).toEqual([
      { line: 3, text: "a1" },
      { line: 4, text: "b2" },
    ]);
  });

  it("reads lists saved on Windows: CRLF line ends (comments too), a byte-order mark, no-break spaces", () => {
    expect(listLines("\uFEFF# cold wallets\r\na1 # first\r\n\r\n\u00a0b2\u00a0\r\nc3\r\n")).toEqual([
      { line: 2, text: "a1" },
      { line: 4, text: "b2" },
      { line: 5, text: "c3" },
    ]);
  });

  it("prints a report of 150,000 unspents as plain columns (no stack overflow in the layout)", () => {
    const unspents = Array.from({ length: 150_000 }, (_, i) => ({
      txid: i.toString(16).padStart(64, "0"),
      vout: i % 3,
      address: `rltc1q${i}`,
      desc: `addr(rltc1q${i})`,
      amount: "0.00010000",
      sats: 10_000n,
      height: 1 + (i % 500),
    }));
    const totalSats = 10_000n * 150_000n;
    const text = reportHuman(
      {
        endpoint: "http://127.0.0.1:1/",
        startedAt: new Date(0),
        durationMs: 1,
        addressesAsked: 150_000,
        descriptorsAsked: 0,
        duplicatesRemoved: 0,
        chunks: 1,
        addressesWithFunds: 150_000,
        scan: {
          height: 500,
          bestblock: "ab".repeat(32),
          txouts: 150_000,
          unspents,
          totalSats,
          nodeTotal: "15.00000000",
        },
      },
      { color: false },
    );
    const lines = text.split("\n");
    expect(lines[0]).toMatch(/^txid:vout\s+address or descriptor\s+amount\s+height$/);
    expect(lines[2]).toMatch(/^0{64}:0 {2}rltc1q0 +0\.00010000 {2}1$/);
    expect(lines[150_001]).toMatch(/^0{59}249ef:2 {2}rltc1q149999 +0\.00010000 {2}500$/);
    expect(text).toContain("15.00000000 coins = 1500000000 base units");
  });

  it("plain columns fit a terminal's width: the widest cut first, cells continued below; a pipe keeps one line a row", () => {
    const rows = Array.from({ length: 3 }, (_, i) => [
      `${String(i).repeat(64)}:${i}`,
      `rltc1q${"x".repeat(56)}${i}`,
      "50.00000000",
      String(100 + i),
    ]);
    const head = ["txid:vout", "address or descriptor", "amount", "height"];
    for (const width of [80, 100, 60]) {
      const text = plainColumns(head, rows, width);
      for (const l of text.split("\n")) expect(l.length, `${width}: ${l}`).toBeLessThanOrEqual(width);
      // every txid and address still whole when its pieces are read down the column
      const lines = text.split("\n");
      const sep = lines.findIndex((l) => /^-+( {2}-+)+$/.test(l));
      const col = lines[sep]?.split("  ")[0]?.length as number;
      const firstCol = lines
        .slice(sep + 1)
        .map((l) => l.slice(0, col).trim())
        .join("");
      expect(firstCol).toBe(rows.map((r) => r[0]).join(""));
    }
    const piped = plainColumns(head, rows, undefined).split("\n");
    expect(piped).toHaveLength(5);
    expect(piped[2]).toBe(`${"0".repeat(64)}:0  rltc1q${"x".repeat(56)}0  50.00000000  100`);
  });

  it("parses ranges like the node counts them", () => {
    expect(parseRange("1000")).toEqual([0, 1000]);
    expect(parseRange("5-10")).toEqual([5, 10]);
    expect(parseRange("5:10")).toEqual([5, 10]);
    expect(() => parseRange("10-5")).toThrow(/after the end/);
    expect(() => parseRange("0-1000000")).toThrow(/at most/);
  });
});
