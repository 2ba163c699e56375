/**
 * The global options as data: commander builds them from this list (src/cli/main.ts), the fast path of a
 * plain method call reads argv with it (src/cli/fast.ts), completion lists them. One list, three readers.
 * The options of the settings table (timeouts, retries, rates, --verbose, --insecure) come from its rows.
 */
import { SETTINGS, settingRow } from "../config/settings.js";
import { FORMATS } from "../output/format.js";
import { LOCAL_HOMES, LOCAL_NETWORKS } from "./help-lists.js";

export interface GlobalOption {
  /** commander's flags text: "-v, --verbose", "--url <url>", "--no-color" */
  flags: string;
  help: string;
  /** repeatable: every value, in order */
  repeatable?: boolean;
  hidden?: boolean;
  choices?: readonly string[];
}

function fromSettings(name: string): GlobalOption {
  const r = settingRow(name);
  return { flags: r.flags, help: r.help };
}

export const GLOBAL_OPTIONS: readonly GlobalOption[] = [
  {
    flags: "--url <url>",
    help: "JSON-RPC node URL, repeatable, in failover order; user:pass@ is sent as Basic auth (env CHAINGW_URL)",
    repeatable: true,
  },
  {
    flags: "--rpc-url <url>",
    help: "the same as --url, repeatable (cast's name; env ETH_RPC_URL for EVM groups)",
    repeatable: true,
  },
  { flags: "--rpc-cookie <file>", help: "read Basic-auth credentials from a node cookie file" },
  {
    flags: "--gateway <base-url>",
    help: "gateway base URL, repeatable; requests go to <base-url>/v1/<product> (env CHAINGW_GATEWAY)",
    repeatable: true,
  },
  {
    flags: "--product <id>",
    help: "gateway product id, repeatable: one for all gateways or one per gateway, in order (env CHAINGW_PRODUCT)",
    repeatable: true,
  },
  { flags: "--api-key-file <path>", help: "file holding the gateway API key (env CHAINGW_API_KEY)" },
  {
    flags: "--api-key <key>",
    help: "API key on the command line (visible in the process list; prefer env or file)",
    hidden: true,
  },
  {
    flags: "--chain <group>",
    help: "utxo, evm or evm-compat: picks the group where a method exists in several (env CHAINGW_CHAIN)",
  },
  {
    flags: "--profile <name>",
    help: "config profile (env CHAINGW_PROFILE; file at $CHAINGW_CONFIG or $XDG_CONFIG_HOME/chaingw/config.json)",
  },
  { flags: "--json", help: "print exactly the result as JSON, number tokens untouched (= --format json)" },
  {
    flags: "--format <format>",
    help: "output: human, json, jsonl (JSON Lines: one element a line) or csv (commands with a table)",
    choices: FORMATS,
  },
  { flags: "--pretty", help: "with --json: indented JSON to read (compact without)" },
  fromSettings("verbose"),
  { flags: "--no-color", help: "no colour (also NO_COLOR, TERM=dumb)" },
  // the settings of the table (src/config/settings.ts): flag, help and default written there once
  ...SETTINGS.filter((r) => r.setting !== "verbose").map((r) => fromSettings(r.setting)),
  { flags: "--named", help: "params as name=value, after any positional ones (bitcoin-cli -named)" },
  { flags: "--stdin", help: "more params from stdin, one a line, after the others (bitcoin-cli -stdin)" },
  {
    flags: "--wait",
    help: "retry until the node can be reached, up to --wait-timeout (bitcoin-cli -rpcwait)",
  },
  { flags: "--wait-timeout <s>", help: "how long --wait keeps trying (default 60; 0 = no limit)" },
  {
    flags: "--network <name>",
    help: `${LOCAL_NETWORKS} (those its coin has): a local node's port and cookie when no endpoint is set (env CHAINGW_NETWORK)`,
  },
  {
    flags: "--datadir <dir>",
    help: `the local node's data directory (default ${LOCAL_HOMES}; env CHAINGW_DATADIR)`,
  },
  {
    flags: "--rpc-port <port>",
    help: "the local node's RPC port, its cookie still found (bitcoin-cli -rpcport)",
  },
  { flags: "--rpc-host <host>", help: "the local node's host (bitcoin-cli -rpcconnect; default 127.0.0.1)" },
  {
    flags: "--rpc-user <user>",
    help: "the node's rpcuser (bitcoin-cli -rpcuser), with --rpc-password or CHAINGW_RPC_PASSWORD",
  },
  {
    flags: "--rpc-password <password>",
    help: "the node's rpcpassword on the command line (visible in the process list; prefer CHAINGW_RPC_PASSWORD, the cookie or a profile)",
    hidden: true,
  },
  {
    flags: "--rpc-wallet <name>",
    help: "a node wallet's endpoint: <url>/wallet/<name> (bitcoin-cli -rpcwallet)",
  },
];

/** How argv names an option, and where its value goes (commander's camelCase key). */
export interface OptionRead {
  key: string;
  takesValue: boolean;
  repeatable: boolean;
  /** --no-x: sets key x to false */
  negate: boolean;
  choices?: readonly string[];
}

let names: Map<string, OptionRead> | undefined;
/** "--url" / "-v" → how to read it; built on first use. */
export function optionNamed(arg: string): OptionRead | undefined {
  if (!names) {
    names = new Map();
    // "[-x, ]--[no-]name[ <value>]", read with string operations: a plain call builds this once per process,
    // and a regular expression's first run (compiled then, never cached) cost more than the rest of it
    for (const o of GLOBAL_OPTIONS) {
      let f = o.flags;
      let short: string | undefined;
      if (f[1] !== "-") {
        short = f.slice(0, f.indexOf(","));
        f = f.slice(short.length + 2);
      }
      const space = f.indexOf(" ");
      const long = space < 0 ? f : f.slice(0, space);
      const negate = long.startsWith("--no-");
      const parts = long.slice(negate ? 5 : 2).split("-");
      const key =
        parts[0] +
        parts
          .slice(1)
          .map((w) => w[0].toUpperCase() + w.slice(1))
          .join("");
      const read = {
        key,
        takesValue: space >= 0,
        repeatable: o.repeatable === true,
        negate,
        choices: o.choices,
      };
      names.set(long, read);
      if (short) names.set(short, read);
    }
  }
  return names.get(arg);
}
