/**
 * What an HTTP exchange gives back, whichever client made it (node's, or the raw HTTP/1.1 one of wire.ts):
 * the answer, read off a raw header list, and a socket failure in words.
 */
export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** the body as UTF-8 text */
  readonly text: string;
  /** the body's bytes, when it came off the wire (a batch answer is copied out of them, not re-encoded) */
  readonly bytes?: Buffer;
  /** one header by its lower-case name, when it can be read without building `headers` */
  header?(lowerName: string): string | undefined;
}

/**
 * An answer off the wire (node's client, or serve's own in rpc/wire.ts): the text is decoded on first use
 * (a batch answer may never need it), a header read off the raw list (the common answer needs one).
 */
export class WireResult implements HttpResult {
  private decoded?: string;
  private built?: Record<string, string | string[] | undefined>;
  constructor(
    readonly status: number,
    /** name, value, name, value, … as received (node's `rawHeaders`) */
    private readonly rawHeaders: string[],
    readonly bytes: Buffer,
    /** the headers object, when node has one to build (else made from the raw list) */
    private readonly headersOf?: () => Record<string, string | string[] | undefined>,
  ) {}
  get headers(): Record<string, string | string[] | undefined> {
    if (this.headersOf) return this.headersOf();
    if (!this.built) {
      const h: Record<string, string> = {};
      for (let i = 0; i + 1 < this.rawHeaders.length; i += 2) {
        const name = (this.rawHeaders[i] as string).toLowerCase();
        h[name] ??= this.header(name) as string;
      }
      this.built = h;
    }
    return this.built;
  }
  /** One header, read off the raw list without building the headers object (repeats joined as node does). */
  header(lowerName: string): string | undefined {
    return rawHeader(this.rawHeaders, lowerName);
  }
  get text(): string {
    this.decoded ??= this.bytes.toString("utf8");
    return this.decoded;
  }
}

/**
 * A header of a raw list (node's `rawHeaders`: name, value, …) by its lower-case name, without the headers
 * object node builds on first read of `headers`; a repeated one joined with ", " as that object has it.
 */
export function rawHeader(raw: string[], lowerName: string): string | undefined {
  let found: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const n = raw[i] as string;
    if (n.length === lowerName.length && (n === lowerName || n.toLowerCase() === lowerName))
      found = found === undefined ? raw[i + 1] : `${found}, ${raw[i + 1]}`;
  }
  return found;
}

export const UNSENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "CONNECT_TIMEOUT",
  "EPROTO",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "CERT_HAS_EXPIRED",
  "ERR_SSL_WRONG_VERSION_NUMBER",
]);

export function describeNetError(err: any): { msg: string; code: string } {
  const code: string = err?.code ?? err?.cause?.code ?? "";
  const friendly: Record<string, string> = {
    ECONNREFUSED: "connection refused",
    ENOTFOUND: "host not found (DNS)",
    EAI_AGAIN: "DNS lookup failed",
    CONNECT_TIMEOUT: "connect timed out",
    ECONNRESET: "connection reset by the upstream",
    EHOSTUNREACH: "host unreachable",
    ENETUNREACH: "network unreachable",
  };
  if (friendly[code]) return { msg: friendly[code], code };
  // OpenSSL's answer to a server that replied in plain text to our TLS hello
  if (code === "ERR_SSL_WRONG_VERSION_NUMBER" || /wrong version number/i.test(String(err?.message)))
    return {
      msg: "TLS handshake failed: the endpoint speaks plain HTTP, not HTTPS (give the URL as http://)",
      code,
    };
  if (/CERT|TLS|SSL/.test(code)) return { msg: `TLS handshake failed (${code})`, code };
  return { msg: String(err?.message ?? err).split("\n")[0] + (code ? ` (${code})` : ""), code };
}
