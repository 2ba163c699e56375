import { main } from "./main.js";

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

// no top-level await: the bundle is CommonJS (see scripts/build.mjs)
void main(process.argv.slice(2)).then(async (code) => {
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
});
