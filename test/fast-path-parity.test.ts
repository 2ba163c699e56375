/**
 * The fast path of a plain call (src/cli/fast.ts) and commander's command tree read every global option
 * the same way: for each option of the one list, in each of its spellings (long, `--long=value`, short,
 * repeated, negated), the flags the fast path hands the call equal what commander hands the method's action
 * (compared with commander's own reading of the bare call, so its defaults do not count). Nothing is sent:
 * commander is stopped before the action.
 */
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { plainCall } from "../src/cli/fast.js";
import { GLOBAL_OPTIONS } from "../src/cli/global-options.js";
import { buildProgram } from "../src/cli/main.js";
import { Run } from "../src/cli/run.js";

class Stopped extends Error {}

/** What commander hands the method's action for `argv` (every global option, defaults included). */
async function viaCommander(argv: string[]): Promise<Record<string, unknown>> {
  let seen: Record<string, unknown> | undefined;
  const program: Command = buildProgram(argv, new Run("human", {}));
  program.hook("preAction", (_t, action) => {
    seen = action.optsWithGlobals();
    throw new Stopped();
  });
  await program.parseAsync(argv, { from: "user" }).catch((e: unknown) => {
    if (!(e instanceof Stopped)) throw e;
  });
  if (!seen) throw new Error(`commander ran no action for ${argv.join(" ")}`);
  return seen;
}

/** The keys whose values differ from the bare call's: what the options given changed. */
function changed(a: Record<string, unknown>, base: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(a).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(base[k])),
  );
}

const METHOD = "getblockcount";

/** Every spelling of every global option, with a value of its kind. */
function spellings(): string[][] {
  const out: string[][] = [];
  for (const o of GLOBAL_OPTIONS) {
    const names = o.flags.split(/[ ,]+/).filter((w) => w.startsWith("-"));
    const long = names.find((n) => n.startsWith("--")) as string;
    const short = names.find((n) => !n.startsWith("--"));
    const takes = /[<[]/.test(o.flags);
    if (!takes) {
      out.push([long]);
      if (short) out.push([short]);
      continue;
    }
    const [a, b] = o.choices ? [o.choices[0], o.choices[o.choices.length - 1]] : ["7", "9"];
    out.push([long, a], [`${long}=${b}`]);
    if (short) out.push([short, a]);
    if (o.repeatable) out.push([long, a, long, b]);
  }
  return out;
}

describe("fast path and commander agree on the global options", () => {
  it("every option, every spelling: the same flags reach the call", async () => {
    const base = await viaCommander([METHOD]);
    const disagree: string[] = [];
    let compared = 0;
    for (const opts of spellings()) {
      const argv = [...opts, METHOD];
      const fast = plainCall(argv);
      // an option the fast path leaves to the tree is agreement by construction: the tree reads it
      if (!fast) continue;
      compared++;
      const tree = changed(await viaCommander(argv), base);
      if (JSON.stringify(fast.flags) !== JSON.stringify(tree))
        disagree.push(
          `${argv.join(" ")}: fast ${JSON.stringify(fast.flags)}, commander ${JSON.stringify(tree)}`,
        );
    }
    expect(disagree).toEqual([]);
    // the fast path takes most spellings itself; a reader that gave up on all would agree trivially
    expect(compared).toBeGreaterThan(40);
  });
});
