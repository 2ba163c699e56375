/** A position in JSON text, with the steps the parser (parse.ts) and the span scanner (scan.ts) share. */
import { JsonSyntaxError } from "./value.js";

export const syntax = (what: string, pos: number, n: number): never => {
  throw new JsonSyntaxError(
    pos >= n ? "unexpected end of JSON (truncated body?)" : `${what} at position ${pos}`,
    pos,
  );
};

export const isDigit = (c: number) => c >= 48 && c <= 57;
export const isWs = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

export class Cursor {
  pos = 0;
  readonly n: number;
  constructor(
    readonly text: string,
    readonly maxDepth: number,
  ) {
    this.n = text.length;
  }
  fail(what: string): never {
    return syntax(what, this.pos, this.n);
  }
  ws(): void {
    const { text, n } = this;
    let pos = this.pos;
    while (pos < n) {
      const c = text.charCodeAt(pos);
      if (isWs(c)) pos++;
      else break;
    }
    this.pos = pos;
  }
  /** Just past `{` or `[`: the nesting check, and true (consumed) when it closes at once. */
  open(depth: number, close: number): boolean {
    if (depth >= this.maxDepth)
      throw new JsonSyntaxError(`JSON nested deeper than ${this.maxDepth} levels`, this.pos);
    this.pos++;
    this.ws();
    if (this.text.charCodeAt(this.pos) !== close) return false;
    this.pos++;
    return true;
  }
  /** An object key's opening quote, after whitespace. */
  key(): void {
    this.ws();
    if (this.text.charCodeAt(this.pos) !== 34) this.fail("object key expected");
  }
  /** The ':' after a key, and the whitespace around it. */
  colon(): void {
    this.ws();
    if (this.text.charCodeAt(this.pos) !== 58) this.fail("':' expected");
    this.pos++;
    this.ws();
  }
  /** After an element: true at ',' (another follows), false at `close`; both consumed. */
  more(close: number): boolean {
    this.ws();
    const d = this.text.charCodeAt(this.pos);
    if (d === 44) {
      this.pos++;
      return true;
    }
    if (d === close) {
      this.pos++;
      return false;
    }
    return this.fail(close === 125 ? "',' or '}' expected" : "',' or ']' expected");
  }
}
