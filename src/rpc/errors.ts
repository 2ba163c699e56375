/**
 * One error base for everything chaingw reports. The exit code is decided here, by class, and nowhere
 * else; the top-level handler prints `message` (one line) and exits with `exitCode`.
 */

export const EXIT = {
  ok: 0,
  rpc: 1,
  usage: 2,
  transport: 3,
  auth: 4,
  interrupted: 130,
} as const;

export class ChaingwError extends Error {
  exitCode: number = EXIT.rpc;
  /** JSON-RPC-ish code for `--json` error output. */
  code: number | string = "error";
  /** Extra lines shown under the message in human mode (never secrets). */
  hint?: string;
  constructor(message: string, opts: { cause?: unknown; hint?: string } = {}) {
    super(message, { cause: opts.cause });
    this.hint = opts.hint;
  }
}

/** Bad usage or invalid params: nothing was sent. */
export class UsageError extends ChaingwError {
  override exitCode: number = EXIT.usage;
  override code: number | string = "usage";
}

/** The node answered with a JSON-RPC error object. */
export class RpcError extends ChaingwError {
  override exitCode: number = EXIT.rpc;
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
  override exitCode: number = EXIT.transport;
  override code: number | string = "transport";
  /** the (one, not retried) attempt ran out of its request timeout */
  timedOut = false;
}

/** The upstream refused our credentials (HTTP 401/403). */
export class AuthError extends ChaingwError {
  override exitCode: number = EXIT.auth;
  override code: number | string = "auth";
}

export class InterruptedError extends ChaingwError {
  override exitCode: number = EXIT.interrupted;
  override code: number | string = "interrupted";
}

/** An error as the JSON `error` object of `--json` and of batch lines; `endpoint` for `--json` only. */
export function errorPayload(e: ChaingwError, withEndpoint = false): Record<string, unknown> {
  const p: Record<string, unknown> = {
    code: e.code,
    message: e instanceof RpcError ? e.rpcMessage : e.message,
  };
  if (e instanceof RpcError) {
    if (withEndpoint) p.endpoint = e.endpoint;
    if (e.data !== null && e.data !== undefined) p.data = e.data;
  }
  return p;
}
