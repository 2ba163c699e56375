import { redactUrl, type Secrets } from "../util/redact.js";

/** One upstream: a node URL or a gateway product URL, with the headers that authenticate to it. */
export interface Endpoint {
  /** full URL requests are POSTed to, credentials removed */
  url: string;
  /** safe to print: no user, password or key */
  label: string;
  /** Authorization / X-API-Key; never printed */
  headers: Record<string, string>;
  kind: "node" | "gateway";
}

export function nodeEndpoint(
  rawUrl: string,
  basic?: { user: string; password: string },
  secrets?: Secrets,
): Endpoint {
  const u = new URL(rawUrl);
  const headers: Record<string, string> = {};
  const user = decodeURIComponent(u.username);
  const password = decodeURIComponent(u.password);
  const cred = user || password ? { user, password } : basic;
  if (cred) {
    const token = Buffer.from(`${cred.user}:${cred.password}`).toString("base64");
    // an upstream that echoes our Authorization header back in an error must not print it either
    secrets?.add(token);
    headers.authorization = `Basic ${token}`;
  }
  u.username = "";
  u.password = "";
  return { url: u.toString(), label: redactUrl(u.toString()), headers, kind: "node" };
}

export function gatewayEndpoint(base: string, product: string, apiKey: string | undefined): Endpoint {
  const u = new URL(base);
  u.username = "";
  u.password = "";
  const path = u.pathname.replace(/\/+$/, "");
  u.pathname = `${path}/v1/${encodeURIComponent(product)}`;
  const headers: Record<string, string> = {};
  if (apiKey) headers["x-api-key"] = apiKey;
  return { url: u.toString(), label: redactUrl(u.toString()), headers, kind: "gateway" };
}

export function isLoopback(url: string): boolean {
  const h = new URL(url).hostname.replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || h.startsWith("127.");
}

/** The host:port/path a URL reaches, with every loopback name read as one host. */
function nodeKey(url: string): string {
  const u = new URL(url);
  const host = isLoopback(url) ? "loopback" : u.hostname.toLowerCase();
  const port = u.port || (u.protocol === "https:" ? "443" : "80");
  return `${host}:${port}${u.pathname.replace(/\/+$/, "")}`;
}

/** Two endpoints that reach the same server (`localhost` and `127.0.0.1` included). */
export const sameNode = (a: Endpoint, b: Endpoint): boolean => nodeKey(a.url) === nodeKey(b.url);
