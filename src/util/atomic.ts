/**
 * The one writer of every file chaingw writes (proofs, reports, CSV, HTML pages, the config file, serve's
 * key file): the whole text goes to a temporary file beside the target (the same file system), is flushed
 * to disk, and only then takes the target's name with one rename. A reader never sees half a file, and a
 * failure at any point (a full disk, a file-size limit, a rename refused) leaves the old file as it was, or
 * none, and no temporary file behind.
 */
import { closeSync, fsyncSync, linkSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { WriteError } from "../errors/index.js";

export interface AtomicOptions {
  /** the new file's permissions (the temporary file is made with them, so no moment is more open) */
  mode?: number;
  /** refuse to replace an existing file (EEXIST), still whole or nothing: a hard link, not a rename */
  exclusive?: boolean;
}

let made = 0;

/**
 * Writes `text` to `path` whole or not at all. `what` names the output in the error (`--proof`, `--html`):
 * `${what}: cannot write ${path}: ${code}`; its `cause` is the system's error (EEXIST, ENOSPC, EFBIG…).
 */
export function writeAtomic(
  path: string,
  text: string | Uint8Array,
  what: string,
  o: AtomicOptions = {},
): void {
  // unique within the process and across processes; "wx" refuses a name that exists all the same
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${++made}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, "wx", o.mode ?? 0o666);
    const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : text;
    // writeSync may write less than asked (a signal, a pipe-like file system): loop until all is out
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    if (o.exclusive) linkSync(tmp, path);
    else renameSync(tmp, path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new WriteError(`${what}: cannot write ${path}: ${code ?? e}`, { cause: e });
  } finally {
    if (fd !== undefined) closeSync(fd);
    // after a rename the temporary name is gone already; after a link or a failure it is removed here
    rmSync(tmp, { force: true });
  }
}
