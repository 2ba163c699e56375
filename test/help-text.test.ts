/**
 * Every command's --help at several terminal widths: no line wider than the terminal, and prose never
 * broken where it did not have to be (issue 22: `reserves balances --help` printed "Every read names\n
 * the pinned block; on\nEVM-compat ..." — a paragraph wrapped at the source's width, then again at the
 * terminal's). Commands are found from the help itself, so a new one is checked without a change here.
 */
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";

const WIDTHS = [60, 80, 100];

const help = async (cmd: string[], width: number) => {
  const r = await runCli([...cmd, "--help"], { env: { COLUMNS: String(width) } });
  expect(r.exitCode, `${cmd.join(" ")} --help: ${r.stderr}`).toBe(0);
  return r.stdout;
};

/** The names listed under "Commands:" (each entry starts two spaces in). */
const commandsOf = (text: string): string[] => {
  const at = text.indexOf("Commands:\n");
  if (at < 0) return [];
  const section = text.slice(at).split("\n\n")[0] as string;
  return [...section.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((x) => x[1] as string).filter((n) => n !== "help");
};

/**
 * The places where a line was broken though the next word would have fitted, outside the option and
 * command tables (laid out by column): a break is only right at the end of a sentence or heading, or
 * before an item of a list.
 */
function needlessBreaks(text: string, width: number): string[] {
  const lines = text.split("\n");
  const found: string[] = [];
  let table = false;
  for (let i = 0; i + 1 < lines.length; i++) {
    const a = lines[i] as string;
    const b = lines[i + 1] as string;
    if (/^(Options|Commands|Arguments|Global Options):$/.test(a)) table = true;
    if (a.trim() === "") table = false;
    if (table || a.trim() === "" || b.trim() === "") continue;
    if (/[.!?:]$/.test(a.trimEnd())) continue;
    // the next line starts an item: "- x", "1. x", "  result: x" (a label), "  --flag  text"
    if (/^\s*([-*•$] |\d+[.)] |[\w.-]+( [\w.-]+)?: |--?\w[\w-]*( <[^>]+>)? {2})/.test(b)) continue;
    const next = b.trim().split(/\s+/)[0] as string;
    if (a.trimEnd().length + 1 + next.length <= width) found.push(`${a}⏎${b}`);
  }
  return found;
}

describe("help text fits the terminal and breaks prose only where it must", () => {
  it("every command and subcommand, at 60, 80 and 100 columns", async () => {
    const top = await help([], 80);
    const queue: string[][] = commandsOf(top).map((c) => [c]);
    // the top page lists the workflow commands; the methods follow grouped, each page walked below
    expect(queue.length).toBeGreaterThan(15);
    const methods = JSON.parse((await runCli(["methods", "--json"])).stdout) as { method: string }[];
    for (const m of new Set(methods.map((x) => x.method))) queue.push([m]);
    const checked: string[] = [];
    const problems: string[] = [];
    while (queue.length) {
      const batch = queue.splice(0, 6);
      await Promise.all(
        batch.map(async (cmd) => {
          for (const width of WIDTHS) {
            const text = width === 80 && cmd.length === 0 ? top : await help(cmd, width);
            if (width === 80) for (const sub of commandsOf(text)) queue.push([...cmd, sub]);
            for (const l of text.split("\n"))
              if (l.length > width && /\s\S/.test(l.trim()))
                problems.push(`${cmd.join(" ")} at ${width}: wider than the terminal: ${l}`);
            for (const b of needlessBreaks(text, width))
              problems.push(`${cmd.join(" ")} at ${width}: broken mid-sentence: ${b}`);
          }
          checked.push(cmd.join(" "));
        }),
      );
    }
    for (const width of WIDTHS)
      for (const b of needlessBreaks(await help([], width), width))
        problems.push(`chaingw at ${width}: broken mid-sentence: ${b}`);
    expect(checked).toContain("reserves balances");
    expect(problems).toEqual([]);
  });
});
