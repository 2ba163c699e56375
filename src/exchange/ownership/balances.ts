/**
 * What the chain says about an exchange's rows where a node is given (`--node NET=URL`): each EVM row's
 * balance re-read at its snapshot block (eth_getBalance for the network's own coin, balanceOf for a token
 * named by `--token SYMBOL=ADDRESS`), and a contract wallet's owners and threshold (a Safe's getOwners() and
 * getThreshold()) at that block. Rows of networks without a node keep their amounts as claimed.
 */
import type { Chain } from "../../chains/index.js";
import { ChaingwError } from "../../errors/index.js";
import type { Prepared } from "../../methods/prepare.js";
import {
  prepareRead,
  readBalances,
  readFailure,
  readMany,
  readTokenMeta,
} from "../../reserves/evm/balances-read.js";
import type { JsonRpcClient } from "../../rpc/client.js";
import { formatUnits, parseUnits } from "../../util/units.js";
import type { OwnershipFile, OwnershipRow } from "./read.js";
import { isEvmAddress } from "./signatures.js";

export interface ChainNode {
  /** the network it answers for, as the file names it ("ETH", "ARBITRUM", "ERC20") */
  network: string;
  client: JsonRpcClient;
  chain: Chain;
}

export interface ChainOptions {
  nodes: ChainNode[];
  /** token contracts by symbol ("USDT" → 0x…), for the rows of that coin */
  tokens: Map<string, string>;
  signal?: AbortSignal;
}

/** The native coins of EVM networks, read with eth_getBalance (18 decimals). */
const NATIVE = new Set(["ETH", "BNB", "AVAX", "POL", "MATIC", "ETC", "OKT", "FTM", "HT", "BETH"]);

/** The network a row is on, as `--node` names it: its network column, else the part after its coin's "-". */
export const networkOf = (row: OwnershipRow): string =>
  (row.network || (row.coin.split("-")[0] as string)).toUpperCase();

export interface BalanceCheck {
  /** the chain's balance in the row's units, as text */
  value?: string;
  block?: string;
  /** true: at least the claimed amount; false: less; null: not read (why in detail) */
  holds: boolean | null;
  detail: string;
}

export interface ChainChecks {
  balance(row: OwnershipRow): Promise<BalanceCheck | undefined>;
  owners(row: OwnershipRow, signers: string[]): Promise<OwnersCheck>;
}

export interface OwnersCheck {
  controls: boolean | null;
  detail: string;
}

const SEL_GET_OWNERS = "0xa0e67e2b";
const SEL_GET_THRESHOLD = "0xe75235b8";

/** The snapshot block of a row: its own height, else the summary's for its coin. */
function blockOf(file: OwnershipFile, row: OwnershipRow): string | undefined {
  const h = row.height ?? file.summary.find((s) => s.coin === row.coin)?.height;
  return h && /^\d+$/.test(h) ? `0x${BigInt(h).toString(16)}` : undefined;
}

const hexWords = (hex: string): bigint[] => {
  const body = hex.slice(2);
  const out: bigint[] = [];
  for (let i = 0; i + 64 <= body.length; i += 64) out.push(BigInt(`0x${body.slice(i, i + 64)}`));
  return out;
};

/** The chain's checks of a file's rows, through the nodes given. */
export function chainChecks(file: OwnershipFile, o: ChainOptions): ChainChecks {
  const nodeOf = (row: OwnershipRow) => o.nodes.find((n) => n.network.toUpperCase() === networkOf(row));
  return {
    async balance(row: OwnershipRow): Promise<BalanceCheck | undefined> {
      const node = nodeOf(row);
      if (!node || row.amount === undefined) return undefined;
      if (!isEvmAddress(row.address))
        return { holds: null, detail: `balances of ${row.address} are not read (EVM addresses only)` };
      const block = blockOf(file, row);
      if (!block) return { holds: null, detail: "the row has no snapshot height to read its balance at" };
      const symbol = (row.coin.split("-")[0] as string).toUpperCase();
      const token = o.tokens.get(symbol);
      if (!token && !NATIVE.has(symbol))
        return {
          holds: null,
          detail: `${symbol} is a token on ${networkOf(row)} whose contract the file does not name (--token ${symbol}=0x…)`,
        };
      try {
        const decimals = token
          ? (await readTokenMeta(node.client, node.chain, [token], block, o.signal))[0]?.decimals
          : 18;
        if (decimals === null || decimals === undefined)
          return { holds: null, detail: `token ${token}: decimals() unknown` };
        const [[value]] = (await readBalances(
          node.client,
          node.chain,
          [token ?? "native"],
          [row.address],
          block,
          undefined,
          o.signal,
        )) as [[bigint]];
        const claimed = file.units === "base" ? parseUnits(row.amount, 0) : parseUnits(row.amount, decimals);
        if (claimed === undefined)
          return { holds: null, detail: `the claimed amount ${row.amount} has more places than ${decimals}` };
        const units = file.units === "base" ? 0 : decimals;
        const shown = units === 0 ? value.toString() : formatUnits(value, units);
        const at = `block ${BigInt(block)}`;
        return value >= claimed
          ? { value: shown, block: at, holds: true, detail: `holds ${shown} at ${at}` }
          : {
              value: shown,
              block: at,
              holds: false,
              detail: `holds ${shown} at ${at}, less than the ${row.amount} claimed`,
            };
      } catch (e) {
        if (e instanceof ChaingwError) return { holds: null, detail: e.message };
        throw e;
      }
    },

    async owners(row: OwnershipRow, signers: string[]): Promise<OwnersCheck> {
      const node = nodeOf(row);
      if (!node)
        return {
          controls: null,
          detail: `that they control the contract ${row.address} needs a node for ${networkOf(row)} (--node ${networkOf(row)}=URL), not checked`,
        };
      const block = blockOf(file, row) ?? "latest";
      const at = block === "latest" ? "the latest block" : `block ${BigInt(block)}`;
      const entries: Prepared[] = [
        prepareRead(node.chain, "eth_getCode", [row.address, block]),
        prepareRead(node.chain, "eth_call", [{ to: row.address, data: SEL_GET_OWNERS }, block]),
        prepareRead(node.chain, "eth_call", [{ to: row.address, data: SEL_GET_THRESHOLD }, block]),
      ];
      const [code, owners, threshold] = await readMany(node.client, node.chain, entries, undefined, o.signal);
      if (code instanceof ChaingwError)
        return {
          controls: null,
          detail: readFailure(entries[0] as Prepared, code, "eth_getCode", block).message,
        };
      if (code?.result === "0x")
        return {
          controls: false,
          detail: `${row.address} has no code at ${at}: not a contract, and its owners' signatures prove nothing for it`,
        };
      const hex = (x: typeof owners) => (x instanceof ChaingwError ? undefined : x?.result);
      const ow = hex(owners);
      const th = hex(threshold);
      if (typeof ow !== "string" || typeof th !== "string" || ow.length < 130 || th.length !== 66)
        return {
          controls: null,
          detail: `the contract answers neither getOwners() nor getThreshold() at ${at} (not a Safe-style wallet): who controls it is not read`,
        };
      const words = hexWords(ow);
      const n = Number(words[1] ?? 0n);
      const list = words.slice(2, 2 + n).map((w) => `0x${w.toString(16).padStart(40, "0")}`);
      const t = BigInt(th);
      const named = signers.filter((s) => list.includes(s.toLowerCase()));
      const missing = signers.filter((s) => !list.includes(s.toLowerCase()));
      if (missing.length)
        return {
          controls: false,
          detail: `the contract's owners at ${at} are ${list.join(", ")}: ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not among them`,
        };
      if (BigInt(new Set(named.map((s) => s.toLowerCase())).size) < t)
        return {
          controls: false,
          detail: `${named.length} of its owners signed; the contract needs ${t} at ${at}`,
        };
      return {
        controls: true,
        detail: `the contract names them among its ${list.length} owners, threshold ${t}, at ${at}`,
      };
    },
  };
}
