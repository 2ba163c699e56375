/** Secrets never print: every URL that reaches a message goes through here first. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    // searchParams is built on first use (~0.3 ms of a one-call process): only when there is a query
    if (u.search)
      for (const k of [...u.searchParams.keys()]) {
        if (/key|token|secret|pass|auth/i.test(k)) u.searchParams.set(k, "***");
      }
    return u.toString();
  } catch {
    // not a URL: drop everything up to the last @ (a password may hold '/', '@' or spaces); with no @,
    // a "user:pass" cut short (a list split inside a password) may follow the //, so hide it all
    if (/\/\/.*@/s.test(url)) return url.replace(/\/\/.*@/s, "//***@");
    return url.replace(/\/\/[^/]*:[^/]*/s, "//***");
  }
}

/**
 * What a URL carries that is secret besides its user and password: the password (and `user:password`), the
 * values of key-like query parameters, and a provider's key in the path (`…/v3/KEY`: the path, and every
 * segment of 16 characters or more). Added to a run's Secrets, they are scrubbed from whatever it prints.
 */
export function urlSecrets(url: string): string[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  const out: string[] = [];
  const add = (s: string) => {
    out.push(s);
    // a secret as a URL spells it, and as its value (%-decoded)
    try {
      const d = decodeURIComponent(s);
      if (d !== s) out.push(d);
    } catch {}
  };
  if (u.password) {
    add(u.password);
    add(`${u.username}:${u.password}`);
  }
  for (const [k, v] of u.searchParams) if (/key|token|secret|pass|auth/i.test(k) && v) add(v);
  if (u.pathname.length > 1) {
    const path = u.pathname.replace(/\/+$/, "");
    if (path.length > 1) add(path);
    for (const seg of path.split("/")) if (seg.length >= 16) add(seg);
  }
  return out;
}

/**
 * The secret strings one run has seen (passwords, API keys, Basic tokens); `scrub` removes them from any
 * text before it is printed. One per run (the face's Run), handed to whoever reads secrets.
 */
export class Secrets {
  private readonly seen = new Set<string>();

  add(s: string | undefined): void {
    if (s && s.length >= 4) this.seen.add(s);
  }

  /** `text` with every secret seen replaced by *** (an arrow function: it is handed around as a value) */
  readonly scrub = (text: string): string => {
    let out = text;
    for (const s of this.seen) if (out.includes(s)) out = out.split(s).join("***");
    return out;
  };
}
