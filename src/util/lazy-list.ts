/**
 * A list whose elements are made as it is read, one at a time, and never held together: each pass (a
 * `for … of`) makes them again from what the list was built over. What a long report's rows are when they can
 * be remade from a few numbers a row (`solvency` of an exchange's address file: each counted row's line, its
 * amount and whether proven), so no form it is written in — text, JSON, the page, a CSV — holds every row.
 * JSON.stringify of one gives the array's text (`toJSON`), the same bytes; writers that write it in pieces
 * (util/json-pieces.ts) never hold it whole.
 */
import { LAZY_LIST } from "./escape.js";

export class LazyList<T> implements Iterable<T> {
  /** escapeDeep maps a lazy list's elements as they are made (util/escape.ts) */
  readonly [LAZY_LIST] = true;

  constructor(
    readonly length: number,
    private readonly make: () => Iterator<T>,
  ) {}

  [Symbol.iterator](): Iterator<T> {
    return this.make();
  }

  /** Each element through `f`, as it is read. */
  map<U>(f: (x: T) => U): LazyList<U> {
    const self = this;
    return new LazyList(this.length, function* () {
      for (const x of self) yield f(x);
    });
  }

  /** The first `n` elements, as an array. */
  take(n: number): T[] {
    const out: T[] = [];
    if (n <= 0) return out;
    for (const x of this) {
      out.push(x);
      if (out.length >= n) break;
    }
    return out;
  }

  /** The elements of `parts`, one list after another. */
  static concat<T>(parts: readonly ListOf<T>[]): LazyList<T> {
    return new LazyList(
      parts.reduce((n, p) => n + p.length, 0),
      function* () {
        for (const p of parts) yield* p;
      },
    );
  }

  toJSON(): T[] {
    return [...this];
  }
}

/** A list as it is read: an array, or a `LazyList`. */
export type ListOf<T> = readonly T[] | LazyList<T>;

/** The first `n` elements of a list, as an array. */
export const takeOf = <T>(l: ListOf<T>, n: number): T[] =>
  l instanceof LazyList ? l.take(n) : l.slice(0, n);
