/**
 * CSV fields, once for every command that writes CSV (RFC 4180): a field holding a quote, a comma, a CR or
 * an LF is quoted, its quotes doubled; null and undefined are empty.
 */
export const csvField = (v: string | number | boolean | null | undefined): string => {
  const s = v === null || v === undefined ? "" : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};
