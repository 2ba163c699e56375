/**
 * A command run in this process through the command tree (src/cli/main.ts) with the Run's output streams
 * captured: what a user sees on stdout and stderr, and the exit code, without a process start.
 */
import { tmpdir } from "node:os";
import { Writable } from "node:stream";
import { main } from "../../src/cli/main.js";
import { Run } from "../../src/cli/run.js";
import { formatFromArgv } from "../../src/output/format.js";

class Capture extends Writable {
  text = "";
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/** One command in-process: its exit code and what it wrote, each stream on its own. */
export async function inProcess(args: string[], env: NodeJS.ProcessEnv = {}) {
  const stdout = new Capture();
  const stderr = new Capture();
  const run = new Run(
    formatFromArgv(args),
    { PATH: process.env.PATH, HOME: tmpdir(), ...env },
    stdout,
    stderr,
  );
  const exitCode = await main(args, run);
  return { exitCode, stdout: stdout.text, stderr: stderr.text };
}
