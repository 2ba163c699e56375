/** Option parsers and checks shared by the command modules (kept tiny: loaded at start-up). */
import type { EventEmitter } from "node:events";
import type { Command, Option } from "commander";
import { UsageError } from "../errors/index.js";
import type { Format } from "../output/format.js";
import { DEFAULT_WALK_BLOCKS, MAX_WALK_BLOCKS } from "../reserves/defaults.js";
import { redactUrl } from "../util/redact.js";
import { parseWhole, quoted } from "../util/text.js";

/** A repeatable option: every value, in order. Its help says "repeatable" (test/repeated-options.test.ts). */
export const collect = (v: string, prev: string[] | undefined): string[] => [...(prev ?? []), v];

/** An option's value as a message shows it: a hidden option's (a key, a password) as ***, a URL's credentials cut. */
const shownValue = (o: Option, v: unknown): string =>
  o.hidden ? "***" : typeof v === "string" ? quoted(v.includes("//") ? redactUrl(v) : v) : "(no value)";

/**
 * No silent last-wins: every option of the tree under `cmd` that takes one value (not {@link collect}'s, not
 * variadic) refuses a second one, naming both — `--challenge A --challenge B` is exit 2, nothing sent. Run once
 * on the built tree (src/cli/main.ts), so every command's options follow whoever declared them. A value from
 * env or a profile is not the command line's: one flag given once still overrides it.
 */
export function refuseRepeats(cmd: Command): void {
  for (const o of cmd.options) {
    if (!(o.required || o.optional) || o.variadic || o.parseArg === collect) continue;
    const key = o.attributeName();
    let first: unknown;
    // before commander's own listener (it stores the value): the source still says whether one came before
    (cmd as unknown as EventEmitter).prependListener(`option:${o.name()}`, (v: unknown) => {
      if (cmd.getOptionValueSource(key) !== "cli") {
        first = v;
        return;
      }
      const flag = o.long ?? o.short;
      throw new UsageError(
        `${flag} given twice (${shownValue(o, first)}, then ${shownValue(o, v)}): it takes one value`,
        { hint: `give ${flag} once; the options that add up say "repeatable" in --help` },
      );
    });
  }
  for (const sub of cmd.commands) refuseRepeats(sub);
}

/**
 * Two spellings of one setting that disagree: `--json` is `--format json`, so `--json --format csv` (either
 * order) names two output formats and is refused, not settled by whichever came last. Undefined when they agree.
 */
export function formatConflict(flags: { json?: boolean; format?: string }): UsageError | undefined {
  if (flags.json !== true || flags.format === undefined || flags.format === "json") return undefined;
  return new UsageError(
    `--json and --format ${flags.format} name two output formats (--json is --format json): give one`,
  );
}

/**
 * A repeatable KEY=VALUE option's pairs, one value per key: `--node ETH=a --node ETH=b` is refused naming both
 * (which node would answer for ETH is not for chaingw to pick). `key` is what must not repeat (default the KEY);
 * `flag` names the option, or is the flag of the repeating pair where two spellings share one key (`--node utxo=`
 * after `--url-for utxo=`). The one "names … twice" refusal of every KEY=VALUE option.
 */
export function onePerKey<T extends readonly [string, string, ...string[]]>(
  flag: string | ((p: T) => string),
  pairs: readonly T[],
  key: (p: T) => string = (p) => p[0],
): T[] {
  const seen = new Map<string, T>();
  for (const p of pairs) {
    const before = seen.get(key(p));
    if (before)
      throw new UsageError(
        `${typeof flag === "string" ? flag : flag(p)} names ${quoted(p[0])} twice (${quoted(redactUrl(before[1]))}, then ${quoted(redactUrl(p[1]))}): one value each`,
      );
    seen.set(key(p), p);
  }
  return [...pairs];
}

/** The commands whose output is a table with a CSV form; every other command refuses `--format csv` by name. */
const CSV_COMMANDS = new WeakSet<Command>();

/** Marks a command as printing its table as CSV under `--format csv` (its run does); returns it for chaining. */
export function takesCsv(cmd: Command): Command {
  CSV_COMMANDS.add(cmd);
  return cmd;
}

/** The one refusal of `--format csv` by a command that prints no table: exit 2, naming it, nothing sent. */
export const noCsv = (what: string, why = "it prints no table"): UsageError =>
  new UsageError(`--format csv is not available for ${what}: ${why} (json, jsonl or human)`);

/** Whether `cmd` prints its table as CSV (marked by {@link takesCsv}); every other command refuses it. */
export const printsCsv = (cmd: Command): boolean => CSV_COMMANDS.has(cmd);

/**
 * `--format csv` for a command that has no table: refused naming it (exit 2, before its run sends anything),
 * never JSON in its place. Run by the tree's preAction hook (src/cli/main.ts) for every command.
 */
export function csvRefusal(format: Format, cmd: Command): UsageError | undefined {
  if (format !== "csv" || CSV_COMMANDS.has(cmd)) return undefined;
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return noCsv(names.join(" "));
}

/** Commands that print one answer (a method's result, an EVM command's values) have no CSV form. */
export function refuseCsv(run: { format: Format }, what: string, why?: string): void {
  if (run.format === "csv") throw noCsv(what, why);
}

/** `--quorum <k>` of the commands that read state for a proof (reserves scan, reserves balances). */
export const QUORUM_READS_HELP =
  "K distinct nodes (--url once per node) must answer every read alike; a disagreement is exit 1 naming both";

/**
 * `--walk <blocks>` of the commands that verify UTXO proofs (reserves verify, reserves report --verify,
 * solvency --verify): the most blocks above a proof's height read to find where an output spent since was
 * spent (reserves/defaults.ts, docs/proofs.md "What verify reads").
 */
export const WALK_OPTION = {
  flags: "--walk <blocks>",
  help: `a UTXO proof: at most this many blocks above its height read to find where an output spent since was spent; not found within them: cannot say (default ${DEFAULT_WALK_BLOCKS})`,
};

/** `--walk`'s value (undefined: not given, the default). */
export const walkOf = (v: string | undefined): number | undefined =>
  v === undefined ? undefined : parseWhole("--walk", v, DEFAULT_WALK_BLOCKS, 0, MAX_WALK_BLOCKS);
