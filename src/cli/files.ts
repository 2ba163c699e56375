/**
 * The files of the face: reading a named file or stdin, writing an output whole or not at all, checking an
 * output path before a long run, a proof library's refusal as a usage error naming the file, the signature
 * file, --quorum. One module the commands share, so none imports another command's file for a helper.
 */
import { accessSync, constants, existsSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type { ChainGroup } from "../chains/index.js";
import { UsageError } from "../errors/index.js";
import type { SignatureLine } from "../proof/document.js";
import { ProofInputError } from "../proof/errors.js";

/** A file's text ('-' = stdin), or a usage error naming it. */
export function readText(path: string, what: string): string {
  try {
    // a byte order mark (Windows editors write one) is not part of the JSON: read past it
    return (path === "-" ? readFileSync(0, "utf8") : readFileSync(path, "utf8")).replace(/^\uFEFF/, "");
  } catch (e) {
    throw new UsageError(`${what}: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? e}`);
  }
}

/** A proof library's refusal as a usage error naming the file and the field. */
export async function asUsage<T>(file: string, read: () => Promise<T> | T, hint?: string): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof ProofInputError)
      throw new UsageError(`${file}: ${e.field}: ${e.reason}; nothing was sent`, hint ? { hint } : {});
    throw e;
  }
}

export async function readSignatures(path: string): Promise<SignatureLine[]> {
  const { readSignatureFile } = await import("../proof/document.js");
  return asUsage(path, () => readSignatureFile(readText(path, "--signatures")));
}

/** A signature file for an account chain: every address of this chain's forms (else exit 2 naming the line). */
export async function readAccountSignatures(path: string, chain: ChainGroup): Promise<SignatureLine[]> {
  const lines = await readSignatures(path);
  const { accountOf } = await import("../reserves/evm/ownership.js");
  for (const l of lines)
    try {
      accountOf(chain, l.address);
    } catch (e) {
      throw new UsageError(`${path}: line ${l.line}: ${(e as Error).message}; nothing was sent`);
    }
  return lines;
}
/** --quorum <k>: a whole number of nodes, at least 2 (else exit 2, nothing sent). */
export function quorumOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text.trim()) || Number(text) < 2)
    throw new UsageError(`--quorum: ${JSON.stringify(text)} is not a number of nodes of at least 2`);
  return Number(text);
}

/**
 * An output file a long run will write, checked before anything is sent: its folder exists and is writable,
 * and it is not a folder itself. A run must not do its work and then lose it to a typo in a path.
 */
export function checkWritable(path: string | undefined, what: string): void {
  if (path === undefined || path === "-") return;
  const dir = dirname(path);
  try {
    if (existsSync(path) && statSync(path).isDirectory())
      throw new UsageError(`${what}: ${path} is a folder`);
    if (!statSync(dir).isDirectory()) throw new UsageError(`${what}: ${dir} is not a folder`);
    accessSync(dir, constants.W_OK);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(
      `${what}: cannot write ${path}: ${(e as NodeJS.ErrnoException).code ?? e} (${dir}); nothing was sent`,
    );
  }
}

/** The one atomic writer (src/util/atomic.ts), for the commands that take their helpers from here. */
export { writeAtomic } from "../util/atomic.js";
