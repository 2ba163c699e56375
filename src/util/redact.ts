/** Secrets never print: every URL that reaches a message goes through here first. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
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

/** Registry of secret strings seen in this process; `scrub` removes them from any text we print. */
const secrets = new Set<string>();

export function registerSecret(s: string | undefined): void {
  if (s && s.length >= 4) secrets.add(s);
}

export function scrub(text: string): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join("***");
  return out;
}
