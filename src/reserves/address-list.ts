/** An address list as both kinds of reserves read it: arguments and a file of lines, with where each came from. */
import { readFileSync } from "node:fs";
import { UsageError } from "../errors/index.js";

/**
 * The one reader of an address list, for UTXO scans and EVM balances alike: the arguments, then the lines
 * of `file` (a path, or "-" for stdin) with blank lines and `#` comments (whole-line or trailing) skipped.
 * `take` gets each entry with where it came from: its argument's number, or its line and the file's name.
 */
export function readAddressList(
  args: readonly string[],
  file: string | undefined,
  take: (text: string, at: number, source: string | undefined) => void,
): void {
  for (const [i, t] of args.entries()) take(t.trim(), i + 1, undefined);
  if (file === undefined) return;
  const name = file === "-" ? "stdin" : file;
  let text: string;
  try {
    text = file === "-" ? readFileSync(0, "utf8") : readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(`--file: cannot read ${name}: ${(e as NodeJS.ErrnoException).code ?? e}`);
  }
  eachListLine(text, (t, line) => take(t, line, name));
}

/** The loop behind readAddressList, without an object per line (lists run to tens of thousands of lines). */
function eachListLine(text: string, f: (text: string, line: number) => void): void {
  let line = 0;
  for (let i = 0; i <= text.length; ) {
    let end = text.indexOf("\n", i);
    if (end < 0) end = text.length;
    line++;
    // a CRLF file's "\r" goes first: "." in the comment pattern stops at it
    let raw = text.slice(i, end > i && text.charCodeAt(end - 1) === 13 ? end - 1 : end);
    i = end + 1;
    // fast path: a plain address line; otherwise strip a comment ("#" at the start or after a blank)
    if (raw.includes("#")) raw = raw.replace(/(^|\s)#.*$/, "");
    // printable ASCII at both ends needs no trim; anything else (blanks, a BOM, a no-break space) does
    const c0 = raw.charCodeAt(0);
    const cn = raw.charCodeAt(raw.length - 1);
    const t = c0 > 32 && c0 < 127 && cn > 32 && cn < 127 ? raw : raw.trim();
    if (t) f(t, line);
    if (end === text.length) break;
  }
}
