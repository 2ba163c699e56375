/**
 * Human rendering of results: strings raw, objects as aligned key/value lines, lists of objects as
 * tables. Number tokens print as the node sent them (50.00000000 stays so).
 */
import { JsonNumber, type JsonValue } from "../json/lossless.js";

// chalk and cli-table3 are required on first use: bundled, but evaluated only when colour or a table is
// actually printed (chalk's import alone costs ~2 ms of every start-up)

export interface Style {
  key(s: string): string;
  dim(s: string): string;
  bad(s: string): string;
  good(s: string): string;
}

const plain: Style = { key: (s) => s, dim: (s) => s, bad: (s) => s, good: (s) => s };

export function style(color: boolean): Style {
  if (!color) return plain;
  const { Chalk } = require("chalk") as typeof import("chalk");
  const c = new Chalk({ level: 1 });
  return { key: c.cyan, dim: c.dim, bad: c.red, good: c.green };
}

export const isScalar = (v: JsonValue): boolean =>
  v === null || typeof v !== "object" || v instanceof JsonNumber;

export function scalarText(v: JsonValue): string {
  if (v === null) return "null";
  if (v instanceof JsonNumber) return v.raw;
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** Compact JSON keeping number tokens. */
function compact(v: JsonValue): string {
  if (isScalar(v)) return typeof v === "string" ? JSON.stringify(v) : scalarText(v);
  if (Array.isArray(v)) return `[${v.map(compact).join(",")}]`;
  return `{${Object.entries(v as Record<string, JsonValue>)
    .map(([k, e]) => `${JSON.stringify(k)}:${compact(e)}`)
    .join(",")}}`;
}

/** The terminal's columns (stdout a TTY, else $COLUMNS); undefined: no limit (a pipe keeps whole lines to grep). */
export function terminalWidth(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const c = process.stdout.isTTY ? process.stdout.columns : Number(env.COLUMNS);
  return Number.isFinite(c) && c >= 40 ? c : undefined;
}

const ANSI = /\u001b\[[0-9;]*m/g;
const cellWidth = (t: string) =>
  Math.max(
    ...t
      .replace(ANSI, "")
      .split("\n")
      .map((l) => l.length),
  );

/**
 * Column widths (padding included) that fit `budget`: the widest columns are cut first, down to one cap
 * that every column under it keeps whole (a txid column is cut before a vout column).
 */
function fitColumns(natural: number[], budget: number): number[] {
  const sum = (cap: number) => natural.reduce((t, w) => t + Math.min(w, cap), 0);
  let cap = Math.max(...natural);
  while (cap > 6 && sum(cap) > budget) cap--;
  return natural.map((w) => Math.min(w, cap));
}

/**
 * Plain aligned columns (no box: a few µs a row, for reports of thousands of rows), one line per row; on a
 * terminal narrower than the rows (`width`), the widest columns are cut as the boxed table cuts them and their
 * cells continue on the next lines, within the column. Without a width (a pipe) every row stays one line for grep.
 */
export function plainColumns(head: string[], rows: string[][], width = terminalWidth()): string {
  const widths = columnWidths(head);
  for (const r of rows) widenColumns(widths, r);
  const lay = plainLayout(widths, width);
  return [lay.head(head), ...rows.map(lay.row)].join("\n");
}

/** The widths of a table's columns so far: its head's, before any row (`widenColumns`). */
export const columnWidths = (head: readonly string[]): number[] => head.map((h) => h.length);

/** `widths` widened to a row's cells (by loop: Math.max(...rows) overflows the stack past ~120,000 rows). */
export function widenColumns(widths: number[], r: readonly string[]): void {
  for (let i = 0; i < widths.length; i++) widths[i] = Math.max(widths[i] as number, (r[i] ?? "").length);
}

/**
 * The lines of plain aligned columns as wide as `widths` (every row's, `widenColumns`), or cut to the
 * terminal's `width`: the head and its rule, then each row — what `plainColumns` joins, given a row at a time
 * (a report whose rows were spooled as they were judged, never all at once).
 */
export function plainLayout(
  widths: readonly number[],
  width = terminalWidth(),
): { head(head: string[]): string; row(r: string[]): string } {
  const gaps = 2 * (widths.length - 1);
  const total = widths.reduce((a, b) => a + b, 0) + gaps;
  const cols = width !== undefined && total > width ? fitColumns([...widths], width - gaps) : widths;
  const line = (r: string[]) =>
    r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(cols[i] as number))).join("  ");
  const wrapped = (r: string[]): string => {
    if (r.every((c, i) => c.length <= (cols[i] as number))) return line(r);
    const pieces = r.map((c, i) => c.match(new RegExp(`.{1,${cols[i]}}`, "g")) ?? [""]);
    const n = Math.max(...pieces.map((p) => p.length));
    const out: string[] = [];
    for (let k = 0; k < n; k++) out.push(line(pieces.map((p) => p[k] ?? "")).trimEnd());
    return out.join("\n");
  };
  return {
    head: (head) => `${wrapped(head)}\n${cols.map((n) => "-".repeat(n)).join("  ")}`,
    row: wrapped,
  };
}

/**
 * cli-table3 lays out ~40 µs per cell (option merging, width and truncation per cell) and checks each new
 * cell against every earlier one for row spans: 5,000 rows of an address file cost 8.7 s of its layout, 10,000
 * rows 4× that. Beyond this many rows every table is plain aligned columns (same content, one line per row,
 * easier to grep).
 */
export const BOXED_ROWS_MAX = 100;

/**
 * A boxed table, as wide as its cells or, on a narrower terminal, wrapped within it; beyond BOXED_ROWS_MAX
 * rows, plain columns.
 */
export function table(head: string[], rows: string[][], color: boolean, width = terminalWidth()): string {
  if (rows.length > BOXED_ROWS_MAX) return plainColumns(head, rows, width);
  const Table = require("cli-table3") as typeof import("cli-table3");
  const natural = head.map((h, i) => Math.max(cellWidth(h), ...rows.map((r) => cellWidth(r[i] ?? ""))) + 2);
  const borders = head.length + 1;
  const fit = width !== undefined && natural.reduce((a, b) => a + b, 0) + borders > width;
  const t = new Table({
    head,
    style: { head: color ? ["cyan"] : [], border: color ? ["grey"] : [] },
    ...(fit
      ? { colWidths: fitColumns(natural, width - borders), wordWrap: true, wrapOnWordBoundary: false }
      : { wordWrap: false }),
  });
  for (const r of rows) t.push(r);
  return t.toString();
}

/**
 * A table's cells: its head and rows, what a renderer lays out for a person and what `--format csv` writes
 * (src/util/csv.ts's csvTable) — one set of cells for both.
 */
export interface Cells {
  head: string[];
  rows: string[][];
}

/** Objects' cells: a column per key in first-seen order, nested values as compact JSON; undefined if not objects. */
export function objectCells(v: JsonValue): Cells | undefined {
  if (!Array.isArray(v) || !v.every(isObject)) return undefined;
  const items = v as Record<string, JsonValue>[];
  const keys: string[] = [];
  for (const it of items) for (const k of Object.keys(it)) if (!keys.includes(k)) keys.push(k);
  return {
    head: keys,
    rows: items.map((it) =>
      keys.map((k) => (it[k] === undefined ? "" : isScalar(it[k]) ? scalarText(it[k]) : compact(it[k]))),
    ),
  };
}

const isObject = (e: JsonValue): boolean =>
  e !== null && typeof e === "object" && !Array.isArray(e) && !(e instanceof JsonNumber);

/** Extra text shown after a value (e.g. decimal beside a hex QUANTITY). */
export type Annotate = (key: string, v: JsonValue) => string | undefined;

export function renderValue(v: JsonValue, color: boolean, annotate?: Annotate): string {
  const st = style(color);
  if (isScalar(v)) return scalarText(v);
  if (Array.isArray(v)) {
    if (v.length === 0) return st.dim("(empty list)");
    // one a line; on a terminal a list of one in brackets, as in an object: not to be read as the bare value
    // (piped, the item alone: `getrawmempool | head -1 | …` works with one transaction as with three)
    if (v.every(isScalar))
      return v.length === 1 && process.stdout.isTTY
        ? `[${scalarText(v[0] as JsonValue)}]`
        : v.map(scalarText).join("\n");
    const cells = objectCells(v);
    if (cells) return table(cells.head, cells.rows, color);
    return v.map(compact).join("\n");
  }
  const lines: string[] = [];
  const walk = (obj: Record<string, JsonValue>, indent: string) => {
    const entries = Object.entries(obj);
    const width = Math.min(28, Math.max(0, ...entries.map(([k]) => k.length)));
    for (const [k, e] of entries) {
      const label = st.key(isScalar(e) || Array.isArray(e) ? k.padEnd(width) : k);
      if (isScalar(e)) {
        const note = annotate?.(k, e);
        lines.push(`${indent}${label}  ${scalarText(e)}${note ? st.dim(`  (${note})`) : ""}`);
      } else if (Array.isArray(e)) {
        if (e.length === 0) lines.push(`${indent}${label}  ${st.dim("[]")}`);
        else if (e.every(isScalar)) {
          const joined = e.map(scalarText).join(", ");
          // one item in brackets: a list of one is not the bare value
          if (e.length === 1) lines.push(`${indent}${label}  [${joined}]`);
          else if (joined.length <= 100) lines.push(`${indent}${label}  ${joined}`);
          else {
            lines.push(`${indent}${label}  ${st.dim(`(${e.length})`)}`);
            for (const x of e) lines.push(`${indent}  ${scalarText(x)}`);
          }
        } else {
          lines.push(`${indent}${label}  ${st.dim(`(${e.length})`)}`);
          for (const x of e) {
            if (x !== null && typeof x === "object" && !Array.isArray(x) && !(x instanceof JsonNumber)) {
              // an empty object is `{}`, not a blank line
              if (Object.keys(x).length === 0) lines.push(`${indent}  ${st.dim("{}")}`);
              else walk(x as Record<string, JsonValue>, indent + "  ");
              lines.push("");
            } else lines.push(`${indent}  ${compact(x)}`);
          }
        }
      } else if (Object.keys(e as object).length === 0) lines.push(`${indent}${label}  ${st.dim("{}")}`);
      else {
        lines.push(`${indent}${label}`);
        walk(e as Record<string, JsonValue>, indent + "  ");
      }
    }
  };
  if (Object.keys(v as object).length === 0) return st.dim("(empty object)");
  walk(v as Record<string, JsonValue>, "");
  return lines.join("\n");
}
