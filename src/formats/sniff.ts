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
