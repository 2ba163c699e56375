/**
 * The output format: one value, chosen once from the command line (`--format`, or `--json` for
 * `--format json`), before anything else runs — so even a usage error in parsing is printed in it.
 */
export const FORMATS = ["human", "json", "jsonl", "csv"] as const;
export type Format = (typeof FORMATS)[number];

/** The format the arguments ask for: the last --format/--json wins; bad values are refused later by commander. */
export function formatFromArgv(argv: readonly string[]): Format {
  let f: Format = "human";
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") break;
    if (a === "--json") f = "json";
    const v = a === "--format" ? argv[i + 1] : a.startsWith("--format=") ? a.slice(9) : undefined;
    if (v !== undefined && (FORMATS as readonly string[]).includes(v)) f = v as Format;
  }
  return f;
}

/** `--pretty` among the options (before `--`): JSON indented to read. */
export function prettyFromArgv(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === "--") return false;
    if (a === "--pretty") return true;
  }
  return false;
}

/** Machine formats: no colour, no spinner, errors as JSON objects. */
export const isMachine = (f: Format): boolean => f !== "human";
