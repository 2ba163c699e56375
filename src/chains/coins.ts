/**
 * The coins of the UTXO chain group, one row each: a coin is data (viem's `defineChain`), and code asks the
 * row, never compares a coin's name. Its networks (genesis block, address versions, bech32 prefix, the node's
 * RPC port and data subdirectory), its signed-message magic, ticker and decimals, and its node's data
 * directory. The merged address decoder (`chains/address.ts`), the proof addresses, the ticker of a proof,
 * the message magic and the local node's layout (`config/node-layout.ts`) all read this table.
 *
 * Adding a coin: one row here and its vectors in test/coins.test.ts (docs/architecture.md, "Where to add").
 * Sources: each coin's chainparams.cpp and chainparamsbase.cpp; genesis hashes as `getblockhash 0` prints
 * them (Litecoin's measured on litecoind 0.21.2.1 for all four networks).
 */

/**
 * A network of a coin, as its node's `-chain=` names it ("main", "test" — testnet3 on Bitcoin —, "regtest",
 * "signet", Dash's "devnet"): each coin's row lists its own (`networksOf`), none is assumed of every coin.
 */
export type NetworkName = string;

export interface CoinNetwork {
  /** `getblockhash 0` */
  genesis: string;
  /**
   * base58check version bytes: P2PKH, P2SH (the coin's own first, then older ones its nodes still take, such
   * as Litecoin's Bitcoin-style "3"), WIF private keys
   */
  base58: { p2pkh: number; p2sh: readonly number[]; wif: number };
  /** the bech32 / bech32m human-readable part of segwit addresses; none where the coin has no segwit */
  hrp?: string;
  /** the CashAddr prefix (Bitcoin Cash); not decoded yet */
  cashaddr?: string;
  /** the node's default RPC port */
  rpcPort: number;
  /** the network's subdirectory of the node's data directory ("" for main) */
  subdir: string;
}

export interface Coin {
  /** the coin's id in proofs and code: lower case, no spaces */
  id: string;
  /** for people: "Bitcoin" */
  name: string;
  ticker: string;
  /** digits after the point of one coin in the node's amounts (8: satoshis) */
  decimals: number;
  /** the legacy signed-message magic (Bitcoin Core's MessageHash prefix), without its length byte */
  magic: string;
  /**
   * the reference node: its name ("Litecoin Core", in messages), the name its debug.log's start line gives
   * when that is another (`log`: Dogecoin Core 1.14 writes "Dogecoin version v1.14…", where Litecoin Core
   * writes "Litecoin Core version v0.21…"), data directory, config file, and what its `subversion`
   * (getnetworkinfo, the P2P user agent) says: "/Satoshi:27.0.0/"; `cli`, its command-line client (whose
   * `signmessage` signs a P2PKH address's message), and `electrum`, the Electrum wallet's command for the
   * coin where there is one (it signs segwit addresses too)
   */
  node: {
    name: string;
    log?: string;
    home: string;
    conf: string;
    subversion: RegExp;
    cli: string;
    electrum?: string;
  };
  /**
   * The address forms its nodes print. "cashaddr": legacy base58 addresses are byte-for-byte Bitcoin's, so
   * an address in that form says nothing of this coin; its own form is CashAddr.
   */
  prints: "base58" | "cashaddr";
  /**
   * What chaingw does with the coin beyond naming it. `messages`: proof addresses and signed messages are
   * read as this coin's (its magic is tried, its prefixes known). `localNode`: `--network` looks for its node's
   * data directory. A coin without either is known to the prefix checks of address lists and to readers of
   * exchanges' files; turning one on is a change of behaviour with its own vectors from a real node.
   */
  uses: { messages: boolean; localNode: boolean };
  /** the coin's networks, main first, in the order help and lists name them */
  networks: { readonly main: CoinNetwork } & Readonly<Record<NetworkName, CoinNetwork | undefined>>;
}

const BITCOIN_TEST = { p2pkh: 111, p2sh: [196], wif: 239 } as const;

export const COINS: readonly Coin[] = [
  {
    id: "bitcoin",
    name: "Bitcoin",
    ticker: "BTC",
    decimals: 8,
    magic: "Bitcoin Signed Message:\n",
    node: {
      name: "Bitcoin Core",
      home: ".bitcoin",
      conf: "bitcoin.conf",
      subversion: /satoshi|bitcoin/i,
      cli: "bitcoin-cli",
      electrum: "electrum",
    },
    prints: "base58",
    uses: { messages: true, localNode: true },
    networks: {
      main: {
        genesis: "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f",
        base58: { p2pkh: 0, p2sh: [5], wif: 128 },
        hrp: "bc",
        rpcPort: 8332,
        subdir: "",
      },
      test: {
        genesis: "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943",
        base58: BITCOIN_TEST,
        hrp: "tb",
        rpcPort: 18332,
        subdir: "testnet3",
      },
      regtest: {
        genesis: "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206",
        base58: BITCOIN_TEST,
        hrp: "bcrt",
        rpcPort: 18443,
        subdir: "regtest",
      },
      signet: {
        genesis: "00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6",
        base58: BITCOIN_TEST,
        hrp: "tb",
        rpcPort: 38332,
        subdir: "signet",
      },
    },
  },
  {
    id: "litecoin",
    name: "Litecoin",
    ticker: "LTC",
    decimals: 8,
    magic: "Litecoin Signed Message:\n",
    node: {
      name: "Litecoin Core",
      home: ".litecoin",
      conf: "litecoin.conf",
      subversion: /litecoin/i,
      cli: "litecoin-cli",
      electrum: "electrum-ltc",
    },
    prints: "base58",
    uses: { messages: true, localNode: true },
    networks: {
      main: {
        genesis: "12a765e31ffd4059bada1e25190f6e98c99d9714d334efa41a195a7e7e04bfe2",
        // "M", and Bitcoin's "3" that nodes still take
        base58: { p2pkh: 48, p2sh: [50, 5], wif: 176 },
        hrp: "ltc",
        rpcPort: 9332,
        subdir: "",
      },
      test: {
        genesis: "4966625a4b2851d9fdee139e56211a0d88575f59ed816ff5e6a63deb4e3e29a0",
        base58: { p2pkh: 111, p2sh: [58, 196], wif: 239 },
        hrp: "tltc",
        rpcPort: 19332,
        subdir: "testnet4",
      },
      regtest: {
        genesis: "530827f38f93b43ed12af0b3ad25a288dc02ed74d6d7857862df51fc56c416f9",
        base58: { p2pkh: 111, p2sh: [58, 196], wif: 239 },
        hrp: "rltc",
        rpcPort: 19443,
        subdir: "regtest",
      },
      // litecoind 0.21.2.1 -signet runs testnet's parameters (getblockchaininfo says "test", the genesis
      // is testnet4's, tltc1… and m… addresses are valid) in a directory and on a port of its own
      signet: {
        genesis: "4966625a4b2851d9fdee139e56211a0d88575f59ed816ff5e6a63deb4e3e29a0",
        base58: { p2pkh: 111, p2sh: [58, 196], wif: 239 },
        hrp: "tltc",
        rpcPort: 39332,
        subdir: "signet",
      },
    },
  },
  {
    id: "dogecoin",
    name: "Dogecoin",
    ticker: "DOGE",
    decimals: 8,
    magic: "Dogecoin Signed Message:\n",
    node: {
      name: "Dogecoin Core",
      log: "Dogecoin",
      home: ".dogecoin",
      conf: "dogecoin.conf",
      subversion: /shibetoshi|dogecoin/i,
      cli: "dogecoin-cli",
    },
    prints: "base58",
    uses: { messages: true, localNode: true },
    // Dogecoin Core 1.14 (dogecoin/dogecoin: src/chainparams.cpp at d0902798850371b6b7b632141dc5e4227c92171f,
    // src/chainparamsbase.cpp at e5a911352232a9c9083f90c5afbc0ea6fb9f634f): main, test and regtest, no signet,
    // no segwit addresses; regtest's RPC port is 18332, Bitcoin's testnet port, and its base58 versions are
    // Bitcoin's test ones. Its node has no scantxoutset (Bitcoin Core 0.17's): `reserves scan` needs a node
    // that has it, `reserves verify` does not.
    networks: {
      main: {
        genesis: "1a91e3dace36e2be3bf030a65679fe821aa1d6ef92e7c9902eb318182c355691",
        base58: { p2pkh: 30, p2sh: [22], wif: 158 },
        rpcPort: 22555,
        subdir: "",
      },
      test: {
        genesis: "bb0a78264637406b6360aad926284d544d7049f45189db5664f3c4d07350559e",
        base58: { p2pkh: 113, p2sh: [196], wif: 241 },
        rpcPort: 44555,
        subdir: "testnet3",
      },
      regtest: {
        genesis: "3d2160a3b5dc4a9d62e7e66a295f70313ac808440ef7400d6c0772171ce973a5",
        base58: { p2pkh: 111, p2sh: [196], wif: 239 },
        rpcPort: 18332,
        subdir: "regtest",
      },
    },
  },
  {
    id: "bitcoin-cash",
    name: "Bitcoin Cash",
    ticker: "BCH",
    decimals: 8,
    // Bitcoin Cash kept Bitcoin's magic (Bitcoin Cash Node's MESSAGE_MAGIC)
    magic: "Bitcoin Signed Message:\n",
    node: {
      name: "Bitcoin Cash Node",
      home: ".bitcoin",
      conf: "bitcoin.conf",
      // "/Bitcoin Cash Node:28.0.1(EB32.0)/", "/Bitcoin ABC:0.30.0(EB32.0)/": longer matches than Bitcoin's
      subversion: /bitcoin cash|bitcoin abc|bchn|bch unlimited/i,
      cli: "bitcoin-cli",
    },
    prints: "cashaddr",
    uses: { messages: false, localNode: false },
    // the chain split from Bitcoin at block 478,558: the genesis blocks are Bitcoin's
    networks: {
      main: {
        genesis: "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f",
        base58: { p2pkh: 0, p2sh: [5], wif: 128 },
        cashaddr: "bitcoincash",
        rpcPort: 8332,
        subdir: "",
      },
      test: {
        genesis: "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943",
        base58: BITCOIN_TEST,
        cashaddr: "bchtest",
        rpcPort: 18332,
        subdir: "testnet3",
      },
      regtest: {
        genesis: "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206",
        base58: BITCOIN_TEST,
        cashaddr: "bchreg",
        rpcPort: 18443,
        subdir: "regtest",
      },
    },
  },
];

/** The coins whose proof addresses and signed messages chaingw reads (`uses.messages`), in table order. */
export const MESSAGE_COINS: readonly Coin[] = COINS.filter((c) => c.uses.messages);
/** "Bitcoin, Litecoin or Dash": a list joined as a sentence says it, the last two by `word` */
export const sentenceList = (items: readonly string[], word = "or"): string =>
  items.length < 2 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} ${word} ${items[items.length - 1]}`;

/** "Bitcoin or Litecoin", for messages that say which coins those are */
export const MESSAGE_COIN_NAMES = sentenceList(MESSAGE_COINS.map((c) => c.name));

/** A coin's networks, as its row lists them: ["main", "test", "regtest", "signet"] for Bitcoin. */
export const networksOf = (coin: Coin): NetworkName[] =>
  Object.keys(coin.networks).filter((n) => coin.networks[n] !== undefined);

/**
 * The spellings a person may type for a network, as bitcoind's `-chain=` and getblockchaininfo say them:
 * "mainnet" and "testnet" are "main" and "test"; any other name is its own.
 */
export const networkTyped = (text: string): NetworkName =>
  text === "mainnet" ? "main" : text === "testnet" ? "test" : text;

/** How a network is named after its coin's name: "" for main, "testnet" for test, else its own name. */
export const networkWord = (network: NetworkName): string =>
  network === "main" ? "" : network === "test" ? "testnet" : network;

/**
 * The one name of a coin's network in messages and verdicts: "Litecoin", "Dash testnet", "Bitcoin regtest";
 * of its node's, given the node's name: "Bitcoin Core testnet".
 */
export const coinNetworkLabel = (coin: { name: string }, network: NetworkName): string =>
  network === "main" ? coin.name : `${coin.name} ${networkWord(network)}`;

/** The row of `id`; undefined for an id no row has. */
export const coinOf = (id: string): Coin | undefined => COINS.find((c) => c.id === id);

/**
 * The coin a node's `subversion` names: the row (of `among`) whose pattern matches the most of it ("Bitcoin
 * Cash" over "Bitcoin"), undefined when none does. Only what a node calls itself: `coinOfNode` decides.
 */
export function coinOfSubversion(subversion: string, among: readonly Coin[] = COINS): Coin | undefined {
  let best: Coin | undefined;
  let length = 0;
  for (const c of among) {
    const m = c.node.subversion.exec(subversion);
    if (m && m[0].length > length) {
      best = c;
      length = m[0].length;
    }
  }
  return best;
}

/**
 * The coin a node serves, from the chain it is on: its genesis block hash (`getblockhash 0`). The user-agent
 * (`subversion`) only tells apart coins that share a genesis (Bitcoin Cash's are Bitcoin's): a node whose
 * genesis no row has is no coin of the table, whatever it calls itself. Undefined when the genesis is no
 * row's, or is several coins' and the subversion names none of them.
 */
export function coinOfNode(genesis: string, subversion: string): Coin | undefined {
  const coins = COINS.filter((c) => Object.values(c.networks).some((n) => n?.genesis === genesis));
  if (coins.length < 2) return coins[0];
  const named = coinOfSubversion(subversion, coins);
  return named && coins.includes(named) ? named : undefined;
}

/**
 * Why a node's chain is not one whose messages chaingw reads, in words that say which chain it is: no row's
 * genesis; a genesis several coins share whose user-agent names none of them; or a coin whose addresses
 * chaingw does not decode (`uses.messages` off).
 */
export function whyNotMessageCoin(genesis: string | undefined, subversion: string): string {
  const calling = `calling itself "${subversion || "nothing"}"`;
  if (genesis === undefined) return `the node did not give its genesis block (getblockhash 0), ${calling}`;
  const coins = COINS.filter((c) => Object.values(c.networks).some((n) => n?.genesis === genesis));
  const coin = coinOfNode(genesis, subversion);
  if (coin)
    return `the node's chain is ${coin.name}'s (genesis block ${genesis}), whose addresses chaingw does not decode (${MESSAGE_COIN_NAMES} it does)`;
  if (coins.length)
    return `the node's chain (genesis block ${genesis}) is ${sentenceList(coins.map((c) => `${c.name}'s`))}, and its user-agent "${subversion || "nothing"}" names ${coins.length > 2 ? "none of them" : "neither"}: chaingw cannot tell which coin the node serves`;
  return `the node's chain (genesis block ${genesis}) ${calling} is not a ${MESSAGE_COIN_NAMES} chain, whose addresses chaingw decodes`;
}

/** One network of one coin, as the prefix tables below and the address decoder name them. */
export interface CoinNet {
  coin: Coin;
  network: NetworkName;
  params: CoinNetwork;
}

/** Every (coin, network) of the table, in its order: coins as listed, each coin's networks as its row lists them. */
export const COIN_NETWORKS: readonly CoinNet[] = COINS.flatMap((coin) =>
  networksOf(coin).map((network) => ({ coin, network, params: coin.networks[network] as CoinNetwork })),
);

/**
 * The networks whose nodes print an address of `prefix` (`hrp:<hrp>` or `base58:<version>`, the decoder's
 * prefix), in table order; empty for a prefix no row has.
 */
export function networksOfPrefix(prefix: string): CoinNet[] {
  let found = PREFIX_INDEX.get(prefix);
  if (!found) {
    found = COIN_NETWORKS.filter((n) => prefixesOf(n).includes(prefix));
    PREFIX_INDEX.set(prefix, found);
  }
  return found;
}
const PREFIX_INDEX = new Map<string, CoinNet[]>();

/** The address prefixes a network's nodes print, in the decoder's form. */
export function prefixesOf(n: CoinNet): string[] {
  const own = n.params.hrp ? [`hrp:${n.params.hrp}`] : [];
  if (n.coin.prints !== "base58") return own;
  const b = n.params.base58;
  return [...own, `base58:${b.p2pkh}`, ...b.p2sh.map((v) => `base58:${v}`)];
}
