/**
 * Command wiring only: global options, one subcommand per registry method, and the top-level handler
 * that decides exit codes. Commands that only some runs need (reserves, batch) are imported on use.
 */
import { Command, CommanderError, Option } from "commander";
import type { GlobalFlags } from "../config/config.js";
import { chainFromFlags } from "../config/config.js";
import { EXIT, UsageError } from "../errors/index.js";
import { definitions, findMethod, marksText, methodHelp, methodNames } from "../methods/index.js";
import { redactUrl } from "../util/redact.js";
import { shellQuote, suggest, wrapWords } from "../util/text.js";
import { bitcoinCliArgs } from "./argv.js";
import { addBatchOptions } from "./batch.js";
import type { Run } from "./context.js";
import { GLOBAL_OPTIONS } from "./global-options.js";
import { fitWidth, GLOBAL_NOTE, HELP, helpWidth } from "./help.js";
import { FAMILY_COMMANDS, families } from "./hooks.js";
import { collect } from "./options.js";
import { report, startRun } from "./report.js";

declare const __VERSION__: string;
const VERSION = typeof __VERSION__ === "string" ? __VERSION__ : "0.0.0-dev";

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

/** The commands that are not registry methods (each builds no method command). */
const OTHER_COMMANDS = [
  "batch",
  "reserves",
  "rpc",
  "methods",
  "verify-message",
  "info",
  "config",
  "completion",
  "help",
  ...FAMILY_COMMANDS,
];

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
    if (OTHER_COMMANDS.includes(a)) return [];
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
      writeOut: (t) => process.stdout.write(fitWidth(t, helpWidth(process.stdout, run.env))),
      writeErr: (t) => process.stderr.write(fitWidth(t, helpWidth(process.stderr, run.env))),
      outputError: () => {},
      getOutHelpWidth: () => helpWidth(process.stdout, run.env),
      getErrHelpWidth: () => helpWidth(process.stderr, run.env),
    })
    .configureHelp(HELP)
    .addHelpText(
      "after",
      () =>
        `\n${wrapWords(
          "Exit codes: 0 ok (null is ok), 1 node error, 2 bad usage (nothing sent), 3 no endpoint answered, 4 auth refused, 130 interrupted.\nRun `chaingw methods` for the method table, `chaingw <method> --help` for its params.",
          helpWidth(process.stdout, run.env),
        )}`,
    );
  globalOptions(program);

  // params by name or from stdin: how many come on the command line, and in which slots, is not commander's
  // to judge (buildParams names what is missing or too much)
  const loose = argv.some((a) => a === "--named" || a === "--stdin");
  const toBuild = methodsToBuild(argv, program);
  for (const name of toBuild) {
    const defs = definitions(name);
    const d = defs[0];
    const cmd = program
      .command(name)
      .description(`${d.summary} [${defs.map((x) => `${x.group}: ${marksText(x)}`).join("; ")}]`);
    // the widest param list over the groups; each group validates its own
    const widest = defs.reduce((a, b) => (b.params.length > a.params.length ? b : a));
    const ranged = defs.some((x) => x.range);
    for (const [i, p] of widest.params.entries()) {
      // with --range the first param comes from the range: commander must not demand it
      const required =
        !loose &&
        !(ranged && i === 0) &&
        defs.every(
          (x) =>
            x.params.find((q) => q.name === p.name)?.required &&
            x.params.find((q) => q.name === p.name)?.default === undefined,
        );
      cmd.argument(required ? `<${p.name}>` : `[${p.name}]`, `${p.type}: ${p.help}`);
    }
    const seen = new Set<string>();
    for (const x of defs)
      for (const o of x.options ?? []) {
        if (seen.has(o.flags)) continue;
        seen.add(o.flags);
        if (o.repeatable) cmd.option(o.flags, o.help, collect);
        else cmd.option(o.flags, o.help);
      }
    if (defs.some((x) => x.verify))
      cmd.option("--no-verify", "skip the chain's integrity checks on the result");
    if (ranged) {
      addBatchOptions(
        cmd.option("--range <from..to>", "every height in the range, streamed as JSON lines (batched)"),
      );
    }
    if (loose) cmd.allowExcessArguments(true);
    cmd.addHelpText("after", () => {
      const width = helpWidth(process.stdout, run.env);
      return `${wrapWords(methodHelp(name), width, "     ")}\n\n${wrapWords(GLOBAL_NOTE, width)}`;
    });
    cmd.action(async (...args: unknown[]) => {
      const command = args[args.length - 1] as Command;
      const flags = command.optsWithGlobals() as GlobalFlags & { range?: string; split?: string | boolean };
      if (flags.split !== undefined) {
        // eth_getLogs over any range: the logs workflow splits it (src/evm/logs.ts)
        const { runSplitGetLogs } = await import("./evm-run.js");
        return runSplitGetLogs(run, command.args, flags, command.opts());
      }
      if (flags.range !== undefined) {
        const def = findMethod(name, chainFromFlags(flags, run.env));
        if (!def.range)
          throw new UsageError(`--range is not available for ${name} on the ${def.group} group`);
        const { runRange } = await import("./batch.js");
        return runRange(run, def, flags.range, command.args, flags);
      }
      const { runMethod } = await import("./call.js");
      await runMethod(run, name, command.args, flags, command.opts());
    });
  }

  program
    .command("rpc")
    .description("send any method verbatim; params are JSON where they parse, else strings")
    .addHelpText("after", () => `\n${wrapWords(GLOBAL_NOTE, helpWidth(process.stdout, run.env))}`)
    .argument("<method>", "method name")
    .argument("[params...]", "positional params")
    .action(async (method: string, params: string[], _o: unknown, command: Command) => {
      const { runRaw } = await import("./call.js");
      await runRaw(run, method, params, command.optsWithGlobals() as GlobalFlags);
    });

  // a call of one registry method needs none of the families' commands (their options cost start-up)
  if (toBuild.length !== 1) for (const add of families) add(program, run);

  program
    .command("verify-message")
    .description(
      "check a signed message offline: legacy (BIP-137 and Electrum/Trezor segwit), BIP-322 simple or multisig full, EIP-191 (EVM), TIP-191 (TRON signMessageV2)",
    )
    .argument("<address>", "Bitcoin or Litecoin address (the network comes from its form), 0x… or T…")
    .argument(
      "<signature>",
      "base64 for Bitcoin/Litecoin (BIP-322: smp or ful prefix), 0x + 130 hex digits for EVM and TRON",
    )
    .argument("<message>", "the signed text")
    .addHelpText(
      "after",
      "\nPrints true or false. Exit 0 valid, 1 not valid, 2 not an address or a signature.",
    )
    .action(async (address: string, signature: string, message: string) => {
      const { verifyMessageCommand } = await import("./reserves-verify.js");
      await verifyMessageCommand(run, address, signature, message);
    });

  program
    .command("methods")
    .description("list the methods chaingw knows: params, marks and where each mark comes from")
    .option("--markdown", "as the README's markdown table")
    .action(async (o: { markdown?: boolean }) => {
      const { printMethods } = await import("./methods.js");
      printMethods(run, o.markdown === true);
    });

  return program;
}

/**
 * An unknown command: a near miss gets "did you mean"; anything else, the `chaingw rpc` line that sends
 * it verbatim (secrets in the arguments masked). Nothing is sent.
 */
function unknownCommand(name: string, argv: string[]): UsageError {
  const near = suggest(name, [...methodNames(), ...OTHER_COMMANDS.filter((c) => c !== "help")]);
  if (near.length)
    return new UsageError(`unknown command '${name}'`, {
      hint: `did you mean ${near.join(", ")}?`,
    });
  const at = argv.indexOf(name);
  let secret = false;
  const shown = argv.map((a) => {
    const hide = secret;
    secret = a === "--api-key";
    return hide ? "***" : shellQuote(a.includes("@") ? redactUrl(a) : a);
  });
  shown.splice(at, 1, "rpc", shellQuote(name));
  return new UsageError(`unknown command '${name}': not a method chaingw knows`, {
    hint: `to send it to the node as it is:\n  chaingw ${shown.join(" ")}\n(\`chaingw methods\` lists the methods chaingw knows)`,
  });
}

/** Commander's errors as chaingw's; then the one report of src/cli/report.ts. */
function reportAny(run: Run, err: unknown, argv: string[]): number {
  if (err instanceof CommanderError) {
    if (err.code === "commander.helpDisplayed" || err.code === "commander.version") return EXIT.ok;
    // `chaingw` with no command: the help went to stderr; a script that forgot the method should notice
    if (err.code === "commander.help") return EXIT.usage;
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
  try {
    await buildProgram(argv, run).parseAsync(argv, { from: "user" });
    // commands that finish with a status of their own (batch) set it on the run
    return run.exitCode ?? EXIT.ok;
  } catch (err) {
    return reportAny(run, err, argv);
  }
}
