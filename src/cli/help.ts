/**
 * Help that fits the terminal: never wider than its columns, never a word broken. Terms (options, long
 * command signatures) that would push the description column past a third of the line go on a line of
 * their own, the description under them.
 */
import type { Command, Help, HelpConfiguration } from "commander";
import { registry } from "../methods/index.js";
import { wrapWords } from "../util/text.js";

/** Columns of the stream's terminal, else $COLUMNS, else 80. */
export function helpWidth(stream: { isTTY?: boolean; columns?: number }, env: NodeJS.ProcessEnv): number {
  const cols = stream.isTTY ? Number(stream.columns) : Number(env.COLUMNS);
  return Number.isFinite(cols) && cols >= 20 ? Math.min(cols, 200) : 80;
}

/** The widest term kept beside its description; longer ones get a line of their own. */
const MAX_TERM = 26;
const INDENT = 2;

const isMethod = (name: string): boolean => registry().some((m) => m.name === name);

export const HELP: HelpConfiguration = {
  // the top page lists the workflow commands; the registry's methods follow it grouped (methodsByGroup)
  visibleCommands(cmd: Command): Command[] {
    const Base = Object.getPrototypeOf(this) as Help;
    const all = Base.visibleCommands.call(this, cmd);
    return cmd.parent ? all : all.filter((c) => !isMethod(c.name()));
  },
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
    let text = Base.formatHelp.call(helper, cmd, helper);
    // the top page: the usual calls right after the usage and what chaingw is
    if (!cmd.parent) text = text.replace(/\n\n(?=Options:\n)/, `\n\n${WORKFLOWS}\n\n`);
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

/** What the top page and `chaingw` alone lead with: the usual calls, one a line. */
export const WORKFLOWS = `Workflows:
  $ chaingw getblockcount                    a node method, as bitcoin-cli
  $ chaingw -regtest -rpcwait getblockcount  bitcoin-cli's flags work
  $ chaingw getblockheader --range 1..5000   many calls: one process, not a loop
  $ chaingw batch calls.jsonl                JSON lines in, a line per answer out
  $ chaingw --gateway URL --product ID info  the same through a gateway
  $ chaingw reserves scan ADDR... --proof p.json
  $ chaingw reserves verify p.json           prove reserves; check a proof
  $ chaingw call TOKEN "decimals()(uint8)"   a contract read, as cast call
  $ chaingw liabilities build; chaingw solvency
  $ chaingw serve --config gateway.json      the gateway for your nodes
  $ chaingw methods                          every method, by chain group`;

/** The registry's methods, grouped by chain group, wrapped to `width`: the top page's last section. */
export function methodsByGroup(width: number): string {
  const groups = new Map<string, string[]>();
  for (const m of registry()) {
    const list = groups.get(m.group) ?? [];
    if (!list.includes(m.name)) list.push(m.name);
    groups.set(m.group, list);
  }
  const out = ["Methods (`chaingw methods`: the table; `chaingw METHOD --help`: its params):"];
  for (const [group, names] of groups)
    out.push(`  ${wrapWords(`${group}: ${names.join(", ")}`, width - 2, "  ").replace(/\n/g, "\n  ")}`);
  return out.join("\n");
}
