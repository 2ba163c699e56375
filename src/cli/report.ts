/**
 * What every run shares, the fast path of a plain call and the whole command tree alike: the Run created
 * once (the output format chosen before anything can fail), the signal and stream handlers, and the one
 * report of an error (one line plus details and hint, or one JSON object) with its exit code.
 */
import { asChaingwError, EXIT, errorPayload } from "../errors/index.js";
import { formatFromArgv } from "../output/format.js";
import { Run } from "./context.js";

/** Prints an error in the run's format (the same facts either way) and returns its exit code. */
export function report(run: Run, err: unknown): number {
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

/** The run of this process, with its interrupt and stream handlers installed. */
export function startRun(argv: string[]): Run {
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
  return run;
}
