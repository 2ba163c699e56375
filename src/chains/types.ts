/**
 * A chain group is an object: what the rest of chaingw asks about a group (its default endpoint, its
 * address forms, block tags, revert shape, result checks, unit names) is answered here, so code outside
 * src/chains/ never compares group names. Adding a group is one more object in src/chains/index.ts.
 */
import type { RpcError } from "../errors/index.js";
import type { JsonValue } from "../json/lossless.js";

export type GroupName = "utxo" | "evm" | "evm-compat";

export interface RenderCtx {
  color: boolean;
  chain: ChainGroup;
  /** the method whose result this is */
  method: string;
  /** the command's own options (eth_getBalance --ether) */
  options?: Record<string, unknown>;
}

/** What the EVM-style groups have in common, and where they differ. */
export interface EvmTraits {
  /** block tags the group's nodes take (refusing the others before anything is sent) */
  blockTags: readonly string[];
  /** tags this group's nodes never take, with the reason shown */
  refusedTags?: readonly string[];
  /** the address forms accepted, for messages */
  addressForms: string;
  /** a chain-specific address text → the 20-byte 0x form every node takes; undefined: not such a form */
  normaliseAddress?(text: string): string | undefined;
  /** the chain's own display of a 20-byte address (TRON's T-address), shown beside the hex */
  displayAddress?(hex20: string): string | undefined;
  /** what gasUsed counts on this chain, shown after the number ("energy"); undefined: gas */
  gasUnit?: string;
  /**
   * The only block tags at which this chain's nodes read account state (balance, code, storage); numbers
   * refused too. undefined: any block number or tag of `blockTags`.
   */
  stateTags?: readonly string[];
  /** the native coin's base unit in messages ("wei", "sun") */
  baseUnit: string;
  /**
   * The coin's unit names and their decimals, base unit first, the coin's own unit last
   * (wei/gwei/ether; sun/trx). Amounts are converted with these, exactly (src/chains/units.ts).
   */
  units: readonly { name: string; decimals: number }[];
  /** the unit fee prices read best in (gwei on Ethereum); undefined: the base unit */
  feeUnit?: string;
  /** eth_call takes a block by hash as the EIP-1898 object {"blockHash": ...} */
  eip1898: boolean;
  /** the native coin: its symbol where the network does not say otherwise, and its decimals (wei 18, sun 6) */
  native: { symbol: string; decimals: number };
  /**
   * State reads (eth_getBalance, eth_call) can be pinned to a past block number. false: the JSON-RPC serves
   * state at the head only (java-tron: a number is refused, the EIP-1898 object form checks the block but
   * executes at the head), so a snapshot is taken at the head and cannot be re-read later.
   */
  pinnedStateReads: boolean;
  /** how a key of this chain signs a text message (src/proof/account-message.ts): EIP-191, or TRON's TIP-191 */
  messageSignature: "eip191" | "tip191";
  /** mixed-case 0x addresses carry an EIP-55 checksum that must hold */
  eip55: boolean;
  /** the largest batch array its nodes and gateways take, when lower than chaingw's own arrays */
  maxBatch?: number;
  /** the network a chain id names (`eth_chainId`, decimal) in the one network table, with its coin */
  network(chainId: bigint): { name: string; symbol?: string } | undefined;
  /** whether a node error is an execution revert (the shapes differ: EIP-1474 code 3 vs java-tron -32000) */
  isRevert(e: RpcError): boolean;
  /** a rule of the chain that a block answer must keep (TRON: the hash starts with the number) */
  verifyBlock?(result: JsonValue, asked: unknown, by: "number" | "hash", method: string): void;
}

export interface ChainGroup {
  name: GroupName;
  /** one line for help texts */
  title: string;
  /** where a call goes when nothing is configured (undefined: there is no usual local port) */
  defaultUrl?: string;
  /** the default endpoint reads the node's cookie file (bitcoind-family) */
  cookieAuth: boolean;
  /**
   * Batch arrays go on connections of their own: bitcoind-family nodes (libevent) write without
   * TCP_NODELAY, and a reused connection stalls 40 ms on the delayed ACK (see src/rpc/http.ts).
   */
  freshConnectionsForArrays: boolean;
  /** the UTXO set can be scanned (scantxoutset): reserves scans run here */
  utxoScan: boolean;
  /**
   * Its nodes also answer JSON-RPC 1.0-style requests (`"jsonrpc":"1.0"`, `"version":"1.1"`, or no version
   * member) in bitcoind's shape, `{"result","error","id"}`: `chaingw serve` takes them on this group too.
   */
  legacyEnvelopes: boolean;
  /** the call that answers the tip's height (a number, or a hex QUANTITY) */
  tip?: { method: string };
  /**
   * The call that answers the hash of the block at a height (the result itself, or its `member`). The
   * genesis's (height 0) names the chain a node is on: `chaingw serve` binds its cache to it and takes out an
   * upstream on another chain; the others find a reorg's fork among its cached answers.
   */
  blockHash?: { method: string; params: (height: number) => unknown[]; member?: string };
  /**
   * How many blocks an upstream may lag behind the best before a balancer takes it out of the rotation
   * (`chaingw serve`): dshackle's thresholds, 2 for Bitcoin-family chains (10-minute blocks), 6 for EVM.
   */
  maxLag: number;
  /**
   * How `chaingw rpc` types the params of a method outside the registry (src/methods/raw-params.ts):
   * `bitcoin-cli`, as bitcoin-cli does (its list of JSON params, every other one a string); `cast`, as
   * `cast rpc` does (JSON where it parses, else a string)
   */
  rawParams: "bitcoin-cli" | "cast";
  /** present on the EVM-style groups */
  evm?: EvmTraits;
}
