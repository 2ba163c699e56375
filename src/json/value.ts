/**
 * JSON values that never lose a number token: {@link JsonNumber} holds a number's exact source text
 * (node amounts come as `50.00000000`, EVM-compat counters pass 2^53), and the one syntax error of the
 * parser and the scanner.
 */

export class JsonNumber {
  constructor(readonly raw: string) {}
  valueOf(): number {
    return Number(this.raw);
  }
  toString(): string {
    return this.raw;
  }
  toJSON(): number {
    return Number(this.raw);
  }
}

export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
  }
}

/** A member name repeated in its object (the parser's `duplicates: "reject"`): where, and which. */
export class JsonDuplicateMember extends JsonSyntaxError {
  constructor(
    /** the JSON path of the second occurrence: `a.b[2].c` */
    readonly path: string,
    readonly key: string,
    position: number,
  ) {
    super(`member ${JSON.stringify(key)} repeated at ${path} (position ${position})`, position);
  }
}
