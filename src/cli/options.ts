/** Option parsers shared by the command modules (kept tiny: loaded at start-up). */

/** A repeatable option: every value, in order. */
export const collect = (v: string, prev: string[] | undefined): string[] => [...(prev ?? []), v];
