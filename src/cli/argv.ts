/** Reading argv before anything else: bitcoin-cli's spellings turned into chaingw's (kept tiny: start-up path). */

/** bitcoin-cli's flags without a value, read as chaingw's. */
const BITCOIN_CLI: Record<string, string[]> = {
  "-named": ["--named"],
  "-stdin": ["--stdin"],
  "-rpcwait": ["--wait"],
  "-regtest": ["--network", "regtest"],
  "-testnet": ["--network", "test"],
  "-signet": ["--network", "signet"],
  "-getinfo": ["info"],
  "-version": ["--version"],
};

/** bitcoin-cli's `-name=value` flags, read as chaingw's options. */
const WITH_VALUE: Record<string, string> = {
  datadir: "--datadir",
  rpcwaittimeout: "--wait-timeout",
  rpcclienttimeout: "--request-timeout",
  chain: "--network",
  rpcport: "--rpc-port",
  rpcconnect: "--rpc-host",
  rpcuser: "--rpc-user",
  rpcpassword: "--rpc-password",
  rpcwallet: "--rpc-wallet",
};

/** bitcoin-cli's flags chaingw does not take, and what to use instead. */
const INSTEAD: Record<string, string> = {
  conf: "chaingw reads the node's own config file (bitcoin.conf / litecoin.conf) in --datadir (-datadir=); for a file elsewhere, give its values as flags (-rpcport=, -rpcuser= with CHAINGW_RPC_PASSWORD, --rpc-cookie FILE) or in a profile (`chaingw config init`)",
  stdinrpcpass:
    "chaingw does not read the password from stdin; use the node's cookie (found from --datadir, or --rpc-cookie FILE), a profile's url, or CHAINGW_URL=http://USER:PASS@HOST:PORT/ (env, not the process list)",
  stdinwalletpassphrase: "chaingw sends no wallet passphrase; use bitcoin-cli for wallet unlocking",
  rpccookiefile: "use --rpc-cookie FILE",
  generate: "use `chaingw rpc generatetoaddress N ADDRESS`",
  netinfo: "use `chaingw rpc getnetworkinfo` or `chaingw info`",
};

export function bitcoinCliArgs(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      out.push(...argv.slice(i));
      break;
    }
    // only a single-dash word with "=" can be one (`-rpcport=N`): most arguments never meet the expression
    const m = a[0] === "-" && a[1] !== "-" && a.includes("=") ? /^-(\w+)=(.*)$/s.exec(a) : null;
    // own keys only: "__proto__" or "constructor" as a param is a param
    if (m && Object.hasOwn(WITH_VALUE, m[1])) out.push(WITH_VALUE[m[1]], m[2]);
    else out.push(...(Object.hasOwn(BITCOIN_CLI, a) ? BITCOIN_CLI[a] : [a]));
  }
  return out;
}

/** A bitcoin-cli flag chaingw does not take (`-conf=F`, `-stdinrpcpass`): what to say instead, else undefined. */
export function bitcoinCliRefusal(argv: string[]): string | undefined {
  for (const a of argv) {
    if (a === "--") return undefined;
    const name = /^-(\w+)(=|$)/.exec(a)?.[1];
    if (name && Object.hasOwn(INSTEAD, name)) return `bitcoin-cli's -${name}: ${INSTEAD[name]}`;
  }
  return undefined;
}
