/**
 * The gateway's own answers, one table: the case, the HTTP status, the JSON-RPC code, the message. The
 * spec leaves them "not shown"; these follow bitcoind (404 for an unknown method; a node's own error
 * passed through with the node's status) and the EVM gateways and providers (400 for a bad request, 401
 * and 403 for keys, 413 for size, 429 with Retry-After, 502/503/504 for upstream trouble; proxyd's and
 * EIP-1474's codes where they exist). The README's table is generated from this one (a test keeps them
 * equal) and test/serve-errors.test.ts runs the CLI against every row.
 */

export interface GatewayErrorRow {
  status: number;
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
    status: 400,
    code: -32700,
    message: "parse error",
    when: "body is not JSON, or not UTF-8",
    cli: "— (the CLI never sends it)",
  },
  invalidRequest: {
    status: 400,
    code: -32600,
    message: "invalid request",
    when: "not a JSON-RPC 2.0 request object (no method, params not an array, ...), or an empty batch",
    cli: "— (the CLI never sends it)",
  },
  notFound: {
    status: 404,
    code: -32001,
    message: "unknown product",
    when: "path is not /v1/{product_id} of a configured product",
    cli: 'next gateway; exit 3, "wrong URL or product?"',
  },
  notPost: {
    status: 405,
    code: -32600,
    message: "only POST is served",
    when: "HTTP method other than POST (Allow: POST)",
    cli: "— (the CLI always POSTs)",
  },
  noKey: {
    status: 401,
    code: -32002,
    message: "unauthorized: missing X-API-Key",
    when: "no X-API-Key header",
    cli: "exit 4, authentication refused",
  },
  badKey: {
    status: 401,
    code: -32002,
    message: "unauthorized: unknown API key",
    when: "X-API-Key not in the key file (or revoked)",
    cli: "exit 4, authentication refused",
  },
  forbidden: {
    status: 403,
    code: -32003,
    message: "forbidden: this API key may not use the product",
    when: "a valid key on a product it is not allowed",
    cli: "exit 4, authentication refused",
  },
  bodyTooLarge: {
    status: 413,
    code: -32021,
    message: "request body too large",
    when: "body over maxBodyBytes (default 1 MiB)",
    cli: "next gateway; exit 3 naming HTTP 413 (`reserves scan` splits its objects on it)",
  },
  batchTooLarge: {
    status: 413,
    code: -32014,
    message: "batch too large",
    when: "a batch array of more than maxBatch entries (default 1000)",
    cli: "`batch` re-sends the array's entries one by one",
  },
  methodNotFound: {
    status: 404,
    code: -32601,
    message: "method not found",
    when: "method not in the product's chain group in the registry, nor in its allow list",
    cli: "exit 1 with the message",
  },
  invalidParams: {
    status: 400,
    code: -32602,
    message: "invalid params",
    when: "params fail the registry's checks (the message names the parameter), named params (an object: the registry's methods take them by position), or eth_getLogs wider than the product's block-range cap",
    cli: "exit 1 with the message (the CLI's own checks stop it first: exit 2, nothing sent)",
  },
  rateLimited: {
    status: 429,
    code: -32005,
    message: "rate limit exceeded",
    when: "a heavy method over its per-key or per-product token bucket; Retry-After says when (seconds)",
    cli: "idempotent methods: wait Retry-After, then retry; others exit 3, not retried",
  },
  noUpstream: {
    status: 503,
    code: -32011,
    message: "no healthy upstream",
    when: "every upstream of the product is out of the rotation (health checks); Retry-After: the check interval",
    cli: "idempotent: next gateway, then retries with backoff; others exit 3",
  },
  upstreamFailed: {
    status: 502,
    code: -32010,
    message: "upstream failed",
    when: "the upstreams tried failed in transport (refused, reset, 5xx without a JSON-RPC body, garbage)",
    cli: "idempotent: next gateway / retry; others exit 3, not retried",
  },
  timeout: {
    status: 504,
    code: -32015,
    message: "upstream timed out",
    when: "no answer within requestTimeout (scantxoutset start: scanTimeout)",
    cli: "idempotent: next gateway / retry; others exit 3, not retried",
  },
  internal: {
    status: 500,
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
  get status(): number {
    return this.row.status;
  }
  get code(): number {
    return this.row.code;
  }
}

/** The README's table of the gateway's answers, from {@link GATEWAY_ERRORS}. */
export function errorTableMarkdown(): string {
  const rows = [
    "| case | HTTP status | JSON-RPC code | message | what the chaingw CLI does |",
    "|---|---|---|---|---|",
  ];
  for (const r of Object.values(GATEWAY_ERRORS) as GatewayErrorRow[])
    rows.push(`| ${r.when} | ${r.status} | ${r.code} | \`${r.message}\` | ${r.cli} |`);
  rows.push(
    "| the node answered with a JSON-RPC error (-5 block not found, a revert, ...) | the node's own (bitcoind: 500; EVM: 200) | the node's own | the node's own, unchanged | exit 1, never retried elsewhere |",
  );
  return rows.join("\n");
}
