/**
 * The cheap look at a file that detection needs: the top-level `format` member of a JSON document (or of the
 * first line of JSON Lines), found by the span scanner without building any value. Never throws.
 */
import { scanObject } from "../json/scan.js";

let last: { text: string; format: string | undefined } | undefined;

/** The string value of the top-level `format` member, or undefined (not JSON, no such member, not a string). */
export function formatMember(text: string): string | undefined {
  if (last?.text === text) return last.format;
  const format = memberOf(text) ?? memberOf(text.slice(0, firstLineEnd(text)));
  last = { text, format };
  return format;
}

const firstLineEnd = (text: string) => {
  const i = text.indexOf("\n");
  return i < 0 ? text.length : i;
};

function memberOf(text: string): string | undefined {
  try {
    const span = scanObject(text.replace(/^\uFEFF/, ""))?.format;
    if (!span) return undefined;
    const v: unknown = JSON.parse(text.replace(/^\uFEFF/, "").slice(span[0], span[1]));
    return typeof v === "string" ? v : undefined;
  } catch {
    return undefined;
  }
}

let lastPaths: { text: string; paths: Set<string> | undefined } | undefined;

/**
 * The member paths of a JSON document, dotted (`self.userHash`; an array's objects as `path[].balance`, every
 * element's members), or undefined when the text is not a JSON object; the last text's kept.
 */
export function memberPaths(text: string): Set<string> | undefined {
  if (lastPaths?.text === text) return lastPaths.paths;
  let paths: Set<string> | undefined;
  try {
    const v: unknown = JSON.parse(text.replace(/^\uFEFF/, ""));
    if (typeof v === "object" && v !== null && !Array.isArray(v)) {
      paths = new Set();
      const walk = (x: unknown, at: string, depth: number): void => {
        if (depth > 8 || typeof x !== "object" || x === null) return;
        if (Array.isArray(x)) {
          for (const e of x) walk(e, `${at}[]`, depth + 1);
          return;
        }
        for (const [k, e] of Object.entries(x)) {
          const p = at ? `${at}.${k}` : k;
          paths!.add(p);
          walk(e, p, depth + 1);
        }
      };
      walk(v, "", 0);
    }
  } catch {
    paths = undefined;
  }
  lastPaths = { text, paths };
  return paths;
}

/** Whether the JSON document `text` has every member of `marks` (dotted paths, as `memberPaths` spells them). */
export const hasMarks = (text: string, marks: readonly string[]): boolean => {
  const paths = memberPaths(text);
  return paths !== undefined && marks.every((m) => paths.has(m));
};
