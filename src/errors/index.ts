/**
 * One error base for everything chaingw reports, and the one table from error to exit code. Workflows
 * throw these; the face (src/cli/) prints `message`, `details` and `hint`, or, with `--json`, the same
 * facts as one object ({@link errorPayload}), and exits with {@link exitCodeOf}.
 */

export const EXIT = {
  ok: 0,
  rpc: 1,
  usage: 2,
  transport: 3,
  auth: 4,
  interrupted: 130,
} as const;

export interface ErrorOptions {
  cause?: unknown;
  /** what to do about it (shown under the message; `hint` in --json) */
  hint?: string;
  /** the facts behind a summary message, one per line: the input problems, the endpoints' answers */
  details?: string[];
  /** machine-readable facts for --json (e.g. { aborts_sent: 1, node_scanning: false }) */
  facts?: Record<string, unknown>;
}

export class ChaingwError extends Error {
  /** JSON-RPC-ish code for `--json` error output. */
  code: number | string = "error";
  hint?: string;
  details?: string[];
  facts?: Record<string, unknown>;
  constructor(message: string, opts: ErrorOptions = {}) {
    super(message, { cause: opts.cause });
    this.hint = opts.hint;
    this.details = opts.details;
    this.facts = opts.facts;
  }
  /** The exit code, from the one table ({@link exitCodeOf}). */
  get exitCode(): number {
    return exitCodeOf(this);
  }
  /**
   * Walks the cause chain: the first error (this one included) for which `match` holds, or, without
   * `match`, the deepest cause.
   */
  walk(match?: (e: unknown) => boolean): unknown {
    let e: unknown = this;
    const seen = new Set<unknown>();
    while (e && !seen.has(e)) {
      seen.add(e);
      if (match?.(e)) return e;
      const next = (e as { cause?: unknown }).cause;
      if (!next) return match ? undefined : e;
      e = next;
    }
    return match ? undefined : e;
  }
}

/** Bad usage or invalid params: nothing was sent. */
export class UsageError extends ChaingwError {
  override code: number | string = "usage";
}

/** The node answered with a JSON-RPC error object. */
export class RpcError extends ChaingwError {
  constructor(
    override readonly code: number,
    readonly rpcMessage: string,
    readonly data: unknown,
    readonly endpoint: string,
    message?: string,
  ) {
    super(message ?? `${endpoint}: error ${code}: ${rpcMessage}`);
  }
}

/** The node answered, but the answer fails a check the chain guarantees (exit 1). */
export class IntegrityError extends ChaingwError {
  override code: number | string = "integrity";
}

/** No endpoint could answer: transport failure, timeout, HTTP failure, garbage body. */
export class TransportError extends ChaingwError {
  override code: number | string = "transport";
  /** the (one, not retried) attempt ran out of its request timeout */
  timedOut = false;
  /** every attempt was refused before anything was sent (connection refused, DNS, TLS) */
  neverSent = false;
  /**
   * every attempt was refused before the node did any work: not sent, or turned away (credentials, the
   * node warming up or shutting down); what `--wait` waits through
   */
  notReady = false;
  /** some attempt's credentials were refused (HTTP 401/403) */
  authRefused = false;
}

/** The upstream refused our credentials (HTTP 401/403). */
export class AuthError extends ChaingwError {
  override code: number | string = "auth";
}

/**
 * A write chaingw could not make: stdout (a full disk, an I/O error, a file-size limit) or a file it
 * writes. Exit 1. A closed pipe on stdout is not one: the reader left (exit 0, quietly).
 */
export class WriteError extends ChaingwError {
  override code: number | string = "write";
}

/**
 * A write that failed, in one line: `what` names the stream or the file (`stdout`, `--proof: p.json`),
 * then the system's code and its words (`ENOSPC (no space left on device)`).
 */
export function writeFailed(what: string, e: unknown): WriteError {
  const code = (e as NodeJS.ErrnoException)?.code;
  const msg = String((e as Error)?.message ?? e);
  // node's "ENOSPC: no space left on device, write" → "no space left on device"
  const words =
    code && msg.startsWith(`${code}: `) ? msg.slice(code.length + 2).replace(/, \w+( .*)?$/, "") : "";
  return new WriteError(`cannot write ${what}: ${code ?? msg}${words ? ` (${words})` : ""}`, { cause: e });
}

export class InterruptedError extends ChaingwError {
  override code: number | string = "interrupted";
}

/** The one table from error to exit code, most specific class first. */
const EXIT_TABLE: [new (...a: never[]) => ChaingwError, number][] = [
  [UsageError, EXIT.usage],
  [AuthError, EXIT.auth],
  [TransportError, EXIT.transport],
  [InterruptedError, EXIT.interrupted],
  [RpcError, EXIT.rpc],
  [IntegrityError, EXIT.rpc],
];

/** The exit code for any thrown value: 1 for a node error and for anything not ours (a bug). */
export function exitCodeOf(e: unknown): number {
  for (const [cls, code] of EXIT_TABLE) if (e instanceof cls) return code;
  return EXIT.rpc;
}

/**
 * The precedence of exit codes in a run of many outcomes (batch lines, `--range`, reserves' reads), the
 * README's order: interrupted; then any call that no node could answer (3: try again later, whatever else
 * went wrong beside it); then credentials refused (4); then bad input (2: lines refused, nothing sent for
 * them); then a node's error (1); 0 when all succeeded.
 */
export const EXIT_PRECEDENCE = [EXIT.interrupted, EXIT.transport, EXIT.auth, EXIT.usage, EXIT.rpc] as const;

/** The exit code of a run of many outcomes: the first of {@link EXIT_PRECEDENCE} among them. */
export function worstExit(codes: Iterable<number>): number {
  const rank = EXIT_PRECEDENCE as readonly number[];
  let best = EXIT.ok as number;
  for (const c of codes)
    if (c !== EXIT.ok && (best === EXIT.ok || rank.indexOf(c) < rank.indexOf(best))) best = c;
  return best;
}

/** Any thrown value as our error: a bug in concurrent work still reads as one line. */
export function asChaingwError(err: unknown): ChaingwError {
  if (err instanceof ChaingwError) return err;
  return new ChaingwError(`internal error: ${(err as Error)?.message ?? String(err)}`, { cause: err });
}

/**
 * An error as the JSON `error` object of `--json` and of batch lines: the same facts the human lines
 * carry (details, hint, facts); `endpoint` for `--json` only.
 */
export function errorPayload(e: ChaingwError, withEndpoint = false): Record<string, unknown> {
  const p: Record<string, unknown> = {
    code: e.code,
    message: e instanceof RpcError ? e.rpcMessage : e.message,
  };
  if (e instanceof RpcError) {
    if (withEndpoint) p.endpoint = e.endpoint;
    if (e.data !== null && e.data !== undefined) p.data = e.data;
  }
  if (withEndpoint) {
    if (e.details?.length) p.details = e.details;
    if (e.hint) p.hint = e.hint.trim();
    if (e.facts) Object.assign(p, e.facts);
  }
  return p;
}

/** A parameter value a check refused; the caller turns it into a UsageError naming the method and param. */
export class ParamProblem extends Error {}
