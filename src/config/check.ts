/**
 * The config file's checker: every key known, every value of its type, reported with the file's line and
 * a did-you-mean. It runs whenever the file is loaded (a mistyped key silently ignored was the bug) and
 * under `chaingw config check`. Keys starting with "//" are comments.
 */
import { CHAIN_NAMES } from "../chains/index.js";
import { suggest } from "../util/text.js";
import { NETWORKS } from "./node-layout.js";

type Type =
  | "string"
  | "number"
  | "strings"
  | { enum: readonly string[] }
  | { record: Type; what: string }
  | { object: Record<string, Type>; what: string };

/** The keys of a profile, and their types (src/config/config.ts Profile says what each means). */
export const PROFILE_KEYS: Record<string, Type> = {
  url: "strings",
  rpcCookie: "string",
  gateway: "strings",
  product: "strings",
  apiKey: "string",
  apiKeyFile: "string",
  chain: { enum: CHAIN_NAMES },
  network: { enum: [...NETWORKS, "mainnet", "testnet"] },
  datadir: "string",
  retries: "number",
  timeout: "number",
  requestTimeout: "number",
  connectTimeout: "number",
  scanTimeout: "number",
  heavyRate: "number",
  limits: { record: { record: "number", what: "method" }, what: "product" },
};

const FILE: Type = {
  object: {
    defaultProfile: "string",
    profiles: { record: { object: PROFILE_KEYS, what: "profile key" }, what: "profile" },
  },
  what: "top-level key",
};

/** A JSON value with the line each of its object's keys is on. */
interface Node {
  value: unknown;
  line: number;
  keys?: Map<string, Node>;
  items?: Node[];
}

/** A small JSON reader that keeps lines (the text already passed JSON.parse: no error handling needed). */
function read(text: string): Node {
  let i = 0;
  let line = 1;
  const ws = () => {
    for (; i < text.length && /\s/.test(text[i]); i++) if (text[i] === "\n") line++;
  };
  const str = (): string => {
    const start = i;
    for (i++; text[i] !== '"'; i++) if (text[i] === "\\") i++;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (): Node => {
    ws();
    const at = line;
    const c = text[i];
    if (c === "{") {
      i++;
      const keys = new Map<string, Node>();
      const out: Record<string, unknown> = {};
      ws();
      if (text[i] === "}") i++;
      else
        for (;;) {
          ws();
          const keyLine = line;
          const k = str();
          ws();
          i++; // :
          const v = value();
          v.line = keyLine;
          keys.set(k, v);
          out[k] = v.value;
          ws();
          if (text[i++] === "}") break;
        }
      return { value: out, line: at, keys };
    }
    if (c === "[") {
      i++;
      const items: Node[] = [];
      ws();
      if (text[i] === "]") i++;
      else
        for (;;) {
          items.push(value());
          ws();
          if (text[i++] === "]") break;
        }
      return { value: items.map((n) => n.value), line: at, items };
    }
    if (c === '"') return { value: str(), line: at };
    const m = /^(true|false|null|-?[0-9.eE+-]+)/.exec(text.slice(i, i + 400));
    i += m ? m[0].length : 1;
    return { value: m ? JSON.parse(m[0]) : null, line: at };
  };
  return value();
}

const typeName = (v: unknown) =>
  v === null ? "null" : Array.isArray(v) ? "an array" : typeof v === "object" ? "an object" : `a ${typeof v}`;
const shown = (v: unknown) => (typeof v === "string" ? JSON.stringify(v.slice(0, 40)) : typeName(v));

function checkNode(n: Node, t: Type, path: string, out: string[]): void {
  const at = (msg: string) => out.push(`line ${n.line}: ${path}: ${msg}`);
  if (t === "string") {
    if (typeof n.value !== "string") at(`expected a string, got ${shown(n.value)}`);
  } else if (t === "number") {
    if (typeof n.value !== "number") at(`expected a number, got ${shown(n.value)}`);
  } else if (t === "strings") {
    const ok =
      typeof n.value === "string" || (Array.isArray(n.value) && n.value.every((x) => typeof x === "string"));
    if (!ok) at(`expected a string or an array of strings, got ${shown(n.value)}`);
  } else if ("enum" in t) {
    if (typeof n.value !== "string" || !t.enum.includes(n.value)) {
      const near = typeof n.value === "string" ? suggest(n.value, t.enum, 1) : [];
      at(
        `expected one of ${t.enum.join(", ")}, got ${shown(n.value)}${near.length ? ` (did you mean ${JSON.stringify(near[0])}?)` : ""}`,
      );
    }
  } else {
    if (!n.keys) {
      at(`expected an object, got ${shown(n.value)}`);
      return;
    }
    for (const [k, child] of n.keys) {
      if (k.startsWith("//")) continue;
      const p = path ? `${path}.${k}` : k;
      if ("record" in t) checkNode(child, t.record, p, out);
      else if (Object.hasOwn(t.object, k)) checkNode(child, t.object[k], p, out);
      else {
        const near = suggest(k, Object.keys(t.object), 1);
        out.push(
          `line ${child.line}: unknown ${t.what} ${JSON.stringify(k)}${path ? ` in ${path}` : ""}${near.length ? `; did you mean ${JSON.stringify(near[0])}?` : `; known: ${Object.keys(t.object).join(", ")}`}`,
        );
      }
    }
  }
}

/**
 * The problems of a config file's text (valid JSON), one line each, in file order; empty when none.
 * `references`: also whether defaultProfile names a profile (`config check`; on load, selecting the
 * profile says so, and only when no --profile/CHAINGW_PROFILE overrides it).
 */
export function checkConfigText(text: string, o: { references?: boolean } = {}): string[] {
  const root = read(text);
  const out: string[] = [];
  checkNode(root, FILE, "", out);
  const def = o.references ? root.keys?.get("defaultProfile") : undefined;
  const profiles = root.keys?.get("profiles")?.keys;
  if (def && typeof def.value === "string" && !profiles?.has(def.value)) {
    const names = [...(profiles?.keys() ?? [])];
    const near = suggest(def.value, names, 1);
    out.push(
      `line ${def.line}: defaultProfile: no profile ${JSON.stringify(def.value)}${near.length ? `; did you mean ${JSON.stringify(near[0])}?` : names.length ? ` (profiles: ${names.join(", ")})` : ""}`,
    );
  }
  return out.sort((a, b) => Number(/\d+/.exec(a)?.[0]) - Number(/\d+/.exec(b)?.[0]));
}
