/**
 * What every run shares, the fast path of a plain call and the whole command tree alike: the Run created
 * once (the output format chosen before anything can fail), the signal and stream handlers, and the one
 * report of an error (one line plus details and hint, or one JSON object) with its exit code.
 */
import {
  asChaingwError,
  EXIT,
  errorPayload,
  InterruptedError,
  TransportError,
  writeFailed,
} from "../errors/index.js";
import { formatFromArgv, prettyFromArgv } from "../output/format.js";
import { escapeJsonText } from "../util/escape.js";
import { Run } from "./run.js";

/** Prints an error in the run's format (the same facts either way) and returns its exit code. */
export function report(run: Run, err: unknown): number {
  const e = asChaingwError(err);
  // nothing configured and the local node never answered: which node chaingw looked for, and what to do
  if (e instanceof TransportError && e.neverSent && run.localNode && !e.hint)
    e.hint = `no endpoint is configured: chaingw looked for the local node, ${run.localNode} (\`chaingw config show\` says why); start it, or name the node with --url, --network or --datadir`;
  if (run.machine) {
    const payload = errorPayload(e, true);
    run.stderr.write(escapeJsonText(run.secrets.scrub(JSON.stringify({ error: payload }))) + "\n");
  } else {
    run.err(`chaingw: ${e.message}`);
    for (const d of e.details ?? []) run.err(`  ${d}`);
    if (e.hint) run.err(e.hint);
    if (e !== err && run.env.CHAINGW_DEBUG) run.err(String((err as Error)?.stack ?? ""));
  }
  return e.exitCode;
}

/** A second interrupt this soon after the first is the same one, delivered twice. */
export const SECOND_INTERRUPT_AFTER_MS = 300;

/** The run of this process, with its interrupt and stream handlers installed. */
export function startRun(argv: string[]): Run {
  // the output format is chosen once, before anything can fail
  const run = new Run(formatFromArgv(argv));
  run.pretty = prettyFromArgv(argv);
  let firstAt = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    const again = run.abort.signal.aborted;
    // signals that arrive together (GNU timeout, a launcher signalling the process group, a terminal and
    // a supervisor at once) are one interrupt: a second counts once a person could have pressed it
    if (again && Date.now() - firstAt < SECOND_INTERRUPT_AFTER_MS) return;
    if (!again) {
      firstAt = Date.now();
      run.abort.abort(sig);
    }
    // a plain call has nothing to clean up: stop now; a second interrupt quits without waiting
    if (!again && run.interrupt.handled) return;
    run.clearProgress?.();
    // said in the run's format, with what may still run on the node (the same facts in --json)
    report(
      run,
      new InterruptedError(
        again
          ? `${sig} again: ${run.interrupt.again ?? "quit without waiting for the node to confirm the abort"}`
          : "interrupted",
        {
          hint: run.interrupt.hint,
          facts: {
            interrupted_by: sig,
            ...run.interrupt.facts,
            ...(again && run.interrupt.facts ? { node_scanning: null } : {}),
          },
        },
      ),
    );
    process.exit(EXIT.interrupted);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // a bug in concurrent work (batch, reserves) still ends as one line and exit 1, not a stack dump
  process.on("unhandledRejection", (err) => {
    const code = report(run, err);
    process.exit(code === EXIT.ok ? EXIT.rpc : code);
  });
  // every write to stdout of every command ends here when it fails (the one output path: a run's data,
  // progress aside, goes through this stream): `chaingw ... | head -1` is the reader leaving, nothing more
  // to say; anything else (ENOSPC on a full disk, EFBIG past `ulimit -f`, EIO) is the run failing, said in
  // one line naming the stream, at once (what follows would be lost the same way)
  run.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(EXIT.ok);
    process.exit(report(run, writeFailed("stdout", e)));
  });
  // `2>&1 | head`: a closed stderr must not turn a diagnostic into a crash; the exit code still tells
  process.stderr.on("error", () => {});
  return run;
}
