/**
 * The config file and the secret files settings read: where the file is, its profiles read and checked
 * (the one shape of `check.ts`), a file of secrets refused when others can read it, the node's cookie.
 */
import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { GroupName as Group } from "../chains/index.js";
import { UsageError } from "../errors/index.js";
import { parseLossless } from "../json/lossless.js";
import type { Secrets } from "../util/redact.js";
import { checkConfigText } from "./check.js";
import type { ProfileNumbers } from "./settings.js";

/** A profile of the config file: endpoints, the chain, the key, the node's place; the numbers are the settings table's. */
export interface Profile extends ProfileNumbers {
  url?: string[] | string;
  rpcCookie?: string;
  gateway?: string[] | string;
  product?: string[] | string;
  apiKey?: string;
  apiKeyFile?: string;
  chain?: Group;
  /** a local bitcoind-family node's network and data directory (when no url or gateway is set) */
  network?: string;
  datadir?: string;
  /** per-product method rate limits (calls/s): { "<product>": { "eth_getLogs": 2 } } */
  limits?: Record<string, Record<string, number>>;
}

export interface ConfigFile {
  defaultProfile?: string;
  profiles?: Record<string, Profile>;
}

export function configPath(env: NodeJS.ProcessEnv): string {
  if (env.CHAINGW_CONFIG) return env.CHAINGW_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(base, "chaingw", "config.json");
}

/** Secrets in a file others can read are refused: the chmod to run is in the message. */
export function checkPrivate(path: string, what: string): void {
  try {
    const mode = statSync(path).mode;
    if (mode & 0o077) {
      throw new UsageError(
        `${what} ${path} is readable by other users (mode ${(mode & 0o777).toString(8)}); run: chmod 600 ${path}`,
      );
    }
  } catch (e) {
    if (e instanceof UsageError) throw e;
  }
}

export function loadConfig(env: NodeJS.ProcessEnv): { file?: ConfigFile; path: string } {
  const path = configPath(env);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e: any) {
    if (e?.code === "ENOENT" && !env.CHAINGW_CONFIG) return { path };
    throw new UsageError(`cannot read config file ${path}: ${e?.code ?? e}`);
  }
  let file: ConfigFile;
  try {
    file = JSON.parse(text) as ConfigFile;
  } catch {
    // V8's message quotes the text around the error, which may be an apiKey: give only where it is
    const at = /position (\d+)/.exec(syntaxErrorOf(text))?.[1];
    const where = at === undefined ? "" : ` (line ${lineOf(text, Number(at))})`;
    throw new UsageError(`config file ${path} is not valid JSON${where}`);
  }
  // a mistyped key must not be silently ignored: the same check as `chaingw config check`
  const problems = checkConfigText(text);
  if (problems.length)
    throw new UsageError(
      `config file ${path}: ${problems.length === 1 ? problems[0] : `${problems.length} problems`}`,
      {
        details: problems.length === 1 ? undefined : problems,
        hint: "`chaingw config check` lists them; keys starting with // are comments.",
      },
    );
  return { file, path };
}

function syntaxErrorOf(text: string): string {
  try {
    parseLossless(text);
    return "";
  } catch (e) {
    return (e as Error).message;
  }
}

const lineOf = (text: string, pos: number) => text.slice(0, pos).split("\n").length;

export function readSecretFile(path: string, what: string): string {
  checkPrivate(path, what);
  try {
    return readFileSync(path, "utf8").trim();
  } catch (e: any) {
    throw new UsageError(`cannot read ${what} ${path}: ${e?.code ?? e}`);
  }
}

export function readCookie(path: string, secrets: Secrets): { user: string; password: string } {
  const text = readSecretFile(path, "cookie file");
  const i = text.indexOf(":");
  if (i <= 0) throw new UsageError(`--rpc-cookie: ${path} does not hold user:password`);
  const cred = { user: text.slice(0, i), password: text.slice(i + 1) };
  secrets.add(cred.password);
  return cred;
}
