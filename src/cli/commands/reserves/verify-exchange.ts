/**
 * `reserves verify FILE` for an exchange's address/signature file (OKX, HTX; src/exchange/ownership/): every
 * row judged, the table and verdict printed, the verdict's exit code. `--previous OLD` flags signatures
 * reused from an older file; `--challenge TEXT` the message every signed row must be over.
 */
import { basename } from "node:path";
import type { GlobalFlags } from "../../../config/config.js";
import { UsageError } from "../../../errors/index.js";
import type { OwnershipFile, OwnershipLayout } from "../../../exchange/ownership/read.js";
import type { Run } from "../../run.js";

export interface ExchangeVerifyFlags {
  previous?: string;
  signatures?: string;
  challenge?: string;
  quorum?: string;
  node?: string[];
  token?: string[];
}

/** `NAME=VALUE` pairs of a repeatable flag, each checked, or a usage error naming the flag and the value. */
function pairs(flag: string, list: string[] | undefined, check: RegExp, what: string): [string, string][] {
  return (list ?? []).map((v) => {
    const i = v.indexOf("=");
    const [k, x] = [v.slice(0, i).trim(), v.slice(i + 1).trim()];
    if (i < 1 || !check.test(x))
      throw new UsageError(`${flag} ${JSON.stringify(v)}: expected ${what}; nothing was checked`);
    return [k.toUpperCase(), x];
  });
}

/** The file read in `layout` (detected when undefined), a bad line as a usage error naming the file. */
async function readFile(path: string, text: string, layout?: OwnershipLayout): Promise<OwnershipFile> {
  const { readOwnershipFile } = await import("../../../exchange/ownership/read.js");
  try {
    return readOwnershipFile(text, layout);
  } catch (e) {
    if (e instanceof UsageError) throw new UsageError(`${path}: ${e.message}`);
    throw e;
  }
}

export async function runExchangeOwnership(
  run: Run,
  file: string,
  text: string,
  layout: OwnershipLayout,
  flags: GlobalFlags,
  o: ExchangeVerifyFlags,
): Promise<void> {
  for (const [flag, v] of [
    ["--signatures", o.signatures],
    ["--quorum", o.quorum],
  ] as const)
    if (v !== undefined)
      throw new UsageError(
        `${flag} is for chaingw's own proofs; ${file} is an exchange's address file (${layout}), whose signatures are its own`,
      );
  const [files, verify, { exitCodeOfVerdict }] = await Promise.all([
    import("../../files.js"),
    import("../../../exchange/ownership/verify.js"),
    import("../../../reserves/verdict.js"),
  ]);
  const owned = await readFile(file, text, layout);
  let previous: Map<string, string> | undefined;
  if (o.previous !== undefined) {
    const old = await readFile(o.previous, files.readText(o.previous, "--previous"));
    previous = verify.signaturesOf(old, basename(o.previous));
  }
  const nodes = pairs("--node", o.node, /^https?:\/\/\S+$/, "NET=http(s)://host:port");
  // a token's contract: 0x… for the EVM rows of that symbol, T… (a TRC-20) for its TRON rows
  const tokenPairs = pairs(
    "--token",
    o.token,
    /^(0x[0-9a-fA-F]{40}|T[1-9A-HJ-NP-Za-km-z]{33})$/,
    "SYMBOL=0x and 40 hex digits, or SYMBOL=T and a TRON address",
  );
  const tokens = new Map(tokenPairs.filter(([, a]) => a.startsWith("0x")));
  const tronTokens = new Map(tokenPairs.filter(([, a]) => a.startsWith("T")));
  if (tronTokens.size) {
    const { tronToHex20 } = await import("../../../chains/tron.js");
    for (const [k, a] of tronTokens)
      try {
        tronToHex20(a);
      } catch (e) {
        throw new UsageError(`--token ${k}=${a}: ${(e as Error).message}; nothing was checked`);
      }
  }
  // the network of the file's Bitcoin-family addresses: mainnet's, unless --network names a test network
  const { NETWORK_NAMES } = await import("../../../chains/coins.js");
  const network = NETWORK_NAMES.find((n) => n === flags.network) ?? "main";
  let chain: import("../../../exchange/ownership/balances.js").ChainChecks | undefined;
  if (nodes.length) {
    const [{ contextFor }, { groupOf }, { chainChecks }, { utxoCoinOf }] = await Promise.all([
      import("../../context.js"),
      import("../../../chains/index.js"),
      import("../../../exchange/ownership/balances.js"),
      import("../../../exchange/ownership/coins.js"),
    ]);
    chain = chainChecks(owned, {
      nodes: nodes.map(([net, url]) => {
        // a Bitcoin-family network's node is scanned (scantxoutset), TRON's read as java-tron's JSON-RPC,
        // any other as an EVM node
        const group = utxoCoinOf(net, network)
          ? "utxo"
          : /^(TRON|TRC20|TRX)$/.test(net)
            ? "evm-compat"
            : "evm";
        const { url: _, network: __, ...rest } = flags;
        return {
          network: net,
          chain: groupOf(group),
          client: contextFor(run, { ...rest, url: [url] }, group, { pooled: true }).client,
        };
      }),
      tokens,
      tronTokens,
      network,
      signal: run.abort.signal,
    });
  }
  // --challenge: the exact message every signed row must be over (else the layout's own messages)
  const report = await verify.verifyOwnership(
    owned,
    { previous, chain, network, message: o.challenge },
    run.abort.signal,
  );
  const color = flags.color !== false && !run.env.NO_COLOR && !run.machine && Boolean(run.stdout.isTTY);
  if (run.machine) run.out(JSON.stringify(report, null, 2));
  else {
    const [{ renderOwnership }, { escapeDeep }] = await Promise.all([
      import("../../render/ownership.js"),
      import("../../../util/escape.js"),
    ]);
    run.out(renderOwnership(escapeDeep(report), color));
  }
  run.exitCode = exitCodeOfVerdict(report.verdict);
}
