/** The actions of `chaingw config …`: the config file written, shown and checked. */
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { checkConfigText } from "../config/check.js";
import { configPath, describeSettings, type GlobalFlags, loadConfig } from "../config/config.js";
import { UsageError } from "../errors/index.js";
import type { Run } from "./context.js";

/** The starter file: every profile key appears in one of the examples; "//" keys are comments. */
const STARTER = `{
  "//": "chaingw config. \`chaingw config check\` checks this file, \`chaingw config show\` shows what a call uses and where each setting comes from. Keys starting with // are comments. Precedence: flag > env > profile > default.",
  "defaultProfile": "local",
  "profiles": {
    "local": {
      "//": "A local bitcoind-family node (Bitcoin Core, Litecoin Core): its port and .cookie are found from network (main, test, regtest, signet) and datadir (default ~/.bitcoin, else ~/.litecoin). No chain here: eth_ methods still mean the EVM group.",
      "network": "main"
    },
    "node": {
      "//": "A node by URL. rpcCookie: its cookie file; a user:pass@ in the url works too (then chmod 600 this file).",
      "chain": "utxo",
      "url": ["http://127.0.0.1:8332/", "http://127.0.0.1:18332/"],
      "rpcCookie": "/home/me/.bitcoin/.cookie",
      "retries": 2,
      "timeout": 60,
      "requestTimeout": 30,
      "connectTimeout": 2,
      "scanTimeout": 3600
    },
    "eth": {
      "//": "An EVM node.",
      "chain": "evm",
      "url": "http://127.0.0.1:8545/"
    },
    "gateway": {
      "//": "A gateway: base URLs in failover order, the product id, the API key in a file only you can read (or CHAINGW_API_KEY). heavyRate: calls/s of heavy methods; limits: calls/s per product and method.",
      "chain": "evm",
      "gateway": ["https://gateway.example/"],
      "product": "PRODUCT_ID",
      "apiKeyFile": "/home/me/.config/chaingw/api-key",
      "heavyRate": 2,
      "limits": { "PRODUCT_ID": { "eth_getLogs": 2 } }
    }
  }
}
`;

export function configInit(run: Run, path = configPath(run.env)): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  let fd: number;
  try {
    // "wx": never overwrite; 0600: the file may come to hold a key
    fd = openSync(path, "wx", 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST")
      throw new UsageError(`config init: ${path} exists; not overwriting it`, {
        hint: "`chaingw config check` checks it; `chaingw config show` shows what it sets. Remove it first for a fresh starter.",
      });
    throw new UsageError(`config init: cannot write ${path}: ${(e as NodeJS.ErrnoException).code ?? e}`);
  }
  try {
    writeSync(fd, STARTER);
  } finally {
    closeSync(fd);
  }
  run.out(run.machine ? JSON.stringify({ written: path }) : `wrote ${path}`);
  if (!run.machine)
    run.err(
      'Edit it, then `chaingw config check`. Profile "local" is the default: a local node found as bitcoin-cli finds it.',
    );
}

export function configShow(run: Run, flags: GlobalFlags): void {
  const rows = describeSettings(flags, run.env);
  if (run.machine) {
    run.out(JSON.stringify(rows, null, run.format === "json" ? 2 : 0));
    return;
  }
  const w = Math.max(...rows.map((r) => r.setting.length));
  const v = Math.min(60, Math.max(...rows.map((r) => r.value.length)));
  run.out(rows.map((r) => `${r.setting.padEnd(w)}  ${r.value.padEnd(v)}  ${r.source}`.trimEnd()).join("\n"));
}

export function configCheck(run: Run): void {
  const path = configPath(run.env);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT" && !run.env.CHAINGW_CONFIG) {
      run.out(
        run.machine
          ? JSON.stringify({ path, exists: false })
          : `no config file at ${path} (nothing to check; \`chaingw config init\` writes one)`,
      );
      return;
    }
    throw new UsageError(`cannot read config file ${path}: ${(e as NodeJS.ErrnoException).code ?? e}`);
  }
  // not JSON: the loader's message names the line
  const { file } = (() => {
    try {
      JSON.parse(text);
    } catch {
      loadConfig(run.env);
    }
    return { file: JSON.parse(text) as { profiles?: Record<string, unknown> } };
  })();
  const problems = checkConfigText(text, { references: true });
  if (problems.length)
    throw new UsageError(
      `config file ${path}: ${problems.length} problem${problems.length === 1 ? "" : "s"}`,
      {
        details: problems,
      },
    );
  const names = Object.keys(file.profiles ?? {});
  run.out(
    run.machine
      ? JSON.stringify({ path, ok: true, profiles: names })
      : `${path}: ok (${names.length} profile${names.length === 1 ? "" : "s"}${names.length ? `: ${names.join(", ")}` : ""})`,
  );
}

export function configProfiles(run: Run): void {
  try {
    const { file } = loadConfig(run.env);
    const names = Object.keys(file?.profiles ?? {});
    if (names.length) run.out(names.join("\n"));
  } catch {
    // completion asks this on every <TAB>: a broken file lists nothing, silently
  }
}
