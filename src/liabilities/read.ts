/**
 * The strict reading every liabilities document gets (commitments, proofs, and what `solvency` reads): the
 * project's lossless parser with a repeated member name refused at any depth (I-JSON forbids them, and
 * readers disagree on which copy wins — a digest over the last copy says nothing of the first), members
 * outside the format refused, and timestamps held to RFC 3339.
 */
import { UsageError } from "../errors/index.js";
import { JsonDuplicateMember, parseLossless, plainOf } from "../json/lossless.js";
import { quoted } from "../util/text.js";

/** `text` as JSON, a repeated member name refused naming its path; UsageError (exit 2) naming `file`. */
export function strictJson(text: string, file: string): unknown {
  try {
    return plainOf(parseLossless(text, { duplicates: "reject" }));
  } catch (e) {
    if (e instanceof JsonDuplicateMember)
      throw new UsageError(
        `${file}: member ${quoted(e.key)} appears twice at ${e.path} (I-JSON forbids it; readers disagree on which copy counts)`,
      );
    throw new UsageError(`${file}: not JSON (${(e as Error).message})`);
  }
}

/**
 * `text` as one JSON document, or as JSON Lines (one document a line, as `liabilities proof` prints several
 * customers' proofs): each document with the line it started on (1 for a single document).
 */
export function strictJsonDocuments(text: string, file: string): { value: unknown; line: number }[] {
  const t = text.replace(/^\uFEFF/, "");
  try {
    return [{ value: strictJson(t, file), line: 1 }];
  } catch (whole) {
    const lines = t.split("\n");
    const nonEmpty = lines.filter((l) => l.trim() !== "");
    // JSON Lines: every non-empty line an object of its own; otherwise the whole file's error stands
    if (nonEmpty.length < 2 || !nonEmpty.every((l) => l.trimStart().startsWith("{"))) throw whole;
    const out: { value: unknown; line: number }[] = [];
    lines.forEach((l, i) => {
      if (l.trim() !== "") out.push({ value: strictJson(l, `${file} line ${i + 1}`), line: i + 1 });
    });
    return out;
  }
}

export const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The first member of `o` that is not one of `allowed`, if any. */
export const unknownMember = (o: Record<string, unknown>, allowed: readonly string[]): string | undefined =>
  Object.keys(o).find((k) => !allowed.includes(k));

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/** A date-time as RFC 3339 §5.6 writes it, every field in range (a leap second allowed, as the RFC does). */
export function isRfc3339(s: string): boolean {
  const m = RFC3339.exec(s);
  if (!m) return false;
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number);
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate(); // day 0 of the next month: the last of this one
  const offsetOk = m[7] === undefined || (Number(m[7]) <= 23 && Number(m[8]) <= 59);
  return mo >= 1 && mo <= 12 && d >= 1 && d <= days && h <= 23 && mi <= 59 && sec <= 60 && offsetOk;
}
