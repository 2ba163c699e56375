/**
 * Help that fits the terminal: never wider than its columns, never a word broken. Terms (options, long
 * command signatures) that would push the description column past a third of the line go on a line of
 * their own, the description under them.
 */
import type { Command, Help, HelpConfiguration } from "commander";
import { wrapWords } from "../util/text.js";

/** Columns of the stream's terminal, else $COLUMNS, else 80. */
export function helpWidth(stream: { isTTY?: boolean; columns?: number }, env: NodeJS.ProcessEnv): number {
  const cols = stream.isTTY ? Number(stream.columns) : Number(env.COLUMNS);
  return Number.isFinite(cols) && cols >= 20 ? Math.min(cols, 200) : 80;
}

/** The widest term kept beside its description; longer ones get a line of their own. */
const MAX_TERM = 26;
const INDENT = 2;

export const HELP: HelpConfiguration = {
  padWidth(cmd: Command, helper: Help): number {
    const longest = Math.max(
      helper.longestOptionTermLength(cmd, helper),
      helper.longestSubcommandTermLength(cmd, helper),
      helper.longestArgumentTermLength(cmd, helper),
    );
    return Math.min(longest, MAX_TERM);
  },
  formatItem(term: string, termWidth: number, description: string, helper: Help): string {
    const width = helper.helpWidth ?? 80;
    const pad = " ".repeat(INDENT);
    if (!description) return pad + term;
    const column = INDENT + termWidth + 2;
    const body = wrapWords(description, width - column).replace(/\n/g, `\n${" ".repeat(column)}`);
    if (helper.displayWidth(term) <= termWidth)
      return `${pad}${term.padEnd(termWidth + term.length - helper.displayWidth(term))}  ${body}`;
    // a long signature: alone on its line (itself wrapped at spaces), the description under it
    const head = wrapWords(term, width - INDENT, "  ").replace(/\n/g, `\n${pad}`);
    return `${pad}${head}\n${" ".repeat(column)}${body}`;
  },
  formatHelp(cmd: Command, helper: Help): string {
    // commander's own layout, then a last pass: any line still too wide (usage, description) is wrapped
    const Base = Object.getPrototypeOf(helper) as Help;
    const text = Base.formatHelp.call(helper, cmd, helper);
    return fitWidth(text, helper.helpWidth ?? 80);
  },
};

/**
 * Does `next` continue the sentence of `line`? Prose written at the left margin and broken at the
 * source's width: neither line indented (tables, examples and already fitted text are), `line` not at
 * the end of a sentence or a heading, `next` not an item of a list.
 */
const continues = (line: string, next: string): boolean =>
  /^\S/.test(line) &&
  /^\S/.test(next) &&
  !/[.!?:]$/.test(line.trimEnd()) &&
  !/^([-*•$] |\d+[.)] )/.test(next);

/**
 * Text fitted to `width`: prose paragraphs broken at another width are joined first (so a line is never
 * cut mid-sentence and the rest left short), then lines wider than `width` are wrapped at spaces,
 * continuing under their own indentation plus two.
 */
export const fitWidth = (text: string, width: number): string => {
  const lines = text.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i] as string;
    while (i + 1 < lines.length && continues(line, lines[i + 1] as string))
      line = `${line.trimEnd()} ${(lines[++i] as string).trim()}`;
    out.push(line.length > width ? wrapWords(line, width, "  ") : line);
  }
  return out.join("\n");
};

/** Said once under each command's help, instead of repeating every global option there. */
export const GLOBAL_NOTE =
  "Global options (--url, --gateway, --product, --chain, --profile, --json, --format, --named, --stdin, --wait, --network, --datadir, timeouts, ...) work with every command: see `chaingw --help`.";
