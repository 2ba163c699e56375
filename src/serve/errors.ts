/**
 * The gateway's own answers, one table: the case, the HTTP status, the JSON-RPC code, the message. The
 * spec leaves them "not shown". The status is chosen for what the clients people use show to their
 * application (docs/serve.md has the table per client): a JSON-RPC-level error (a bad request, an unknown
 * method, bad params, an upstream's failure) comes in an HTTP 200 to a 2.0 request — ethers v6 and web3.py
 * read no body of a non-2xx answer — and with bitcoind's statuses (400, 404, 500) to a 1.0-style one, whose
 * clients read it; a route, a key, a size and a limit keep their own statuses (404/405, 401/403, 413, 429 with
 * Retry-After), which every client acts on. Codes: proxyd's and EIP-1474's where they exist. The README's
 * table is generated from this one (a test keeps them equal) and test/serve-errors.test.ts runs the CLI
 * against every row.
 */

export interface GatewayErrorRow {
  /**
   * the HTTP status of a case that has its own (a route, a key, a size, a limit: every client reads these);
   * absent for a JSON-RPC-level error, answered in the request's dialect (`errorStatus`: 200 for 2.0)
   */
  http?: number;
  code: number;
  /** the message, or its start (details follow after ": ") */
  message: string;
  /** the case, for the README */
  when: string;
  /** what the chaingw CLI does with it, for the README */
  cli: string;
}

export const GATEWAY_ERRORS = {
  parse: {
    code: -32700,
    message: "parse error",
    when: "body is not JSON, or not UTF-8",
    cli: "— (the CLI never sends it)",
  },
  invalidRequest: {
    code: -32600,
    message: "invalid request",
    when: "not a request object the product's group takes (no method, params not an array, jsonrpc not \"2.0\" — the utxo group also takes bitcoind's 1.0-style requests), or an empty batch; the id echoed when it can be read",
    cli: "— (the CLI never sends it)",
  },
  notFound: {
    http: 404,
    code: -32001,
    message: "unknown product",
    when: "path is not /v1/{product_id} of a configured product (nor `/` with Basic auth whose user names one); the path is not said back",
    cli: 'next gateway; exit 3, "wrong URL or product?"',
  },
  notPost: {
    http: 405,
    code: -32600,
    message: "only POST is served",
    when: "HTTP method other than POST (Allow: POST)",
    cli: "— (the CLI always POSTs)",
  },
  noKey: {
    http: 401,
    code: -32002,
    message: "unauthorized: missing X-API-Key",
    when: "no X-API-Key header, nor a Basic auth password; the id echoed when the body can be read (so for 401, 403, 404)",
    cli: "exit 4, authentication refused",
  },
  badKey: {
    http: 401,
    code: -32002,
    message: "unauthorized: unknown API key",
    when: "X-API-Key (or the Basic auth password) not in the key file (or revoked)",
    cli: "exit 4, authentication refused",
  },
  forbidden: {
    http: 403,
    code: -32003,
    message: "forbidden: this API key may not use the product",
    when: "a valid key on a product it is not allowed",
    cli: "exit 4, authentication refused",
  },
  bodyTooLarge: {
    http: 413,
    code: -32021,
    message: "request body too large",
    when: "body over maxBodyBytes (default 1 MiB); the rest is read and dropped (up to 16 MiB) so the client reads the answer",
    cli: "next gateway; exit 3 naming HTTP 413 (`reserves scan` splits its objects on it)",
  },
  batchTooLarge: {
    http: 413,
    code: -32014,
    message: "batch too large",
    when: "a batch array of more than maxBatch entries (default 1000)",
    cli: "`batch` re-sends the array's entries one by one",
  },
  methodNotFound: {
    code: -32601,
    message: "method not found",
    when: "method not in the product's chain group in the registry, nor in its allow list",
    cli: "exit 1 with the message",
  },
  invalidParams: {
    code: -32602,
    message: "invalid params",
    when: "params fail the registry's checks (the message names the parameter), named params (an object: the registry's methods take them by position), or eth_getLogs wider than the product's block-range cap",
    cli: "exit 1 with the message (the CLI's own checks stop it first: exit 2, nothing sent)",
  },
  rateLimited: {
    http: 429,
    code: -32005,
    message: "rate limit exceeded",
    when: "a heavy method over its per-key or per-product token bucket; Retry-After says when (seconds)",
    cli: "idempotent methods: wait Retry-After, then retry; others exit 3, not retried",
  },
  noUpstream: {
    code: -32011,
    message: "no healthy upstream",
    when: "every upstream of the product is out of the rotation (health checks); Retry-After: the check interval",
    cli: "idempotent: next gateway, then retries with backoff; others exit 3",
  },
  upstreamFailed: {
    code: -32010,
    message: "upstream failed",
    when: "the upstreams tried failed in transport (refused, reset, 5xx without a JSON-RPC body, garbage); upstreams named by their `name` or `upstream N`, never their address, the credentials serve sent scrubbed",
    cli: "idempotent: next gateway / retry; others exit 3, not retried",
  },
  timeout: {
    code: -32015,
    message: "upstream timed out",
    when: "no answer within requestTimeout (scantxoutset start: scanTimeout)",
    cli: "idempotent: next gateway / retry; others exit 3, not retried",
  },
  internal: {
    code: -32603,
    message: "internal error",
    when: "a bug in the gateway",
    cli: "exit 1",
  },
} as const satisfies Record<string, GatewayErrorRow>;

export type GatewayErrorKind = keyof typeof GATEWAY_ERRORS;

/** A request the gateway answers itself (nothing, or nothing more, reaches an upstream). */
export class GatewayError extends Error {
  readonly row: GatewayErrorRow;
  /** the JSON text of the request's id, when it could be read: the answer carries it */
  requestId?: string;
  constructor(
    readonly kind: GatewayErrorKind,
    readonly detail?: string,
    /** seconds, for 429 and 503 */
    readonly retryAfterS?: number,
  ) {
    const row = GATEWAY_ERRORS[kind];
    super(detail ? `${row.message}: ${detail}` : row.message);
    this.row = row;
  }
  /** answered in bitcoind's 1.0 shape (the request was 1.0-style) */
  legacy?: boolean;
  /** the HTTP status of the answer to a 2.0 request */
  get status(): number {
    return this.row.http ?? 200;
  }
  get code(): number {
    return this.row.code;
  }
}

/**
 * The HTTP status of an answer carrying a JSON-RPC error (the node's or the gateway's own, outside the rows
 * with a status of their own): a 2.0 request gets 200, where every client reads the code and message (ethers
 * and web3.py check the status before the body; Bitcoin Core 28 answers 2.0 requests so); a 1.0-style one
 * bitcoind's statuses, which its clients read the body of: 400 invalid request, 404 method not found, else 500.
 */
export const errorStatus = (code: number, legacy: boolean | undefined): number =>
  !legacy ? 200 : code === -32600 ? 400 : code === -32601 ? 404 : 500;

/** The HTTP status column of a row: its own, or 200 to a 2.0 request and bitcoind's to a 1.0-style one. */
function statusText(r: GatewayErrorRow): string {
  if (r.http !== undefined) return String(r.http);
  // a body that is not JSON has no dialect to answer in
  if (r.code === -32700) return "200";
  return `200 (1.0-style: ${errorStatus(r.code, true)})`;
}

/** The README's table of the gateway's answers, from {@link GATEWAY_ERRORS}. */
export function errorTableMarkdown(): string {
  const rows = [
    "| case | HTTP status | JSON-RPC code | message | what the chaingw CLI does |",
    "|---|---|---|---|---|",
  ];
  for (const r of Object.values(GATEWAY_ERRORS) as GatewayErrorRow[])
    rows.push(`| ${r.when} | ${statusText(r)} | ${r.code} | \`${r.message}\` | ${r.cli} |`);
  rows.push(
    "| the node answered with a JSON-RPC error (-5 block not found, a revert, ...) | 200 (1.0-style: bitcoind's own, 500 or 404) | the node's own | the node's own, unchanged but for the credentials serve sent it (`***`) | exit 1, never retried elsewhere |",
  );
  return rows.join("\n");
}
