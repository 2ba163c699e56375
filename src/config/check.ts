/**
 * The config file's shape, checked by the one JSON checker (src/util/jsoncheck.ts): every key known,
 * every value of its type, reported with the file's line and a did-you-mean. It runs whenever the file is
 * loaded (a mistyped key silently ignored was the bug) and under `chaingw config check`. Keys starting
 * with "//" are comments.
 */
import { CHAIN_NAMES } from "../chains/index.js";
import { parseWithLines, problems, type Shape } from "../util/jsoncheck.js";
import { suggest } from "../util/text.js";
import { localNetworks } from "./node-layout.js";
import { SETTINGS } from "./settings.js";

const text: Shape = { kind: "string" };
const number: Shape = { kind: "number" };
const strings: Shape = {
  kind: "either",
  shapes: [text, { kind: "array", items: text }],
  expected: "a string or a list of strings",
};

/** The keys of a profile, and their shapes (src/config/config.ts Profile says what each means). */
export const PROFILE_KEYS: Record<string, Shape> = {
  url: strings,
  rpcCookie: text,
  gateway: strings,
  product: strings,
  apiKey: text,
  apiKeyFile: text,
  chain: { kind: "string", oneOf: CHAIN_NAMES },
  network: { kind: "string", oneOf: [...localNetworks(), "mainnet", "testnet"] },
  datadir: text,
  // the numeric settings a profile may set: the settings table's rows with a profile key
  ...Object.fromEntries(SETTINGS.flatMap((r) => (r.profile ? [[r.profile, number]] : []))),
  limits: { kind: "map", values: { kind: "map", values: number } },
};

const FILE: Shape = {
  kind: "object",
  comments: true,
  keys: {
    defaultProfile: text,
    profiles: { kind: "map", comments: true, values: { kind: "object", comments: true, keys: PROFILE_KEYS } },
  },
};

/**
 * The problems of a config file's text (valid JSON), one line each, in file order; empty when none.
 * `references`: also whether defaultProfile names a profile (`config check`; on load, selecting the
 * profile says so, and only when no --profile/CHAINGW_PROFILE overrides it).
 */
export function checkConfigText(json: string, o: { references?: boolean } = {}): string[] {
  const { value, lines } = parseWithLines(json, "config file");
  const out = problems(value, FILE, "", lines);
  const file = value as { defaultProfile?: unknown; profiles?: unknown };
  const def = o.references ? file?.defaultProfile : undefined;
  if (typeof def === "string") {
    const profiles = file.profiles;
    const names =
      typeof profiles === "object" && profiles !== null
        ? Object.keys(profiles).filter((k) => !k.startsWith("//"))
        : [];
    if (!names.includes(def)) {
      const near = suggest(def, names, 1);
      out.push(
        `line ${lines.get("defaultProfile")}: defaultProfile: no profile ${JSON.stringify(def)}${near.length ? `; did you mean ${JSON.stringify(near[0])}?` : names.length ? ` (profiles: ${names.join(", ")})` : ""}`,
      );
    }
  }
  return out.sort((a, b) => Number(/\d+/.exec(a)?.[0]) - Number(/\d+/.exec(b)?.[0]));
}
