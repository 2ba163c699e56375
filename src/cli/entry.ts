import { EXIT } from "../errors/index.js";
import { bitcoinCliArgs } from "./argv.js";
import { plainCall, runPlain } from "./fast.js";
import { report, startRun } from "./lifecycle.js";
import { VERSION } from "./version.js";

/**
 * Exit as soon as the answer is out: keep-alive sockets and timers would otherwise keep the process
 * alive. "Out" means flushed: stdout to a pipe whose reader is slower than us (`| jq`, `| less`) queues
 * writes asynchronously, and exiting with them queued cut a large block's JSON at 64 KB. A write callback
 * runs once everything before it has been handed to the OS (or the stream failed: EPIPE).
 */
const flushed = (s: NodeJS.WriteStream) =>
  new Promise<void>((resolve) => {
    if (s.destroyed || s.writableLength === 0) return resolve();
    s.write("", () => resolve());
  });

/**
 * A plain method call takes the fast path (src/cli/fast.ts): commander and the command tree are not
 * loaded, the bundle evaluates them only when imported (esbuild wraps modules reached by import()).
 */
async function run(args: string[]): Promise<number> {
  // `--version` alone: the same line commander prints, without loading the tree
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    process.stdout.write(`${VERSION}\n`);
    return EXIT.ok;
  }
  const argv = bitcoinCliArgs(args);
  const call = plainCall(argv);
  const r = startRun(argv);
  if (!call) return (await import("./main.js")).main(args, r);
  try {
    await runPlain(r, call);
    return r.exitCode ?? EXIT.ok;
  } catch (err) {
    return report(r, err);
  }
}

// no top-level await: the bundle is CommonJS (see scripts/build.mjs)
void run(process.argv.slice(2)).then(async (code) => {
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
});
