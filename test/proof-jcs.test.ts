import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { JsonNumber, parseLossless } from "../src/json/lossless.js";
import { canonicalize, digestOf } from "../src/proof/jcs.js";

// RFC 8785 (JSON Canonicalization Scheme). Vectors: Appendix B (number serialization, as IEEE-754 bit patterns
// and their expected text), section 3.2.2 (the full example), section 3.2.3 (property sorting); the extra
// documents are the RFC author's test data at github.com/cyberphone/json-canonicalization testdata/.

const fromBits = (hex: string): number => Buffer.from(hex, "hex").readDoubleBE(0);

describe("RFC 8785 numbers", () => {
  it("serializes the Appendix B samples from their bit patterns", () => {
    const table: [string, string][] = [
      ["0000000000000000", "0"],
      ["8000000000000000", "0"], // minus zero
      ["0000000000000001", "5e-324"],
      ["8000000000000001", "-5e-324"],
      ["7fefffffffffffff", "1.7976931348623157e+308"],
      ["ffefffffffffffff", "-1.7976931348623157e+308"],
      ["4340000000000000", "9007199254740992"],
      ["c340000000000000", "-9007199254740992"],
      ["4430000000000000", "295147905179352830000"],
      ["44b52d02c7e14af5", "9.999999999999997e+22"],
      ["44b52d02c7e14af6", "1e+23"],
      ["44b52d02c7e14af7", "1.0000000000000001e+23"],
      ["444b1ae4d6e2ef4e", "999999999999999700000"],
      ["444b1ae4d6e2ef4f", "999999999999999900000"],
      ["444b1ae4d6e2ef50", "1e+21"],
      ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
      ["3eb0c6f7a0b5ed8d", "0.000001"],
      ["41b3de4355555553", "333333333.3333332"],
      ["41b3de4355555554", "333333333.33333325"],
      ["41b3de4355555555", "333333333.3333333"],
      ["41b3de4355555556", "333333333.3333334"],
      ["41b3de4355555557", "333333333.33333343"],
      ["becbf647612f3696", "-0.0000033333333333333333"],
      ["43143ff3c1cb0959", "1424953923781206.2"], // round to even
    ];
    for (const [bits, text] of table) {
      expect(canonicalize(fromBits(bits)), bits).toBe(text);
      expect(canonicalize(new JsonNumber(text)), text).toBe(text);
    }
  });

  it("takes a lossless token as the double it parses to", () => {
    const cases: [string, string][] = [
      ["1e21", "1e+21"],
      ["1E30", "1e+30"],
      ["0.000001", "0.000001"],
      ["1e-7", "1e-7"],
      ["-0", "0"],
      ["-0.0", "0"],
      ["4.50", "4.5"],
      ["2e-3", "0.002"],
      ["0.000000000000000000000000001", "1e-27"],
      ["333333333.33333329", "333333333.3333333"],
      ["9007199254740993", "9007199254740992"],
      ["12345678901234567890", "12345678901234567000"],
      ["50.00000000", "50"],
    ];
    for (const [raw, text] of cases) expect(canonicalize(new JsonNumber(raw)), raw).toBe(text);
    expect(canonicalize(-0)).toBe("0");
    expect(canonicalize(1e21)).toBe("1e+21");
    expect(canonicalize(1e-7)).toBe("1e-7");
  });

  it("refuses numbers and values JSON cannot hold", () => {
    expect(() => canonicalize(Number.NaN)).toThrow(/\$: NaN is not a finite/);
    expect(() => canonicalize([1, Number.POSITIVE_INFINITY])).toThrow(/\$\[1\]: Infinity/);
    expect(() => canonicalize({ a: { b: Number.NEGATIVE_INFINITY } })).toThrow(/\$\.a\.b: -Infinity/);
    expect(() => canonicalize(new JsonNumber("1e400"))).toThrow(/1e400 is not a finite/);
    expect(() => canonicalize({ a: undefined })).toThrow(/\$\.a: undefined has no JSON form/);
    expect(() => canonicalize(10n)).toThrow(/bigint has no JSON form/);
    expect(() => canonicalize([() => 1])).toThrow(/function/);
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    expect(() => canonicalize([1, , 3])).toThrow(/\$\[1\]: undefined/);
    expect(() => canonicalize(new Date(0))).toThrow(/Date is not a plain JSON object/);
    expect(() => canonicalize(new Map())).toThrow(/Map is not a plain/);
    expect(() => canonicalize("a\ud800b")).toThrow(/lone UTF-16 surrogate/);
    expect(() => canonicalize({ "\udc00": 1 })).toThrow(/lone UTF-16 surrogate/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalize(cyclic)).toThrow(/\$\.self: cyclic/);
  });
});

describe("RFC 8785 structure", () => {
  it("reproduces the section 3.2.2 example byte for byte", () => {
    const input =
      '{\n  "numbers": [333333333.33333329, 1E30, 4.50,\n              2e-3, 0.000000000000000000000000001],\n' +
      '  "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",\n  "literals": [null, true, false]\n}';
    const expected =
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
      '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}';
    expect(canonicalize(parseLossless(input))).toBe(expected);
    // JSON.parse loses nothing that matters here, and must give the same bytes
    expect(canonicalize(JSON.parse(input))).toBe(expected);
    // the UTF-8 bytes as section 3.2.4 lists them
    const hex =
      "7b 22 6c 69 74 65 72 61 6c 73 22 3a 5b 6e 75 6c 6c 2c 74 72 75 65 2c 66 61 6c 73 65 5d 2c 22 6e " +
      "75 6d 62 65 72 73 22 3a 5b 33 33 33 33 33 33 33 33 33 2e 33 33 33 33 33 33 33 2c 31 65 2b 33 30 " +
      "2c 34 2e 35 2c 30 2e 30 30 32 2c 31 65 2d 32 37 5d 2c 22 73 74 72 69 6e 67 22 3a 22 e2 82 ac 24 " +
      "5c 75 30 30 30 66 5c 6e 41 27 42 5c 22 5c 5c 5c 5c 5c 22 2f 22 7d";
    expect(Buffer.from(canonicalize(parseLossless(input)), "utf8").toString("hex")).toBe(
      hex.replaceAll(" ", ""),
    );
  });

  it("sorts properties by UTF-16 code units (section 3.2.3)", () => {
    const input = {
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis",
    };
    const out = canonicalize(input);
    // positions in the text: an object would put the integer-like key "1" first whatever the text says
    const names = [
      "Carriage Return",
      "One",
      "Control",
      "Latin Small Letter O With Diaeresis",
      "Euro Sign",
      "Emoji: Grinning Face",
      "Hebrew Letter Dalet With Dagesh",
    ];
    const at = names.map((n) => out.indexOf(`"${n}"`));
    expect(at.every((p, i) => p > 0 && (i === 0 || p > (at[i - 1] as number)))).toBe(true);
    expect(out).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","ö":"Latin Small Letter O With Diaeresis",' +
        '"€":"Euro Sign","😀":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it("matches the author's test data (arrays, structures, weird keys, unnormalized Unicode)", () => {
    const cases: [string, string][] = [
      [
        '[\n  56,\n  {\n    "d": true,\n    "10": null,\n    "1": [ ]\n  }\n]',
        '[56,{"1":[],"10":null,"d":true}]',
      ],
      [
        '{"1": {"f": {"f": "hi","F": 5} ,"\\n": 56.0},"10": { },"": "empty","a": { },"111": [ {"e": "yes","E": "no" } ],"A": { }}',
        '{"":"empty","1":{"\\n":56,"f":{"F":5,"f":"hi"}},"10":{},"111":[{"E":"no","e":"yes"}],"A":{},"a":{}}',
      ],
      ['{"Unnormalized Unicode":"A\\u030a"}', '{"Unnormalized Unicode":"A\u030a"}'],
      ['{"peach":"1","péché":"2","pêche":"3","sin":"4"}', '{"peach":"1","péché":"2","pêche":"3","sin":"4"}'],
      [
        '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\u000a":"Newline","1":"One","\\u0080":"Control\\u007f",' +
          '"\\ud83d\\ude02":"Smiley","\\u00f6":"Latin Small Letter O With Diaeresis","\\ufb33":"Hebrew Letter Dalet With Dagesh","</script>":"Browser Challenge"}',
        '{"\\n":"Newline","\\r":"Carriage Return","1":"One","</script>":"Browser Challenge","\u0080":"Control\u007f",' +
          '"ö":"Latin Small Letter O With Diaeresis","€":"Euro Sign","😂":"Smiley","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
      ],
    ];
    for (const [input, expected] of cases) expect(canonicalize(parseLossless(input))).toBe(expected);
  });

  it("escapes every control character in lowercase hex and nothing else", () => {
    let all = "";
    for (let c = 0; c < 0x20; c++) all += String.fromCharCode(c);
    expect(canonicalize(all + "\u007f\u2028/")).toBe(
      '"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f' +
        '\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\u007f\u2028/"',
    );
  });
});

describe("digestOf", () => {
  it("hashes the canonical form without the top-level digest member", () => {
    const doc = { b: "2", a: [1, { d: null, c: true }], digest: "ignored" };
    const canonical = '{"a":[1,{"c":true,"d":null}],"b":"2"}';
    const expected = createHash("sha256").update(canonical, "utf8").digest("hex");
    expect(digestOf(doc)).toBe(expected);
    expect(digestOf({ ...doc, digest: "other" })).toBe(expected);
    // a nested digest is content, not the self-digest
    expect(digestOf({ ...doc, a: [1, { d: null, c: true, digest: "x" }] })).not.toBe(expected);
    // whitespace and member order in the source do not matter, numbers' spelling neither
    expect(
      digestOf(parseLossless('{ "digest":"z", "b" : "2", "a": [1.0, {"c":true, "d":null}] }') as object),
    ).toBe(expected);
    expect(digestOf({ ...doc, b: "2.0" })).not.toBe(expected);
  });
});
