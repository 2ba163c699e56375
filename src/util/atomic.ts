/**
 * The one writer of every file chaingw writes (proofs, reports, CSV, HTML pages, the config file, serve's
 * key file, a liabilities build's four files): the whole text goes to a temporary file beside the target
 * (the same file system), is flushed to disk, and only then takes the target's name with one rename. A
 * reader never sees half a file, and a failure at any point (a full disk, a file-size limit, a rename
 * refused) leaves the old file as it was, or none, and no temporary file behind.
 *
 * `writeAtomic` writes a text at once; `AtomicFile` is the same file written piece by piece (a build's tree,
 * gigabytes, written level by level and by worker threads through `tmp`), given its name by `commit()`.
 */
import {
  closeSync,
  fsyncSync,
  ftruncateSync,
  linkSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { WriteError } from "../errors/index.js";

export interface AtomicOptions {
  /** the new file's permissions (the temporary file is made with them, so no moment is more open) */
  mode?: number;
  /** refuse to replace an existing file (EEXIST), still whole or nothing: a hard link, not a rename */
  exclusive?: boolean;
}

let made = 0;

/** `${what}: cannot write ${path}: ${code}`, the system's error as its cause. */
export function cannotWrite(what: string, path: string, e: unknown): WriteError {
  if (e instanceof WriteError) return e;
  const code = (e as NodeJS.ErrnoException).code;
  return new WriteError(`${what}: cannot write ${path}: ${code ?? e}`, { cause: e });
}

/**
 * A file written under a temporary name and given `path` by `commit()`. `what` names the output in every
 * error (`--proof`, `--out`); a failure of any step removes the temporary file and throws that error.
 */
export class AtomicFile {
  /** the temporary file's path: beside the target, or in `dir` (a work directory on the same file system) */
  readonly tmp: string;
  private fd: number | undefined;
  constructor(
    readonly path: string,
    readonly what: string,
    private readonly o: AtomicOptions & { dir?: string; read?: boolean } = {},
  ) {
    // unique within the process and across processes; "wx" refuses a name that exists all the same
    this.tmp = join(o.dir ?? dirname(path), `.${basename(path)}.${process.pid}.${++made}.tmp`);
    this.fd = this.guard(() => openSync(this.tmp, o.read ? "wx+" : "wx", o.mode ?? 0o666));
  }

  /** Runs `f` on the open file; its failure is this file's (`cannotWrite`), the temporary file removed. */
  guard<T>(f: (fd: number) => T): T {
    try {
      return f(this.fd as number);
    } catch (e) {
      this.discard();
      throw cannotWrite(this.what, this.path, e);
    }
  }

  /** All of `bytes`, at `position` or at the end (writeSync may write less than asked: a loop). */
  write(bytes: string | Uint8Array, position?: number): number {
    const b = typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes;
    return this.guard((fd) => {
      for (let at = 0; at < b.length; )
        at += writeSync(
          fd,
          b,
          at,
          Math.min(b.length - at, 1 << 24),
          position === undefined ? null : position + at,
        );
      return b.length;
    });
  }

  truncate(size: number): void {
    this.guard((fd) => ftruncateSync(fd, size));
  }

  /** Flushed, closed, then given its name (a rename; a hard link when exclusive). */
  commit(): void {
    this.guard((fd) => {
      fsyncSync(fd);
      this.fd = undefined;
      closeSync(fd);
      if (this.o.exclusive) linkSync(this.tmp, this.path);
      else renameSync(this.tmp, this.path);
    });
    // after a rename the temporary name is gone already; after a link it is removed here
    rmSync(this.tmp, { force: true });
  }

  /** Closed and removed, the target untouched (a no-op once committed). */
  discard(): void {
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) closeSync(fd);
    rmSync(this.tmp, { force: true });
  }
}

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
  const f = new AtomicFile(path, what, o);
  f.write(text);
  f.commit();
}
