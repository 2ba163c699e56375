import { EXIT, UsageError } from "../errors/index.js";
import { bitcoinCliArgs } from "./argv.js";
import { plainCall, runPlain } from "./fast.js";
import { report, startRun } from "./lifecycle.js";
import type { OutStream, Run } from "./run.js";
import { VERSION } from "./version.js";

/**
 * Exit as soon as the answer is out: keep-alive sockets and timers would otherwise keep the process
 * alive. "Out" means flushed: stdout to a pipe whose reader is slower than us (`| jq`, `| less`) queues
 * writes asynchronously, and exiting with them queued cut a large block's JSON at 64 KB. A write callback
 * runs once everything before it has been handed to the OS (or the stream failed: EPIPE).
 */
const flushed = (s: OutStream & { destroyed?: boolean; writableLength?: number }) =>
  new Promise<void>((resolve) => {
    if (s.destroyed || s.writableLength === 0) return resolve();
    s.write("", () => resolve());
  });

/**
 * A plain method call takes the fast path (src/cli/fast.ts): commander and the command tree are not
 * loaded, the bundle evaluates them only when imported (esbuild wraps modules reached by import()).
 */
async function run(args: string[], argv: string[], r: Run): Promise<number> {
  // `--version` alone: the same line commander prints, without loading the tree
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    r.stdout.write(`${VERSION}\n`);
    return EXIT.ok;
  }
  // node reads argv as UTF-8 and puts U+FFFD where the bytes are not: refused by name, not sent altered
  const bad = args.findIndex((a) => a.includes("\uFFFD"));
  if (bad >= 0)
    return report(
      r,
      new UsageError(
        `argument ${bad + 1} is not valid UTF-8 (read as ${JSON.stringify(args[bad].slice(0, 60))}); nothing sent`,
      ),
    );
  const call = plainCall(argv);
  if (!call) return (await import("./main.js")).main(args, r);
  try {
    await runPlain(r, call);
    return r.exitCode ?? EXIT.ok;
  } catch (err) {
    return report(r, err);
  }
}

const args = process.argv.slice(2);
const argv = bitcoinCliArgs(args);
const r = startRun(argv);
// no top-level await: the bundle is CommonJS (see scripts/build.mjs)
void run(args, argv, r).then(async (code) => {
  await Promise.all([flushed(r.stdout), flushed(process.stderr)]);
  // a failed write's "error" comes a tick after its callback: it reaches lifecycle's handler (exit 1) first
  await new Promise(setImmediate);
  process.exit(code);
});
