import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  JsonDuplicateMember,
  parseLossless,
  scanObject,
  scanObjectArray,
  stringifyLossless,
} from "../src/json/lossless.js";
import { classify } from "../src/rpc/classify.js";

// The lossless reader and the batch span scanner against the native JSON parser, on generated input.

const member = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 6 });

/** characters that break JSON in interesting ways, for one-character edits */
const noise = fc.constantFrom(...'{}[],:"\\ 0-1.eE+tfnulx\t\n\u0001');
/** one edit of a text: drop the character at `at`, replace it with `ch`, or insert `ch` before it */
const bend = (text: string, at: number, ch: string, how: number): string => {
  const i = at % text.length;
  if (how === 0) return text.slice(0, i) + text.slice(i + 1);
  if (how === 1) return text.slice(0, i) + ch + text.slice(i + 1);
  return text.slice(0, i) + ch + text.slice(i);
};

describe("scanObjectArray", () => {
  it("finds every member's exact source span, whatever the spacing", () => {
    fc.assert(
      fc.property(fc.array(member, { maxLength: 6 }), fc.nat(2), (arr, indent) => {
        const text = JSON.stringify(arr, null, indent);
        const spans = scanObjectArray(text);
        expect(spans).toHaveLength(arr.length);
        spans!.forEach((el, i) => {
          // keys are the source text between the quotes (escapes kept)
          const key = (k: string) => JSON.parse(`"${k}"`) as string;
          expect(Object.keys(el).map(key).sort()).toEqual(Object.keys(arr[i]).sort());
          for (const [k, [s, e]] of Object.entries(el))
            expect(JSON.parse(text.slice(s, e))).toEqual(JSON.parse(JSON.stringify(arr[i][key(k)])));
        });
      }),
      { numRuns: 500 },
    );
  });

  it("refuses a body the native parser refuses (one character dropped, changed or added)", () => {
    fc.assert(
      fc.property(
        fc.array(member, { minLength: 1, maxLength: 4 }),
        fc.nat(),
        noise,
        fc.nat(2),
        (arr, at, ch, how) => {
          const bent = bend(JSON.stringify(arr), at, ch, how);
          let native: unknown;
          try {
            native = JSON.parse(bent);
          } catch {
            native = undefined;
          }
          let ours: ReturnType<typeof scanObjectArray> | "threw";
          try {
            ours = scanObjectArray(bent);
          } catch {
            ours = "threw";
          }
          const arrayOfObjects =
            Array.isArray(native) &&
            native.every((x) => x !== null && typeof x === "object" && !Array.isArray(x));
          // not JSON: never an array of spans (a throw, or undefined for "not an array of objects")
          if (native === undefined) expect(Array.isArray(ours)).toBe(false);
          else if (arrayOfObjects) expect(ours).toHaveLength((native as unknown[]).length);
          // valid JSON of another shape: not an array of objects, whatever the answer
          else expect(ours === "threw" || ours === undefined).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("bounds nesting", () => {
    const deep = `[{"a":${"[".repeat(300)}${"]".repeat(300)}}]`;
    expect(() => scanObjectArray(deep)).toThrow(/nested deeper/);
    expect(scanObjectArray(deep, 400)).toHaveLength(1);
  });
});

describe("parseLossless", () => {
  it("refuses exactly what the native parser refuses", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.nat(), noise, fc.nat(2), (v, at, ch, how) => {
        const bent = bend(JSON.stringify(v), at, ch, how);
        const ok = (f: () => unknown) => {
          try {
            f();
            return true;
          } catch {
            return false;
          }
        };
        expect(ok(() => parseLossless(bent))).toBe(ok(() => JSON.parse(bent)));
      }),
      { numRuns: 3000 },
    );
  });

  it("keeps number tokens as written and agrees with JSON.parse on everything else", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (v) => {
        const text = JSON.stringify(v);
        expect(stringifyLossless(parseLossless(text))).toBe(text);
        expect(JSON.parse(JSON.stringify(parseLossless(text)))).toEqual(JSON.parse(text));
      }),
      { numRuns: 500 },
    );
    expect(stringifyLossless(parseLossless('{"amount":50.00000000,"big":123456789012345678901}'))).toBe(
      '{"amount":50.00000000,"big":123456789012345678901}',
    );
  });
});

describe("scanObject and the answer's fast reading", () => {
  it("finds a top-level object's members as scanObjectArray does; refuses what the native parser refuses", () => {
    fc.assert(
      fc.property(member, fc.nat(), noise, fc.nat(2), (obj, at, ch, how) => {
        const text = JSON.stringify(obj);
        const spans = scanObject(text);
        if (spans) expect(shift(spans, 1)).toEqual(scanObjectArray(`[${text}]`)?.[0]);
        const bent = bend(text, at, ch, how);
        let native: unknown;
        try {
          native = JSON.parse(bent);
        } catch {
          native = "threw";
        }
        let ours: unknown;
        try {
          ours = scanObject(bent);
        } catch {
          ours = "threw";
        }
        // never a span set for text the native parser refuses
        if (native === "threw") expect(ours === "threw" || ours === undefined).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it("an answer read fast says what the full reading says: result bytes, id, error, escapes in names", () => {
    const ep = { url: "http://n/", label: "n", kind: "node" } as never;
    const http = (text: string, status = 200) => ({
      status,
      headers: { "content-type": "application/json" },
      text,
    });
    const ok = classify(http('{"result":{"a":1.10,"b":[1e3]},"error":null,"id":7}\n'), 7, ep);
    expect(ok).toMatchObject({ kind: "ok", value: { raw: '{"a":1.10,"b":[1e3]}' } });
    expect(stringifyLossless((ok as { value: { result: unknown } }).value.result)).toBe(
      '{"a":1.10,"b":[1e3]}',
    );
    // a string id that looks like ours, an error beside a result, a name spelled with an escape
    expect(classify(http('{"result":1,"id":"7"}'), 7, ep)).toMatchObject({ kind: "maybe" });
    expect(classify(http('{"result":null,"error":{"code":-5,"message":"no"},"id":7}'), 7, ep)).toMatchObject({
      kind: "final",
    });
    expect(classify(http('{"res\\u0075lt":2,"id":7}'), 7, ep)).toMatchObject({
      kind: "ok",
      value: { raw: "2" },
    });
    expect(classify(http('{"result":1,"id":7,}'), 7, ep)).toMatchObject({ kind: "maybe" });
  });
});

/** spans as found in a text `by` characters further on */
function shift(spans: Record<string, [number, number]>, by: number) {
  return Object.fromEntries(Object.entries(spans).map(([k, [s, e]]) => [k, [s + by, e + by]]));
}

describe("parseLossless duplicates: reject", () => {
  it("names the path of the second occurrence; the default keeps the last, as JSON.parse", () => {
    const cases: [string, string, string][] = [
      ['{"a":1,"a":2}', "a", "a"],
      ['{"x":[{"k":1},{"k":1,"k":2}]}', "x[1].k", "k"],
      ['[{"k":1,"k":2}]', "[0].k", "k"],
      ['{"o":{"p":{"q":true,"r":null,"q":false}}}', "o.p.q", "q"],
    ];
    for (const [text, path, key] of cases) {
      let err: unknown;
      try {
        parseLossless(text, { duplicates: "reject" });
      } catch (e) {
        err = e;
      }
      expect(err, text).toBeInstanceOf(JsonDuplicateMember);
      expect((err as JsonDuplicateMember).path, text).toBe(path);
      expect((err as JsonDuplicateMember).key, text).toBe(key);
      expect(stringifyLossless(parseLossless(text)), text).toBe(JSON.stringify(JSON.parse(text)));
    }
    // the same name in sibling objects is not a repeat
    expect(() => parseLossless('[{"k":1},{"k":2}]', { duplicates: "reject" })).not.toThrow();
  });
});

describe("a node's answer in its compact shape (classify's head-and-tail path)", () => {
  const ep = { url: "http://n/", label: "n", kind: "node", headers: {} } as never;
  const http = (text: string) => ({ status: 200, headers: { "content-type": "application/json" }, text });
  const shapes = [
    (r: string) => `{"result":${r},"error":null,"id":7}\n`,
    (r: string) => `{"jsonrpc":"2.0","id":7,"result":${r}}`,
  ];

  it("passes the result's exact text, and refuses what the native parser refuses (one character edited)", () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 4 }),
        fc.nat(1),
        fc.nat(),
        noise,
        fc.nat(3),
        (v, shape, at, ch, how) => {
          const result = JSON.stringify(v) ?? "null";
          const whole = shapes[shape]!(result);
          const intact = classify(http(whole), 7, ep);
          expect(intact.kind).toBe("ok");
          expect((intact as { value: { raw: string } }).value.raw).toBe(result);
          // how 3: left as it is; else one character dropped, changed or added
          const bent = how === 3 ? whole : bend(whole, at, ch, how);
          let native: Record<string, unknown> | undefined;
          try {
            native = JSON.parse(bent);
          } catch {}
          const ok =
            native !== null &&
            typeof native === "object" &&
            !Array.isArray(native) &&
            native.id === 7 &&
            (native.error === undefined || native.error === null) &&
            "result" in native;
          const out = classify(http(bent), 7, ep);
          expect(out.kind === "ok").toBe(ok);
          if (ok && out.kind === "ok")
            expect(JSON.parse((out.value as { raw: string }).raw)).toEqual(native!.result);
        },
      ),
      { numRuns: 4000 },
    );
  });

  it("a result that is not one value is not sliced out of the head and tail", () => {
    for (const text of [
      '{"result":1,"error":{"code":-1},"error":null,"id":7}',
      '{"result":1,"x":2,"error":null,"id":7}',
      '{"result":"a"  ,"error":null,"id":7}',
      '{"jsonrpc":"2.0","id":7,"result":1,"error":null}',
    ]) {
      const out = classify(http(text), 7, ep);
      // whatever the member scan says of it, never the text between head and tail
      if (out.kind === "ok") expect((out.value as { raw: string }).raw).not.toMatch(/,/);
    }
  });
});
