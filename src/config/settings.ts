/**
 * The one table of chaingw's scalar settings: one row per setting with its flag, environment variable,
 * profile key, default, parser and help. Precedence (flag > env > profile > default) is written once, in
 * `given`; `resolveSettings` reads each value through it, `config show` each value and its source, the
 * global options take their help from the rows, the config checker the profile keys' shapes. The endpoint
 * list, the API key, the profile and the chain are settings of their own (src/config/config.ts) because
 * each combines several sources; their rows in `config show` use the same `given`.
 */
import { UsageError } from "../errors/index.js";
import { parseDuration, parseWhole } from "../util/text.js";

/** Where a setting's value came from, as `config show` names it. */
export type Source = "flag" | "env" | "profile" | "default";

export const DEFAULTS = {
  retries: 2,
  timeoutS: 60,
  requestTimeoutS: 30,
  /** heavy methods' per-attempt timeout when --request-timeout is not given: bitcoin-cli's -rpcclienttimeout */
  heavyTimeoutS: 900,
  connectTimeoutS: 2,
  scanTimeoutS: 3600,
  /** a verbosity-2 block of a busy chain is tens of MB of JSON */
  maxResponseMB: 64,
  heavyRate: 2,
};

/** A raw value as it is given: flag text, env text, a profile's JSON value. */
export type Raw = string | number | boolean | undefined;

/** The scalar values of Settings the table fills. */
export interface ScalarSettings {
  retries: number;
  deadlineMs: number;
  requestTimeoutMs: number;
  connectTimeoutMs: number;
  scanTimeoutMs: number;
  maxBodyBytes: number;
  heavyRate: number;
  hedgeMs: number;
  verbose: boolean;
  insecure: boolean;
}

export interface SettingRow<
  K extends keyof ScalarSettings = keyof ScalarSettings,
  P extends string = string,
> {
  /** the name `config show` prints and the flag's long name */
  setting: string;
  /** commander's flags text for the global option */
  flags: string;
  /** GlobalFlags' key (commander's camelCase) */
  flag: string;
  env?: string;
  /** the profile key (a number in the config file) */
  profile?: P;
  /** the Settings field it fills */
  key: K;
  /** the value of what was given (undefined: nothing given, the default) */
  parse: (v: Raw) => ScalarSettings[K];
  /** the value as `config show` prints it */
  show: (v: ScalarSettings[K]) => string;
  help: string;
}

const seconds = (v: number) => `${v / 1000} s`;
/** A row, its profile key kept as a literal type (so the profile's numeric keys are typed from the table). */
const row = <K extends keyof ScalarSettings, const P extends string = never>(r: SettingRow<K, P>) =>
  r as unknown as SettingRow<keyof ScalarSettings, P>;

export const SETTINGS = [
  row({
    setting: "retries",
    flags: "--retries <n>",
    flag: "retries",
    profile: "retries",
    key: "retries",
    parse: (v) => parseWhole("--retries", v as string | number | undefined, DEFAULTS.retries, 0, 100),
    show: String,
    help: `extra passes over the endpoint list (default ${DEFAULTS.retries})`,
  }),
  row({
    setting: "timeout",
    flags: "--timeout <s>",
    flag: "timeout",
    profile: "timeout",
    key: "deadlineMs",
    parse: (v) => parseDuration("--timeout", v as string | number | undefined, DEFAULTS.timeoutS),
    show: seconds,
    help: `overall deadline for a call, retries included (default ${DEFAULTS.timeoutS})`,
  }),
  row({
    setting: "request-timeout",
    flags: "--request-timeout <s>",
    flag: "requestTimeout",
    profile: "requestTimeout",
    key: "requestTimeoutMs",
    parse: (v) =>
      parseDuration("--request-timeout", v as string | number | undefined, DEFAULTS.requestTimeoutS),
    show: seconds,
    help: `per-attempt timeout (default ${DEFAULTS.requestTimeoutS}; methods the node computes for minutes, gettxoutsetinfo, ${DEFAULTS.heavyTimeoutS}, as bitcoin-cli waits; 0 = none)`,
  }),
  row({
    setting: "connect-timeout",
    flags: "--connect-timeout <s>",
    flag: "connectTimeout",
    profile: "connectTimeout",
    key: "connectTimeoutMs",
    parse: (v) =>
      parseDuration("--connect-timeout", v as string | number | undefined, DEFAULTS.connectTimeoutS),
    show: seconds,
    help: `connect timeout (default ${DEFAULTS.connectTimeoutS})`,
  }),
  row({
    setting: "scan-timeout",
    flags: "--scan-timeout <s>",
    flag: "scanTimeout",
    profile: "scanTimeout",
    key: "scanTimeoutMs",
    parse: (v) => parseDuration("--scan-timeout", v as string | number | undefined, DEFAULTS.scanTimeoutS),
    show: seconds,
    help: `timeout of a scantxoutset start, 0 = none (default ${DEFAULTS.scanTimeoutS})`,
  }),
  row({
    setting: "max-response",
    flags: "--max-response <MB>",
    flag: "maxResponse",
    key: "maxBodyBytes",
    parse: (v) => {
      const mb = v === undefined ? DEFAULTS.maxResponseMB : Number(v);
      if (!Number.isFinite(mb) || mb <= 0)
        throw new UsageError(`invalid --max-response: expected megabytes > 0, got ${JSON.stringify(v)}`);
      return Math.round(mb * 1024 * 1024);
    },
    show: (v) => `${v / 1024 / 1024} MB`,
    help: `largest response body accepted (default ${DEFAULTS.maxResponseMB})`,
  }),
  row({
    setting: "heavy-rate",
    flags: "--heavy-rate <n>",
    flag: "heavyRate",
    profile: "heavyRate",
    key: "heavyRate",
    parse: (v) => {
      const n = Number(v ?? DEFAULTS.heavyRate);
      if (!Number.isFinite(n) || n < 0)
        throw new UsageError(
          `invalid --heavy-rate: expected calls per second >= 0, got ${JSON.stringify(v)}`,
        );
      return n;
    },
    show: (v) => `${v}/s`,
    help: `calls per second allowed for heavy methods (default ${DEFAULTS.heavyRate}; 0 = no limit)`,
  }),
  row({
    setting: "hedge",
    flags: "--hedge <s>",
    flag: "hedge",
    key: "hedgeMs",
    parse: (v) => parseDuration("--hedge", v as string | number | undefined, 0),
    show: (v) => (v ? seconds(v) : "off"),
    help: "for idempotent reads: after this delay, also ask the next endpoint (default off)",
  }),
  row({
    setting: "verbose",
    flags: "-v, --verbose",
    flag: "verbose",
    env: "CHAINGW_DEBUG",
    key: "verbose",
    // the env variable is text: set and not "0" means on
    parse: (v) => (typeof v === "string" ? v !== "" && v !== "0" : v === true),
    show: String,
    help: "log each attempt on stderr (env CHAINGW_DEBUG); never secrets",
  }),
  row({
    setting: "insecure",
    flags: "--insecure",
    flag: "insecure",
    key: "insecure",
    parse: (v) => v === true,
    show: String,
    help: "allow credentials over plain http to non-loopback hosts and skip TLS verification",
  }),
] as const;

/** The profile keys the table's rows give, each a number in the config file. */
export type ProfileNumbers = {
  [R in (typeof SETTINGS)[number] as NonNullable<R["profile"]>]?: number;
};

/** The row of a setting, by its name. */
export const settingRow = (name: string): SettingRow =>
  SETTINGS.find((r) => r.setting === name) as SettingRow;

/**
 * Precedence, once: the flag, else a non-empty environment variable, else the profile's value, else
 * nothing (the default). Every setting is read through here.
 */
export function given(
  flag: Raw,
  envValue: string | undefined,
  profileValue: Raw,
): { value: Raw; source: Source } {
  if (flag !== undefined) return { value: flag, source: "flag" };
  if (envValue !== undefined && envValue !== "") return { value: envValue, source: "env" };
  if (profileValue !== undefined) return { value: profileValue, source: "profile" };
  return { value: undefined, source: "default" };
}

/** Where a row's value comes from, for these flags, environment and profile. */
export function givenFor(
  r: SettingRow,
  flags: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  profile: Record<string, unknown>,
): { value: Raw; source: Source } {
  return given(
    flags[r.flag] as Raw,
    r.env ? env[r.env] : undefined,
    r.profile ? (profile[r.profile] as Raw) : undefined,
  );
}

/** Every scalar setting's value, each through `given` and its row's parser. */
export function scalarSettings(
  flags: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  profile: Record<string, unknown>,
): ScalarSettings {
  const out: Record<string, unknown> = {};
  for (const r of SETTINGS) out[r.key] = r.parse(givenFor(r, flags, env, profile).value);
  return out as unknown as ScalarSettings;
}
