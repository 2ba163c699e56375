/** `chaingw config init [--path FILE]`: a commented starter config file, never over an existing one. */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Command } from "commander";
import { configPath } from "../../../config/config.js";
import { UsageError } from "../../../errors/index.js";
import { writeAtomic } from "../../../util/atomic.js";
import { LOCAL_HOMES, LOCAL_NETWORK_NAMES, LOCAL_NODES } from "../../help-lists.js";
import type { Run } from "../../run.js";

/** The starter file: every profile key appears in one of the examples; "//" keys are comments. */
const STARTER = `{
  "//": "chaingw config. \`chaingw config check\` checks this file, \`chaingw config show\` shows what a call uses and where each setting comes from. Keys starting with // are comments. Precedence: flag > env > profile > default.",
  "defaultProfile": "local",
  "profiles": {
    "local": {
      "//": "A local bitcoind-family node (${LOCAL_NODES}): its port and .cookie are found from network (${LOCAL_NETWORK_NAMES}) and datadir (default ${LOCAL_HOMES}). No chain here: eth_ methods still mean the EVM group.",
      "network": "main"
    },
    "node": {
      "//": "A node by URL. rpcCookie: its cookie file; a user:pass@ in the url works too (then chmod 600 this file).",
      "chain": "utxo",
      "url": "http://127.0.0.1:8332/",
      "rpcCookie": "/home/me/.bitcoin/.cookie",
      "retries": 2,
      "timeout": 60,
      "requestTimeout": 30,
      "connectTimeout": 2,
      "scanTimeout": 3600
    },
    "nodes": {
      "//": "Several nodes in failover order: the same chain and network each (a mainnet and a testnet node answer different chains, so a failover between them would change the answer).",
      "chain": "utxo",
      "url": ["https://node-a.example:8332/", "https://node-b.example:8332/"]
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

export function declareInit(config: Command, run: Run): void {
  config
    .command("init")
    .description("write a commented starter config file (refuses to overwrite one)")
    .option(
      "--path <file>",
      "where to write it (default: $CHAINGW_CONFIG or $XDG_CONFIG_HOME/chaingw/config.json)",
    )
    .action((o: { path?: string }) => runInit(run, o.path));
}

export function runInit(run: Run, path = configPath(run.env)): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    // exclusive: never overwrite; 0600: the file may come to hold a key
    writeAtomic(path, STARTER, "config init", { mode: 0o600, exclusive: true });
  } catch (e) {
    const code = ((e as Error).cause as NodeJS.ErrnoException | undefined)?.code;
    if (code === "EEXIST")
      throw new UsageError(`config init: ${path} exists; not overwriting it`, {
        hint: "`chaingw config check` checks it; `chaingw config show` shows what it sets. Remove it first for a fresh starter.",
      });
    throw new UsageError((e as Error).message);
  }
  run.print({ written: path }, () => `wrote ${path}`);
  if (!run.machine)
    run.err(
      'Edit it, then `chaingw config check`. Profile "local" is the default: a local node found as bitcoin-cli finds it.',
    );
}
