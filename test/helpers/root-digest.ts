/**
 * The glossary's root and digest (docs/glossary.md), checked on what a reader sees: a liabilities tree's
 * root is called root, never digest or SHA-256; a document's digest is never called root. Each 64-hex value
 * a text shows is read with the last of those words before it on its line (a table's cell with its column's
 * heading); a JSON document's with its member's name.
 */
import { expect } from "vitest";

/** A page's text as lines a reader meets: scripts and styles out, each table cell after its column's heading. */
export function pageLines(html: string): string[] {
  const body = html.replace(/<(script|style)\b.*?<\/\1>/gs, "");
  const tables = body.replace(/<table\b.*?<\/table>/gs, (t) => {
    const rows = [...t.matchAll(/<tr\b[^>]*>(.*?)<\/tr>/gs)].map((m) => m[1] as string);
    const first = rows[0] ?? "";
    const head =
      /<th\b/.test(first) && !/<td\b/.test(first)
        ? [...first.matchAll(/<th\b[^>]*>(.*?)<\/th>/gs)].map((m) => m[1] as string)
        : null;
    return (head ? rows.slice(1) : rows)
      .map(
        (r) =>
          `${[...r.matchAll(/<t[hd]\b[^>]*>(.*?)<\/t[hd]>/gs)]
            .map((m, i) => (head ? `${head[i] ?? ""}: ${m[1]}` : m[1]))
            .join(" | ")}\n`,
      )
      .join("");
  });
  return tables
    .replace(/<br\s*\/?>|<\/(p|li|h\d|div|tr|figcaption|section)>/g, "\n")
    .replace(/<[^>]+>/g, " ")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .split("\n");
}

const HEX = /(?:0x)?([0-9a-fA-F]{64})(?![0-9a-fA-F])/g;

const LABEL = /\b(root|digest|SHA-256)\b/gi;
const lastLabel = (text: string) => [...text.matchAll(LABEL)].at(-1)?.[1]?.toLowerCase();

/**
 * Each line's 64-hex values that are a root or a digest, with the word the line gives them: the last label
 * before it on its line, else (a value on a line of its own) the last of the 3 non-empty lines above.
 */
export function namedIn(lines: string[], roots: Set<string>, digests: Set<string>) {
  const out: { value: "root" | "digest"; word: string | undefined; line: string }[] = [];
  for (const [i, line] of lines.entries())
    for (const m of line.matchAll(HEX)) {
      const hex = (m[1] as string).toLowerCase();
      const value = roots.has(hex) ? "root" : digests.has(hex) ? "digest" : undefined;
      if (!value) continue;
      let word = lastLabel(line.slice(0, m.index));
      if (word === undefined && line.slice(0, m.index).trim() === "")
        word = lines
          .slice(0, i)
          .filter((l) => l.trim())
          .slice(-3)
          .map(lastLabel)
          .filter((w) => w !== undefined)
          .at(-1);
      out.push({ value, word, line: line.trim().slice(0, 300) });
    }
  return out;
}

/** A JSON document's roots and digests, each with its member's name (its path). */
export function namedInJson(doc: unknown, roots: Set<string>, digests: Set<string>) {
  const out: { value: "root" | "digest"; path: string }[] = [];
  const walk = (v: unknown, path: string) => {
    if (typeof v === "string") {
      const hex = v.replace(/^0x/, "").toLowerCase();
      if (roots.has(hex)) out.push({ value: "root", path });
      else if (digests.has(hex)) out.push({ value: "digest", path });
    } else if (Array.isArray(v)) for (const [i, x] of v.entries()) walk(x, `${path}[${i}]`);
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
  };
  walk(doc, "");
  return out;
}

/**
 * The rule over one output's text: every root it shows is called root (the nearest of root, digest and
 * SHA-256 before it on its line, else on the last of the 3 lines above that names one: a value shown on its
 * own line under the sentence that names it), every digest is called digest or SHA-256, never root; and no phrase mixes
 * the two. `shows`: how many roots and digests it must show at least.
 */
export function expectOneWay(
  name: string,
  lines: string[],
  roots: Set<string>,
  digests: Set<string>,
  shows: { roots: number; digests: number },
): void {
  const named = namedIn(lines, roots, digests);
  expect(named.filter((n) => n.value === "root").length, `${name}: roots shown`).toBeGreaterThanOrEqual(
    shows.roots,
  );
  expect(named.filter((n) => n.value === "digest").length, `${name}: digests shown`).toBeGreaterThanOrEqual(
    shows.digests,
  );
  expect(
    named.filter((n) => (n.value === "root" ? n.word !== "root" : n.word === "root" || n.word === undefined)),
    `${name}: a root not called root, or a digest called root (or nothing)`,
  ).toEqual([]);
  expect(
    lines.filter((l) =>
      /\broot digest\b|\bdigest root\b|\btree'?s digest\b|\bdigest of the (liabilities )?tree\b|\broot of the (document|file|proof)\b/i.test(
        l,
      ),
    ),
    `${name}: a phrase that mixes root and digest`,
  ).toEqual([]);
}
