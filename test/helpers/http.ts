import { Agent, request } from "node:http";
import { HANG_GUARD_MS } from "./procs.js";

/** Plain HTTP POST over node:http, shared by the node helpers. Not part of the code under test. */

// No keep-alive: an idle pooled socket would outlive a stopped node and keep the worker busy.
const agent = new Agent({ keepAlive: false });

export interface PostOptions {
  /** user:pass for HTTP Basic auth. */
  auth?: { user: string; password: string };
  headers?: Record<string, string>;
  /** how long the socket may stay idle before the request is called hung (a loaded node is slow, not wrong) @default HANG_GUARD_MS */
  timeoutMs?: number;
}

export interface PostResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Error thrown for a JSON-RPC error answer; `code` is the node's error code. */
export interface RpcError extends Error {
  code: number;
  data?: unknown;
  status: number;
}

export function basicAuth(user: string, password: string): string {
  return "Basic " + Buffer.from(`${user}:${password}`).toString("base64");
}

export function postRaw(url: string, body: string | Buffer, opts: PostOptions = {}): Promise<PostResult> {
  const u = new URL(url);
  const payload = typeof body === "string" ? Buffer.from(body) : body;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "content-length": String(payload.length),
    ...opts.headers,
  };
  // Credentials in the URL count as Basic auth, like curl does.
  const user = opts.auth?.user ?? decodeURIComponent(u.username);
  const password = opts.auth?.password ?? decodeURIComponent(u.password);
  if (user !== "" && headers.authorization === undefined) headers.authorization = basicAuth(user, password);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method: "POST",
        headers,
        agent,
        timeout: opts.timeoutMs ?? HANG_GUARD_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`POST ${u.host}${u.pathname} timed out`)));
    req.on("error", reject);
    req.end(payload);
  });
}

let nextId = 1;

/** One JSON-RPC call; resolves `result`, throws an RpcError (with `.code`) on an `error` member. */
export async function callRpc<T>(
  url: string,
  method: string,
  params: unknown[] = [],
  opts: PostOptions = {},
): Promise<T> {
  const id = nextId++;
  const res = await postRaw(url, JSON.stringify({ jsonrpc: "2.0", id, method, params }), opts);
  let parsed: { result?: unknown; error?: { code: number; message: string; data?: unknown } | null };
  try {
    parsed = JSON.parse(res.text);
  } catch {
    throw new Error(`${method}: HTTP ${res.status} with non-JSON body: ${res.text.slice(0, 200)}`);
  }
  if (parsed.error) {
    const err = new Error(`${method}: ${parsed.error.message} (code ${parsed.error.code})`) as RpcError;
    err.code = parsed.error.code;
    err.data = parsed.error.data;
    err.status = res.status;
    throw err;
  }
  return parsed.result as T;
}
