/**
 * CSV cells, once for every CSV chaingw writes (the --csv and --format csv renderers, `methods`, the
 * liabilities build's customers.csv): RFC 4180 quoting, and no cell a spreadsheet runs as a formula.
 */

/** A number as a spreadsheet reads one: such a cell is data even when it starts with + or -. */
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Text a spreadsheet would run as a formula made inert, as OWASP advises for CSV injection: a cell starting
 * with `=`, `+`, `-`, `@`, a tab or a CR that is not a number gets a `'` before it (`=HYPERLINK(…)` as a
 * token's symbol is shown, never run). A cell that already starts with `'` gets one more, so one leading `'`
 * taken off ({@link fromFormulaSafe}) always gives the text back.
 */
export function formulaSafe(s: string): string {
  const c = s[0];
  if (c === "'") return `'${s}`;
  if ((c === "=" || c === "+" || c === "-" || c === "@" || c === "\t" || c === "\r") && !NUMBER.test(s))
    return `'${s}`;
  return s;
}

/** A cell {@link formulaSafe} wrote, back to its text. */
export const fromFormulaSafe = (s: string): string => (s[0] === "'" ? s.slice(1) : s);

/**
 * One CSV field: text made {@link formulaSafe}, then quoted when it holds a quote, a comma, a CR or an LF
 * (its quotes doubled); null and undefined are empty, numbers and booleans as they are.
 */
export const csvField = (v: string | number | boolean | null | undefined): string => {
  if (v === null || v === undefined) return "";
  if (typeof v !== "string") return String(v);
  const s = formulaSafe(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

type Cell = string | number | boolean | null | undefined;

/** One CSV line (no line end): every cell through {@link csvField}. A streamed table writes its rows so. */
export const csvRow = (row: readonly Cell[]): string => row.map(csvField).join(",");

/** A whole CSV text: the head, then each row, every cell through {@link csvField}; lines end in LF. */
export const csvTable = (head: string[], rows: Cell[][]): string => [head, ...rows].map(csvRow).join("\n");
