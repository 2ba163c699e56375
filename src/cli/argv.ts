/** Reading argv before anything else: bitcoin-cli's spellings turned into chaingw's (kept tiny: start-up path). */

/** bitcoin-cli's spellings, read as chaingw's: `-named`, `-stdin`, `-rpcwait`, `-regtest`, `-datadir=D`, `-getinfo`. */
const BITCOIN_CLI: Record<string, string[]> = {
  "-named": ["--named"],
  "-stdin": ["--stdin"],
  "-rpcwait": ["--wait"],
  "-regtest": ["--network", "regtest"],
  "-testnet": ["--network", "test"],
  "-signet": ["--network", "signet"],
  "-getinfo": ["info"],
};
export function bitcoinCliArgs(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      out.push(...argv.slice(i));
      break;
    }
    const m = /^-(datadir|rpcwaittimeout)=(.*)$/.exec(a);
    if (m) out.push(m[1] === "datadir" ? "--datadir" : "--wait-timeout", m[2]);
    // own keys only: "__proto__" or "constructor" as a param is a param
    else out.push(...(Object.hasOwn(BITCOIN_CLI, a) ? BITCOIN_CLI[a] : [a]));
  }
  return out;
}
