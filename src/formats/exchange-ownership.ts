/**
 * The exchanges' address/signature files (`reserves verify`): OKX's three layouts, HTX's and Poloniex's (HTX's
 * columns, told by the texts its rows sign). Detection reads
 * the header line of the address table (src/exchange/ownership/read.ts, cheap); `load()` resolves to the layout's
 * `AddressFileModule` (exchange-ownership-module.ts: the reader and the verifier, loaded on use).
 */
import {
  detectLayout,
  HTX_COLUMNS_TEXTS,
  hasHtxHeader,
  htxColumnsSigners,
  type OwnershipLayout,
  readOwnershipFile,
} from "../exchange/ownership/read.js";
import type { AddressFileModule, ProofFormat } from "./types.js";

const OKX_CHECKS = [
  "every signature: Bitcoin-family signmessage with the coin's magic (BTC, LTC, DOGE), a 2-of-3 script hashing to its P2SH / P2SH-P2WSH / P2WSH address with m distinct keys of it, EVM personal_sign over keccak(message) or OKX's header digest, TRON v1 and v2, ed25519 over OKX's header (Solana, Polkadot, Cardano, Aptos, Sui keys derived to the address)",
  "that every address decodes as its coin's",
  "a contract wallet: both owners' signatures, and that they control the contract where a node is given",
  "signatures reused from an older file (--previous)",
];
const OKX_CANNOT = [
  "STARKNET, EOS, TON wallet contracts, Aptos rotated keys and staking validator rows: named as not supported",
  "that the message is fresh: OKX's message is a fixed text, so a signature shows control at some time, not at the snapshot",
  "balances, without a node: the rows are signed with the amount claimed, never proven",
];
const OKX_CATCHES = [
  "OKX's tool reports success for a BTC-family address that does not decode; chaingw fails the row",
  "OKX's tool accepts one signature given twice for a 2-of-3 and never reads the threshold; chaingw counts distinct keys of the script",
  "OKX's tool accepts contract-wallet rows on the owners' signatures alone; chaingw needs the chain to say they own it",
];

const entry = (
  layout: OwnershipLayout,
  title: string,
  extra: Partial<ProofFormat<AddressFileModule>> = {},
): ProofFormat<AddressFileModule> => ({
  name: layout,
  kind: "reserves",
  title,
  checks: OKX_CHECKS,
  cannot: OKX_CANNOT,
  catches: OKX_CATCHES,
  detect: (text) => detectLayout(text) === layout,
  load: () => import("./exchange-ownership-module.js").then((m) => m.addressFileModule(layout)),
  ...extra,
});

export const EXCHANGE_OWNERSHIP: readonly ProofFormat<AddressFileModule>[] = [
  entry("okx-2022", "OKX address and signature file, 2022 layout (amounts in base units)"),
  entry("okx-2024", "OKX address and signature file, 2024-26 layout (network, snapshot height, eoa1/eoa2)"),
  entry("okx-audit-2025", "OKX address and signature file, 2025 audit layout (no amounts)"),
  entry("htx", "HTX (Huobi) reserve snapshot: a summary block, then addresses with signatures", {
    checks: [
      "every signature: BTC signmessage, EVM EIP-191 or raw keccak(message), TRON v1 over keccak(message) or the message's bytes, ed25519 over the message (Solana, Algorand)",
      "a contract wallet (a row with a balance and no signature, then its owners' rows): the owners' signatures, and that they control it where a node is given",
      "every row with a balance is signed: an unsigned one fails the file",
      "signatures reused from an older snapshot (--previous)",
    ],
    cannot: [
      'that the message is fresh: HTX signs fixed texts ("huobi", "King will be back!") unchanged for years',
      "balances, without a node: the rows are signed with the amount claimed, never proven",
    ],
    catches: [
      "HTX's tool skips unsigned rows silently; chaingw fails every unsigned row with a balance and names it",
      "HTX's tool does not link a contract wallet to its owners' rows; chaingw ties them and asks the chain",
      "the same signature in an older snapshot shows nothing about this one: --previous names each reuse",
    ],
  }),
  entry(
    "poloniex",
    'Poloniex reserve snapshot (poloniex/tools-nodejs-address-verify): HTX\'s columns, rows signed "poloniex" or "Poloniex"',
    {
      checks: [
        "every signature in the forms of Poloniex's tool (HTX's): EVM EIP-191 or raw keccak(message), with or without 0x; TRON v1 over keccak(message) or the message's bytes; BTC signmessage",
        'that each row signs Poloniex\'s text ("poloniex" or "Poloniex"): another is cannot say, --challenge requires one',
        "every row with a balance is signed: an unsigned one fails the file; a contract wallet as HTX's",
        "signatures reused from an older snapshot (--previous)",
      ],
      cannot: [
        "that the message is fresh: Poloniex signs its name, unchanged since its first file (2024-09)",
        "balances, without a node: the rows are signed with the amount claimed, never proven",
      ],
      catches: [
        "Poloniex's tool crashes on every file since 2024-12 and rejects EVM signatures written without 0x; chaingw reads both",
        "a row carrying another address's signature (its ETH rows under a TRON row's signature) fails, named",
        "unsigned rows with a balance fail the file; Poloniex's tool skips them",
      ],
    },
  ),
];

/**
 * Why an address file no layout claims is none (`reserves verify`, `solvency --reserves`): the layouts it is
 * nearest to and what it lacks — HTX's columns whose rows sign neither HTX's nor Poloniex's texts (or both's)
 * — else undefined (not an address file at all).
 */
export function unclaimedAddressFile(text: string): string | undefined {
  if (!hasHtxHeader(text)) return undefined;
  // a file its strict reader refuses is refused naming its line (a column no layout has, a row misread)
  readOwnershipFile(text, "htx");
  const signers = htxColumnsSigners(text);
  const texts = (p: "htx" | "poloniex") => HTX_COLUMNS_TEXTS[p].map((t) => JSON.stringify(t)).join(", ");
  return `not an address file of a layout chaingw knows: it has the columns of htx and poloniex, whose rows sign ${texts("htx")} (HTX) or ${texts("poloniex")} (Poloniex), but its rows sign ${signers.length === 0 ? "neither's texts" : "both's texts"}; --proof-format htx or --proof-format poloniex reads it as that publisher's`;
}
