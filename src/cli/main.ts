/**
 * The command tree: global options, the registry's method commands (src/cli/commands/method/declare.ts)
 * and the table of the other commands (src/cli/commands/index.ts), and the top-level handler that turns
 * commander's errors into chaingw's. A command's work is imported when it runs.
 */
import { Command, CommanderError, Option } from "commander";
import { EXIT, UsageError } from "../errors/index.js";
import { methodNames } from "../methods/index.js";
import { redactUrl } from "../util/redact.js";
import { distance, shellQuote, suggest, wrapWords } from "../util/text.js";
import { bitcoinCliArgs, bitcoinCliRefusal } from "./argv.js";
import { CAST_NAMES } from "./cast-names.js";
import { COMMAND_NAMES, COMMANDS } from "./commands/index.js";
import { declareMethodCommands } from "./commands/method/declare.js";
import type { Run } from "./context.js";
import { GLOBAL_OPTIONS } from "./global-options.js";
import { fitWidth, HELP, helpWidth, methodsByGroup, WORKFLOWS } from "./help.js";
import { report, startRun } from "./lifecycle.js";
import { collect, csvRefusal, formatConflict, refuseRepeats } from "./options.js";
import { VERSION } from "./version.js";

function globalOptions(cmd: Command): Command {
  for (const o of GLOBAL_OPTIONS) {
    const opt = new Option(o.flags, o.help);
    if (o.hidden) opt.hideHelp();
    if (o.choices) opt.choices(o.choices);
    if (o.repeatable) opt.argParser(collect);
    cmd.addOption(opt);
  }
  return cmd;
}

/**
 * The method commands to build. A call names its method, so only that command is built (the rest of the
 * tree costs ~2 ms of every start-up); `batch`, `reserves`, `rpc` and `methods` need none; help, or no
 * command named, builds them all. The command is the first argument that is neither an option nor an
 * option's value.
 */
function methodsToBuild(argv: string[], program: Command): string[] {
  const all = methodNames();
  if (argv.some((a) => a === "-h" || a === "--help" || a === "help")) return all;
  const takesValue = new Set(
    program.options.filter((o) => o.required || o.optional).flatMap((o) => [o.long, o.short].filter(Boolean)),
  );
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") break;
    if (a.startsWith("-")) {
      if (!a.includes("=") && takesValue.has(a)) i++;
      continue;
    }
    if (all.includes(a)) return [a];
    // the commands that are not registry methods (built after this list)
    if (COMMAND_NAMES.includes(a)) return [];
    break;
  }
  return all;
}

export function buildProgram(argv: string[], run: Run): Command {
  const program = new Command("chaingw")
    .description("Query blockchain nodes and node gateways over JSON-RPC; prove reserves with scantxoutset.")
    .version(VERSION, "-V, --version")
    .exitOverride()
    .showHelpAfterError(false)
    .showSuggestionAfterError(false)
    .configureOutput({
      // help shown because no command was given goes to stderr; error messages are printed by report()
      // help and its added texts (any command's) fit the terminal: a line too wide is wrapped at spaces
      writeOut: (t) => run.stdout.write(fitWidth(t, helpWidth(run.stdout, run.env))),
      writeErr: (t) => run.stderr.write(fitWidth(t, helpWidth(run.stderr, run.env))),
      outputError: () => {},
      getOutHelpWidth: () => helpWidth(run.stdout, run.env),
      getErrHelpWidth: () => helpWidth(run.stderr, run.env),
    })
    .configureHelp(HELP)
    .addHelpText("after", () => {
      const width = helpWidth(run.stdout, run.env);
      return `\n${methodsByGroup(width)}\n\n${wrapWords(
        "Exit codes: 0 ok (null is ok), 1 node error, 2 bad usage (nothing sent), 3 no endpoint answered, 4 auth refused, 130 interrupted.",
        width,
      )}`;
    });

  globalOptions(program);

  const toBuild = methodsToBuild(argv, program);
  declareMethodCommands(program, run, argv, toBuild);
  // a call of one registry method needs none of the other commands (their options cost start-up)
  if (toBuild.length !== 1) for (const c of COMMANDS) c.declare(program, run);
  // one value per option unless it says "repeatable": checked here, for every command however declared
  refuseRepeats(program);
  program.hook("preAction", (_program, command) => {
    const conflict = formatConflict(program.opts()) ?? csvRefusal(run.format, command);
    if (conflict) throw conflict;
  });

  return program;
}

/**
 * An unknown command: cast's name for a read gets chaingw's (`nonce` → eth_getTransactionCount); a typo (at
 * most two letters off) gets "did you mean"; any other name, the `chaingw rpc` line that sends it verbatim
 * (credentials in the arguments masked), after the near names if there are any (`sendrawtransaction` is not
 * a typo of getrawtransaction). Nothing is sent.
 */
function unknownCommand(name: string, argv: string[]): UsageError {
  const cast = Object.hasOwn(CAST_NAMES, name) ? CAST_NAMES[name] : undefined;
  if (cast)
    return new UsageError(`unknown command '${name}'`, {
      hint: `cast's \`${name}\` is \`chaingw ${cast}\``,
    });
  const known = [...methodNames(), ...COMMAND_NAMES.filter((c) => c !== "help")];
  const near = suggest(name, known);
  const typo = near.some((c) => distance(name.toLowerCase(), c.toLowerCase()) <= 2);
  if (near.length && typo)
    return new UsageError(`unknown command '${name}'`, {
      hint: `did you mean ${near.join(", ")}?`,
    });
  const at = argv.indexOf(name);
  let secret = false;
  let masked = false;
  const shown = argv.map((a) => {
    const hide = secret;
    secret = a === "--api-key";
    if (hide || (a.includes("@") && redactUrl(a) !== a)) masked = true;
    return hide ? "***" : shellQuote(a.includes("@") ? maskUrl(a) : a);
  });
  shown.splice(at, 1, "rpc", shellQuote(name));
  return new UsageError(`unknown command '${name}': not a method chaingw knows`, {
    hint: `${near.length ? `did you mean ${near.join(", ")}?\nor, ` : ""}to send it to the node as it is:\n  chaingw ${shown.join(" ")}${masked ? "\n(*** stands for the credentials you gave)" : ""}\n(\`chaingw methods\` lists the methods chaingw knows)`,
  });
}

/** A URL with its credentials as `***@` (kept in place: the line still says where they go). */
function maskUrl(a: string): string {
  const r = redactUrl(a);
  if (r === a) return a;
  const m = /^([a-z][a-z0-9+.-]*:\/\/)/i.exec(r);
  return m && /\/\/[^/]*@/.test(a) ? `${m[1]}***@${r.slice(m[1].length)}` : r;
}

/** Commander's errors as chaingw's; then the one report of src/cli/lifecycle.ts. */
function reportAny(run: Run, err: unknown, argv: string[]): number {
  if (err instanceof CommanderError) {
    if (err.code === "commander.helpDisplayed" || err.code === "commander.version") return EXIT.ok;
    // `chaingw help [command]` asked for it: 0; help shown because no command was given (commander's
    // exit code 1) went to stderr, and a script that forgot the method should notice: 2
    if (err.code === "commander.help") return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    const unknown = /^error: unknown command '(.*)'$/s.exec(err.message);
    if (err.code === "commander.unknownCommand" && unknown)
      return report(run, unknownCommand(unknown[1], argv));
    return report(run, new UsageError(err.message.replace(/^error: /, "")));
  }
  return report(run, err);
}

/** The whole command tree (help, every command family); a plain method call takes src/cli/fast.ts. */
export async function main(args: string[], started?: Run): Promise<number> {
  const argv = bitcoinCliArgs(args);
  const run = started ?? startRun(argv);
  const refused = bitcoinCliRefusal(args);
  if (refused) return report(run, new UsageError(refused));
  if (args.length === 0) {
    // `chaingw` alone: the short usage, not every option and method (a script that forgot the method notices)
    run.stderr.write(
      `${fitWidth(`Usage: chaingw [options] [command]\n\n${WORKFLOWS}\n\n\`chaingw --help\`: every option and command; \`chaingw methods\`: every method.`, helpWidth(run.stderr, run.env))}\n`,
    );
    return EXIT.usage;
  }
  try {
    await buildProgram(argv, run).parseAsync(argv, { from: "user" });
    // commands that finish with a status of their own (batch) set it on the run
    return run.exitCode ?? EXIT.ok;
  } catch (err) {
    return reportAny(run, err, argv);
  }
}
