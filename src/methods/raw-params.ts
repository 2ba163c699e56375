/**
 * How `chaingw rpc` types the params it sends, as litecoin-cli does. A method the registry declares: each
 * param by its kind (`getblockhash 1` a number, a label a string). Any other: by the group's rule
 * (`ChainGroup.rawParams`): for bitcoind-family nodes, bitcoin-cli's own list of the params it reads as JSON
 * (`vRPCConvertParams` of its src/rpc/client.cpp, below), every other param the string typed
 * (`getaddressesbylabel 123` asks for the label "123"); for EVM-style nodes, as `cast rpc`: JSON where it
 * parses, else a string. `rpc --json-params`: JSON where it parses for every param (chaingw's old rule).
 * Loaded by `rpc` alone.
 */
import type { ChainGroup } from "../chains/index.js";
import { UsageError } from "../errors/index.js";
import { parseLossless } from "../json/lossless.js";
import { definitions } from "./index.js";
import { namedToPositional } from "./params.js";

/**
 * bitcoin-cli's list as Litecoin Core 0.21 ships it (Bitcoin Core 0.21's; later Cores added more, e.g.
 * lockunspent's `persistent`): the 0.21.2.1 litecoin-cli sends exactly these as JSON, which
 * `test/script-idioms.test.ts` checks against the binary, method by method. A line: the method, then
 * `position:name` for each param read as JSON (`1:verbosity|verbose`: either name with -named).
 */
const TABLE = `
setmocktime 0:timestamp
mockscheduler 0:delta_time
utxoupdatepsbt 1:descriptors
generatetoaddress 0:nblocks 2:maxtries
generatetodescriptor 0:num_blocks 2:maxtries
generateblock 1:transactions
getnetworkhashps 0:nblocks 1:height
sendtoaddress 1:amount 4:subtractfeefromamount 5:replaceable 6:conf_target 8:avoid_reuse 9:fee_rate 10:verbose
settxfee 0:amount
sethdseed 0:newkeypool
getreceivedbyaddress 1:minconf
getreceivedbylabel 1:minconf
listreceivedbyaddress 0:minconf 1:include_empty 2:include_watchonly
listreceivedbylabel 0:minconf 1:include_empty 2:include_watchonly
getbalance 1:minconf 2:include_watchonly 3:avoid_reuse
getblockhash 0:height
waitforblockheight 0:height 1:timeout
waitforblock 1:timeout
waitfornewblock 0:timeout
listtransactions 1:count 2:skip 3:include_watchonly
walletpassphrase 1:timeout
getblocktemplate 0:template_request
listsinceblock 1:target_confirmations 2:include_watchonly 3:include_removed
sendmany 1:amounts 2:minconf 4:subtractfeefrom 5:replaceable 6:conf_target 8:fee_rate 9:verbose
deriveaddresses 1:range
scantxoutset 1:scanobjects
addmultisigaddress 0:nrequired 1:keys
createmultisig 0:nrequired 1:keys
listunspent 0:minconf 1:maxconf 2:addresses 3:include_unsafe 4:query_options
getblock 1:verbosity|verbose
getblockheader 1:verbose
getchaintxstats 0:nblocks
gettransaction 1:include_watchonly 2:verbose
getrawtransaction 1:verbose
createrawtransaction 0:inputs 1:outputs 2:locktime 3:replaceable
decoderawtransaction 1:iswitness
signrawtransactionwithkey 1:privkeys 2:prevtxs
signrawtransactionwithwallet 1:prevtxs
sendrawtransaction 1:maxfeerate
testmempoolaccept 0:rawtxs 1:maxfeerate
combinerawtransaction 0:txs
fundrawtransaction 1:options 2:iswitness
walletcreatefundedpsbt 0:inputs 1:outputs 2:locktime 3:options 4:bip32derivs
walletprocesspsbt 1:sign 3:bip32derivs
createpsbt 0:inputs 1:outputs 2:locktime 3:replaceable
combinepsbt 0:txs
joinpsbts 0:txs
finalizepsbt 1:extract
converttopsbt 1:permitsigdata 2:iswitness
gettxout 1:n 2:include_mempool
gettxoutproof 0:txids
lockunspent 0:unlock 1:transactions
send 0:outputs 1:conf_target 3:fee_rate 4:options
importprivkey 2:rescan
importaddress 2:rescan 3:p2sh
importpubkey 2:rescan
importmulti 0:requests 1:options
importdescriptors 0:requests
verifychain 0:checklevel 1:nblocks
getblockstats 0:hash_or_height 1:stats
pruneblockchain 0:height
keypoolrefill 0:newsize
getrawmempool 0:verbose 1:mempool_sequence
estimatesmartfee 0:conf_target
estimaterawfee 0:conf_target 1:threshold
prioritisetransaction 1:dummy 2:fee_delta
setban 2:bantime 3:absolute
setnetworkactive 0:state
setwalletflag 1:value
getmempoolancestors 1:verbose
getmempooldescendants 1:verbose
bumpfee 1:options
psbtbumpfee 1:options
logging 0:include 1:exclude
disconnectnode 1:nodeid
upgradewallet 0:version
echojson 0:arg0 1:arg1 2:arg2 3:arg3 4:arg4 5:arg5 6:arg6 7:arg7 8:arg8 9:arg9
rescanblockchain 0:start_height 1:stop_height
createwallet 1:disable_private_keys 2:blank 4:avoid_reuse 5:descriptors 6:load_on_startup
loadwallet 1:load_on_startup
unloadwallet 1:load_on_startup
getnodeaddresses 0:count
addpeeraddress 1:port
stop 0:wait
`;

/** A method's JSON params in bitcoin-cli's list: by position and by name. */
export interface JsonParams {
  positions: ReadonlySet<number>;
  names: ReadonlySet<string>;
}

let table: Map<string, JsonParams> | undefined;

/** The table read once, on first use. */
export function cliJsonParams(): Map<string, JsonParams> {
  if (table) return table;
  table = new Map();
  for (const line of TABLE.trim().split("\n")) {
    const [method, ...cells] = line.split(" ");
    const positions = new Set<number>();
    const names = new Set<string>();
    for (const c of cells) {
      const [at, alias] = c.split(":");
      positions.add(Number(at));
      for (const n of alias.split("|")) names.add(n);
    }
    table.set(method, { positions, names });
  }
  return table;
}

/** Text as JSON where it parses (lossless: number tokens kept), else the text. */
const guess = (t: unknown): unknown => {
  if (typeof t !== "string") return t;
  try {
    return parseLossless(t);
  } catch {
    return t;
  }
};

/** Text bitcoin-cli would read as JSON: refused by name when it is not (litecoin-cli: "Error parsing JSON"). */
function strictJson(method: string, what: string, t: string): unknown {
  try {
    return parseLossless(t);
  } catch {
    throw new UsageError(
      `rpc ${method}: ${what} is JSON (a number, true/false, an array or an object), got ${JSON.stringify(t.slice(0, 40))}`,
      { hint: "`chaingw rpc --json-params` reads every param as JSON where it parses, else as a string" },
    );
  }
}

/**
 * The params `chaingw rpc METHOD TEXT…` sends, typed for `chain` (see the top of this file). `named`:
 * `name=value` texts (bitcoin-cli's -named): a registry method's become its positions; any other method's
 * go by name, as an object.
 */
export function rawParams(
  method: string,
  texts: readonly string[],
  chain: ChainGroup,
  o: { named?: boolean; jsonParams?: boolean },
): unknown[] | Record<string, unknown> {
  const defs = definitions(method);
  const def = defs.find((d) => d.group === chain.name) ?? defs[0];
  const cli = chain.rawParams === "bitcoin-cli" && !o.jsonParams ? cliJsonParams().get(method) : undefined;
  const other = (i: number | string, t: string): unknown => {
    if (o.jsonParams || chain.rawParams === "cast") return guess(t);
    const json = typeof i === "number" ? cli?.positions.has(i) : cli?.names.has(i);
    return json ? strictJson(method, typeof i === "number" ? `param ${i + 1}` : i, t) : t;
  };
  if (def) {
    const given = o.named ? namedToPositional(def, texts) : texts;
    return given.map((t, i) => {
      if (typeof t !== "string") return t;
      const p = def.params[i];
      return o.jsonParams ? guess(t) : p ? p.fromText(t) : other(i, t);
    });
  }
  if (!o.named) return texts.map((t, i) => other(i, t));
  const obj: Record<string, unknown> = {};
  for (const t of texts) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(t);
    if (!m)
      throw new UsageError(
        `rpc --named: ${method} is not a method chaingw knows, so every param must be name=value (got ${JSON.stringify(t.slice(0, 40))})`,
      );
    if (Object.hasOwn(obj, m[1])) throw new UsageError(`rpc: parameter ${m[1]} given twice`);
    obj[m[1]] = other(m[1], m[2]);
  }
  return obj;
}
