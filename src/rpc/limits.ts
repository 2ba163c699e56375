/**
 * The one table of upstreams' answers that mean "this eth_getLogs request is too large" — too many
 * blocks in the range, or too many results — as opposed to a rate limit or a bad request. classify.ts
 * reads it to keep such an answer final (every node would repeat it), and the logs workflow (src/evm/)
 * to halve the window and ask again. The texts are the upstreams' own, with where each was seen.
 */

export interface LogLimitText {
  /** who answers this way */
  who: string;
  pattern: RegExp;
  /** what is too large: the block span, the number of results, or the answer's size */
  kind: "range" | "results" | "size";
  /** where the text comes from */
  source: string;
}

export const LOG_LIMIT_TEXTS: readonly LogLimitText[] = [
  {
    who: "reth",
    pattern: /query exceeds max block range/i,
    kind: "range",
    source:
      'reth crates/rpc/rpc-eth-types EthFilterError::QueryExceedsMaxBlocks "query exceeds max block range {0}"',
  },
  {
    who: "reth",
    pattern: /query exceeds max results/i,
    kind: "results",
    source:
      'reth EthFilterError::QueryExceedsMaxResults; paradigmxyz/reth#23810 "query exceeds max results 20000, retry with the range a-b" (-32602)',
  },
  {
    who: "geth (--rpc.rangelimit), publicnode, BSC",
    pattern: /exceed maximum block range/i,
    kind: "range",
    source: 'ponder getLogsRetryHelper ("publicnode"); seen as -32701 "exceed maximum block range: 50000"',
  },
  {
    who: "java-tron (TRON JSON-RPC)",
    pattern: /exceed max block range/i,
    kind: "range",
    source:
      'java-tron LogFilterWrapper: JsonRpcInvalidParamsException("exceed max block range: " + maxBlockRange), -32602',
  },
  {
    who: "geth-family filters, Infura, java-tron, zkEVM, aurora relayer",
    pattern: /query returned more than \d+ results/i,
    kind: "results",
    source:
      'go-ethereum-derived filter code (ethermint, cosmos-evm) "query returned more than %d results"; Infura docs (-32005); java-tron LogBlockQuery.MAX_RESULT',
  },
  {
    who: "besu",
    pattern: /requested range exceeds maximum rpc range limit/i,
    kind: "range",
    source:
      'besu RpcErrorType.EXCEEDS_RPC_MAX_BLOCK_RANGE(-32005, "Requested range exceeds maximum RPC range limit") (--rpc-max-logs-range, default 5000)',
  },
  {
    who: "Infura (live API)",
    pattern: /range \d+ exceeds limit of \d+/i,
    kind: "range",
    source: 'INFURA/infura#237: -32602 "range 1000000 exceeds limit of 10000"',
  },
  {
    who: "Alchemy",
    pattern: /log response size exceeded|this block range should work|up to a [\d,.]+ block range/i,
    kind: "size",
    source:
      'Alchemy: "Log response size exceeded. ... this block range should work: [0x.., 0x..]"; BobTheBuidler/dank_mids#772 (-32600 "You can make eth_getLogs requests with up to a 500 block range")',
  },
  {
    who: "QuickNode, 1rpc, Blast",
    pattern: /eth_getLogs (and eth_newFilter )?(is|are) limited to/i,
    kind: "range",
    source: 'OffchainLabs/arbitrum-sdk#609: HTTP 413, -32614 "eth_getLogs is limited to a 10,000 range"',
  },
  {
    who: "Ankr, Moonbeam/frontier",
    pattern: /block range is too wide/i,
    kind: "range",
    source:
      'ponder getLogsRetryHelper (ankr, -32600); moonbeam#3250 "block range is too wide (maximum 1024)"',
  },
  {
    who: "Chainstack",
    pattern: /block range limit exceeded|range limit exceeded/i,
    kind: "range",
    source: 'ponder getLogsRetryHelper "Block range limit exceeded."',
  },
  {
    who: "merkle, Base, Monad, Optimism proxyd",
    pattern: /range is too (large|wide)|block range too large|backend response too large/i,
    kind: "range",
    source:
      'ponder getLogsRetryHelper; upstream-behaviour notes -32603 "range is too large, max is 1k blocks"',
  },
  {
    who: "Arbitrum (nitro)",
    pattern: /logs matched by query exceeds limit of \d+/i,
    kind: "results",
    source: 'ponder getLogsRetryHelper "logs matched by query exceeds limit of 10000"',
  },
  {
    who: "scroll geth, Morph",
    pattern: /block range is (bigger|larger) than max/i,
    kind: "range",
    source:
      'scroll-tech/go-ethereum#529 -32000 "block range is bigger than maxBlockRange"; enviodev/hyperindex#605',
  },
  {
    who: "dRPC",
    pattern: /ranges over \d+ blocks are not supported/i,
    kind: "range",
    source: 'dRPC free tier, code 35 "ranges over 10000 blocks are not supported on freetier"',
  },
  {
    who: "Cloudflare, thirdweb, Avalanche, Coinbase, Harmony, 1rpc",
    pattern:
      /Max range: \d+|maximum allowed number of requested blocks|requested too many blocks from|please limit the query to at most|query must be smaller than size|response size should not greater than/i,
    kind: "range",
    source: "ponder getLogsRetryHelper (one entry per provider there)",
  },
];

/**
 * Wordings of no one upstream in particular that still say "the request is too large" (chaingw read
 * -32005 with these as a limit of the request before this table existed).
 */
const GENERIC: LogLimitText = {
  who: "an upstream",
  pattern: /returned more than|block range|too large|exceed(s|ed)? max/i,
  kind: "range",
  source: "generic wording",
};

/** The table entry an error message matches, or undefined when it is some other error. */
export const logLimitOf = (message: string): LogLimitText | undefined =>
  LOG_LIMIT_TEXTS.find((t) => t.pattern.test(message)) ??
  (GENERIC.pattern.test(message) ? GENERIC : undefined);

/** A request too large for the upstream: every node behind it would answer the same. */
export const isRequestLimit = (message: string): boolean => logLimitOf(message) !== undefined;
