/**
 * A report holding lists made as they are read (util/lazy-list.ts: solvency's rows of an exchange's address
 * file) is written in pieces (util/json-pieces.ts) whose concatenation is JSON.stringify's text of the same
 * report with those lists as arrays, compact and indented, byte for byte — at any depth, across the blocks a
 * long list is written in, empty, with members JSON leaves out, and with text that needs escaping.
 */
import { describe, expect, it } from "vitest";
import { escapeDeep } from "../src/util/escape.js";
import { lazyJsonPieces } from "../src/util/json-pieces.js";
import { LazyList } from "../src/util/lazy-list.js";

const lazy = <T>(xs: T[]) =>
  new LazyList(xs.length, function* () {
    yield* xs;
  });

const row = (i: number) => ({
  line: i + 2,
  coin: i % 3 ? "ETH" : "USDT",
  address: `0x${i.toString(16).padStart(40, "0")}`,
  amount: `${i}.5`,
  proven: i % 2 === 0,
  why: i % 7 ? "claimed" : 'a "quoted"\nline \u202e and \\ more',
  skip: undefined,
  finding: { code: "row-claimed", nested: [1, { a: null }] },
});

function report(n: number, asLazy: boolean) {
  const rows = Array.from({ length: n }, (_, i) => row(i));
  const list = asLazy ? lazy(rows) : rows;
  return {
    verdict: "unproven",
    gone: undefined,
    assets: [
      { asset: "ETH", rows: list, not_counted: [], empty: asLazy ? lazy([]) : [] },
      { asset: "USDT", rows: asLazy ? lazy(rows.slice(0, 3)) : rows.slice(0, 3), f: () => 1 },
    ],
    top: asLazy ? lazy([1, "two", null]) : [1, "two", null],
  };
}

describe("a report with lazy lists, written in pieces", () => {
  for (const n of [0, 1, 999, 1000, 1001, 2500])
    for (const indent of [0, 2] as const)
      it(`${n} rows, indent ${indent}: the same bytes as JSON.stringify of the arrays`, () => {
        const pieces = lazyJsonPieces(report(n, true), indent);
        expect(pieces).toBeDefined();
        const text = [...(pieces as Iterable<string>)].join("");
        expect(text).toBe(JSON.stringify(report(n, false), null, indent));
        // JSON.stringify of the lazy report itself gives the same text too (LazyList.toJSON)
        expect(JSON.stringify(report(n, true), null, indent)).toBe(text);
      });

  it("a value holding no lazy list is left to JSON.stringify (undefined)", () => {
    expect(lazyJsonPieces(report(3, false), 0)).toBeUndefined();
  });

  it("escapeDeep escapes a lazy list's elements as they are made", () => {
    const shown = escapeDeep(report(8, true));
    expect(JSON.stringify(shown)).toBe(JSON.stringify(escapeDeep(report(8, false))));
    expect(JSON.stringify(shown)).not.toContain("\u202e");
  });
});
