/**
 * Command wiring only: global options, one subcommand per registry method, and the top-level handler
 * that decides exit codes. Commands that only some runs need (reserves, batch) are imported on use.
 */
import { Command, CommanderError, Option } from "commander";
import type { GlobalFlags } from "../config/config.js";
import { chainFromFlags, DEFAULTS } from "../config/config.js";
import { asChaingwError, EXIT, errorPayload, UsageError } from "../errors/index.js";
import {
  definitions,
  findMethod,
  marksText,
  methodHelp,
  methodNames,
  methodTableMarkdown,
} from "../methods/index.js";
import { FORMATS, formatFromArgv } from "../output/format.js";
import { addBatchOptions } from "./batch.js";
import { families } from "./hooks.js";
import { collect } from "./options.js";
import { Run } from "./run.js";

declare const __VERSION__: string;
const VERSION = typeof __VERSION__ === "string" ? __VERSION__ : "0.0.0-dev";

function globalOptions(cmd: Command): Command {
  return cmd
    .option(
      "--url <url>",
      "JSON-RPC node URL, repeatable, in failover order; user:pass@ is sent as Basic auth (env CHAINGW_URL)",
      collect,
    )
    .option("--rpc-cookie <file>", "read Basic-auth credentials from a node cookie file")
    .option(
      "--gateway <base-url>",
      "gateway base URL, repeatable; requests go to <base-url>/v1/<product> (env CHAINGW_GATEWAY)",
      collect,
    )
    .option(
      "--product <id>",
      "gateway product id, one for all gateways or one per gateway (env CHAINGW_PRODUCT)",
      collect,
    )
    .option("--api-key-file <path>", "file holding the gateway API key (env CHAINGW_API_KEY)")
    .addOption(
      new Option(
        "--api-key <key>",
        "API key on the command line (visible in the process list; prefer env or file)",
      ).hideHelp(),
    )
    .option(
      "--chain <group>",
      "utxo, evm or evm-compat: picks the group where a method exists in several (env CHAINGW_CHAIN)",
    )
    .option(
      "--profile <name>",
      "config profile (env CHAINGW_PROFILE; file at $CHAINGW_CONFIG or $XDG_CONFIG_HOME/chaingw/config.json)",
    )
    .option("--json", "print exactly the result as JSON, number tokens untouched (= --format json)")
    .addOption(
      new Option("--format <format>", "output: human, json, jsonl (one line) or csv (reserves scan)").choices(
        FORMATS,
      ),
    )
    .option("-v, --verbose", "log each attempt on stderr (env CHAINGW_DEBUG); never secrets")
    .option("--no-color", "no colour (also NO_COLOR)")
    .option("--retries <n>", `extra passes over the endpoint list (default ${DEFAULTS.retries})`)
    .option("--timeout <s>", `overall deadline for a call, retries included (default ${DEFAULTS.timeoutS})`)
    .option("--request-timeout <s>", `per-attempt timeout (default ${DEFAULTS.requestTimeoutS})`)
    .option("--connect-timeout <s>", `connect timeout (default ${DEFAULTS.connectTimeoutS})`)
    .option(
      "--scan-timeout <s>",
      `timeout of a scantxoutset start, 0 = none (default ${DEFAULTS.scanTimeoutS})`,
    )
    .option("--max-response <MB>", `largest response body accepted (default ${DEFAULTS.maxResponseMB})`)
    .option(
      "--heavy-rate <n>",
      `calls per second allowed for heavy methods (default ${DEFAULTS.heavyRate}; 0 = no limit)`,
    )
    .option("--hedge <s>", "for idempotent reads: after this delay, also ask the next endpoint (default off)")
    .option(
      "--insecure",
      "allow credentials over plain http to non-loopback hosts and skip TLS verification",
    );
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
    if (["batch", "reserves", "rpc", "methods", "verify-message", "serve"].includes(a)) return [];
    break;
  }
  return all;
}

function buildProgram(argv: string[], run: Run): Command {
  const program = new Command("chaingw")
    .description("Query blockchain nodes and node gateways over JSON-RPC; prove reserves with scantxoutset.")
    .version(VERSION, "-V, --version")
    .exitOverride()
    .showHelpAfterError(false)
    .configureOutput({
      // help shown because no command was given goes to stderr; error messages are printed by report()
      writeErr: (t) => process.stderr.write(t),
      outputError: () => {},
    })
    .addHelpText(
      "after",
      `\nExit codes: 0 ok (null is ok), 1 node error, 2 bad usage (nothing sent), 3 no endpoint answered, 4 auth refused, 130 interrupted.\nRun \`chaingw methods\` for the method table, \`chaingw <method> --help\` for its params.`,
    );
  globalOptions(program);

  for (const name of methodsToBuild(argv, program)) {
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
    cmd.addHelpText("after", () => methodHelp(name));
    cmd.action(async (...args: unknown[]) => {
      const command = args[args.length - 1] as Command;
      const flags = command.optsWithGlobals() as GlobalFlags & { range?: string };
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
    .argument("<method>", "method name")
    .argument("[params...]", "positional params")
    .action(async (method: string, params: string[], _o: unknown, command: Command) => {
      const { runRaw } = await import("./call.js");
      await runRaw(run, method, params, command.optsWithGlobals() as GlobalFlags);
    });

  for (const add of families) add(program, run);

  program
    .command("verify-message")
    .description(
      "check a signed message offline: legacy (BIP-137 and Electrum/Trezor segwit) or BIP-322 simple",
    )
    .argument("<address>", "Bitcoin or Litecoin address (the network comes from its form)")
    .argument("<signature>", "base64 signature (BIP-322: with or without the smp prefix)")
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
    .description("list the methods chaingw knows, with params and marks")
    .option("--markdown", "as the README's markdown table")
    .action((o: { markdown?: boolean }) => {
      run.out(methodTableMarkdown());
      void o;
    });

  return program;
}

/** Prints an error in the run's format (the same facts either way) and returns its exit code. */
function report(run: Run, err: unknown): number {
  if (err instanceof CommanderError) {
    if (err.code === "commander.helpDisplayed" || err.code === "commander.version") return EXIT.ok;
    // `chaingw` with no command: the help went to stderr; a script that forgot the method should notice
    if (err.code === "commander.help") return EXIT.usage;
    const msg = err.message.replace(/^error: /, "");
    return report(run, new UsageError(msg));
  }
  const e = asChaingwError(err);
  if (run.machine) {
    const payload = errorPayload(e, true);
    process.stderr.write(run.secrets.scrub(JSON.stringify({ error: payload })) + "\n");
  } else {
    run.err(`chaingw: ${e.message}`);
    for (const d of e.details ?? []) run.err(`  ${d}`);
    if (e.hint) run.err(e.hint);
    if (e !== err && run.env.CHAINGW_DEBUG) run.err(String((err as Error)?.stack ?? ""));
  }
  return e.exitCode;
}

export async function main(argv: string[]): Promise<number> {
  // the output format is chosen once, before anything can fail
  const run = new Run(formatFromArgv(argv));
  const onSignal = (sig: NodeJS.Signals) => {
    if (run.abort.signal.aborted) {
      // a second interrupt: quit now, but say what may still run on the node
      run.err(`chaingw: ${sig} again: quitting without waiting`);
      if (run.interrupt.hint) run.err(`chaingw: ${run.interrupt.hint}`);
      process.exit(EXIT.interrupted);
    }
    run.abort.abort(sig);
    // a plain call has nothing to clean up: stop now
    if (!run.interrupt.handled) {
      run.clearProgress?.();
      run.err("chaingw: interrupted");
      if (run.interrupt.hint) run.err(run.interrupt.hint);
      process.exit(EXIT.interrupted);
    }
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // a bug in concurrent work (batch, reserves) still ends as one line and exit 1, not a stack dump
  process.on("unhandledRejection", (err) => {
    const code = report(run, err);
    process.exit(code === EXIT.ok ? EXIT.rpc : code);
  });
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    // `chaingw ... | head -1`: the reader left; nothing more to say
    if (e.code === "EPIPE") process.exit(EXIT.ok);
  });
  // `2>&1 | head`: a closed stderr must not turn a diagnostic into a crash; the exit code still tells
  process.stderr.on("error", () => {});
  try {
    await buildProgram(argv, run).parseAsync(argv, { from: "user" });
    // commands that finish with a status of their own (batch) set it on the run
    return run.exitCode ?? EXIT.ok;
  } catch (err) {
    return report(run, err);
  }
}
