/**
 * The test tokens of test/fixtures/token/ (Token.sol, compiled once into token.json) deployed on anvil,
 * and the calls the tests make on them (mint to many holders, move after a pinned block).
 */
import { readFileSync } from "node:fs";
import { encodeData, from as fnFrom } from "ox/AbiFunction";
import { encode as encodeParams, from as paramsFrom } from "ox/AbiParameters";
import { receipt } from "./token.js";

type Rpc = <T = unknown>(method: string, params?: unknown[]) => Promise<T>;

const BYTECODE = JSON.parse(readFileSync(new URL("../fixtures/token/token.json", import.meta.url), "utf8"))
  .contracts as Record<"Token" | "Bytes32Token" | "NoMetadataToken" | "BrokenToken", string>;

/** anvil's first dev account: unlocked, funded. */
export const DEPLOYER = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";

/** Its receipt (`receipt`: while the node holds it), refused unless the transaction succeeded. */
async function mined(
  rpc: Rpc,
  hash: string,
): Promise<{ contractAddress: string | null; status: string; blockNumber: string }> {
  const r = await receipt(rpc, hash);
  if (r.status !== "0x1") throw new Error(`transaction ${hash} failed`);
  return r;
}

async function send(rpc: Rpc, tx: Record<string, string>) {
  const hash = await rpc<string>("eth_sendTransaction", [{ from: DEPLOYER, gas: "0x1c9c380", ...tx }]);
  return mined(rpc, hash);
}

/** Deploys one of the token contracts; returns its address (lowercase). */
export async function deployToken(
  rpc: Rpc,
  kind: keyof typeof BYTECODE,
  args: { symbol?: string; decimals?: number } = {},
): Promise<string> {
  let ctor = "";
  if (kind === "Token")
    ctor = encodeParams(paramsFrom(["string", "uint8"]), [args.symbol ?? "TKN", args.decimals ?? 18]).slice(
      2,
    );
  if (kind === "Bytes32Token") {
    const word = `0x${Buffer.from(args.symbol ?? "MKR", "utf8")
      .toString("hex")
      .padEnd(64, "0")}` as `0x${string}`;
    ctor = encodeParams(paramsFrom(["bytes32", "uint8"]), [word, args.decimals ?? 18]).slice(2);
  }
  const r = await send(rpc, { data: BYTECODE[kind] + ctor });
  return (r.contractAddress as string).toLowerCase();
}

const MINT = fnFrom("function mint(address[] to, uint256[] amounts)");
const MOVE = fnFrom("function move(address from, address to, uint256 amount)");

/** Credits each holder its amount, 200 holders a transaction. */
export async function mint(rpc: Rpc, token: string, holders: string[], amounts: bigint[]): Promise<void> {
  for (let i = 0; i < holders.length; i += 200) {
    const data = encodeData(MINT, [holders.slice(i, i + 200) as `0x${string}`[], amounts.slice(i, i + 200)]);
    await send(rpc, { to: token, data });
  }
}

/** Moves `amount` from one holder to another (any holder; a test token). */
export async function move(rpc: Rpc, token: string, from: string, to: string, amount: bigint) {
  await send(rpc, {
    to: token,
    data: encodeData(MOVE, [from as `0x${string}`, to as `0x${string}`, amount]),
  });
}

/**
 * Deploys test/fixtures/token/Mirror.sol's MirrorToken (compiled once into mirror.json): balanceOf is each
 * address's native balance, as Polygon's and Celo's native-token contracts answer. Its address (lowercase).
 */
export async function deployMirror(rpc: Rpc, symbol: string): Promise<string> {
  const code = JSON.parse(readFileSync(new URL("../fixtures/token/mirror.json", import.meta.url), "utf8"))
    .contracts.MirrorToken as string;
  const r = await send(rpc, { data: code + encodeParams(paramsFrom(["string"]), [symbol]).slice(2) });
  return (r.contractAddress as string).toLowerCase();
}

/**
 * Deploys test/fixtures/token/Tracking.sol's TrackingToken (compiled once into tracking.json): balanceOf is
 * each address's native balance, plus one wei at `plusOne` — it tracks the native coin without equalling it.
 */
export async function deployTracking(rpc: Rpc, symbol: string, plusOne: string): Promise<string> {
  const code = JSON.parse(readFileSync(new URL("../fixtures/token/tracking.json", import.meta.url), "utf8"))
    .contracts.TrackingToken as string;
  const args = encodeParams(paramsFrom(["string", "address"]), [symbol, plusOne as `0x${string}`]);
  const r = await send(rpc, { data: code + args.slice(2) });
  return (r.contractAddress as string).toLowerCase();
}

/**
 * Deploys test/fixtures/token/Follower.sol's FollowerToken (compiled once into follower.json):
 * balanceOf(holders[i]) is follows[i]'s native balance — another address's coins. Its address (lowercase).
 */
export async function deployFollower(
  rpc: Rpc,
  symbol: string,
  holders: string[],
  follows: string[],
): Promise<string> {
  const code = JSON.parse(readFileSync(new URL("../fixtures/token/follower.json", import.meta.url), "utf8"))
    .contracts.FollowerToken as string;
  const args = encodeParams(paramsFrom(["string", "address[]", "address[]"]), [
    symbol,
    holders as `0x${string}`[],
    follows as `0x${string}`[],
  ]);
  const r = await send(rpc, { data: code + args.slice(2) });
  return (r.contractAddress as string).toLowerCase();
}

/**
 * Deploys test/fixtures/token/Shadow.sol's ShadowToken (compiled once into shadow.json): balanceOf(a) is
 * `source`'s balanceOf(a), plus one base unit at `plusOne` — another token's coins. Its address (lowercase).
 */
export async function deployShadow(
  rpc: Rpc,
  symbol: string,
  source: string,
  plusOne: string,
): Promise<string> {
  const code = JSON.parse(readFileSync(new URL("../fixtures/token/shadow.json", import.meta.url), "utf8"))
    .contracts.ShadowToken as string;
  const args = encodeParams(paramsFrom(["string", "address", "address"]), [
    symbol,
    source as `0x${string}`,
    plusOne as `0x${string}`,
  ]);
  const r = await send(rpc, { data: code + args.slice(2) });
  return (r.contractAddress as string).toLowerCase();
}

/**
 * Deploys one of test/fixtures/token/Chameleon.sol's tokens (compiled once into chameleon.json), which answer
 * by who asks: read straight (msg.sender == tx.origin), ChameleonToken's balanceOf(a) is a's native balance and
 * ChameleonShadow's is `source`'s balanceOf(a), each plus one base unit at `plusOne`; asked by a contract,
 * both answer 5 coins, fixed. Its address (lowercase).
 */
export async function deployChameleon(
  rpc: Rpc,
  symbol: string,
  plusOne: string,
  source?: string,
): Promise<string> {
  const contracts = JSON.parse(
    readFileSync(new URL("../fixtures/token/chameleon.json", import.meta.url), "utf8"),
  ).contracts as Record<"ChameleonToken" | "ChameleonShadow", string>;
  const args =
    source === undefined
      ? encodeParams(paramsFrom(["string", "address"]), [symbol, plusOne as `0x${string}`])
      : encodeParams(paramsFrom(["string", "address", "address"]), [
          symbol,
          source as `0x${string}`,
          plusOne as `0x${string}`,
        ]);
  const code = source === undefined ? contracts.ChameleonToken : contracts.ChameleonShadow;
  const r = await send(rpc, { data: code + args.slice(2) });
  return (r.contractAddress as string).toLowerCase();
}

const LEDGER = () =>
  JSON.parse(readFileSync(new URL("../fixtures/token/ledger.json", import.meta.url), "utf8"))
    .contracts as Record<"Ledger" | "LedgerFacade" | "PinnedFacade", string>;

/**
 * Deploys test/fixtures/token/Ledger.sol's Ledger (compiled once into ledger.json) crediting each holder its
 * amount, and one LedgerFacade over it per symbol: balanceOf(a) is the ledger's balances(a) — every facade the
 * same coins. The ledger's address and the facades' (lowercase).
 */
export async function deployLedger(
  rpc: Rpc,
  symbols: string[],
  holders: string[],
  amounts: bigint[],
  /**
   * each facade a PinnedFacade reading the ledger only at this address; a list: each facade's own (undefined: a
   * LedgerFacade, reading the ledger at every address)
   */
  pinned?: string | readonly (string | undefined)[],
): Promise<{ ledger: string; facades: string[] }> {
  const c = LEDGER();
  const ledger = ((await send(rpc, { data: c.Ledger })).contractAddress as string).toLowerCase();
  const credit = fnFrom("function credit(address[] to, uint256[] amounts)");
  await send(rpc, { to: ledger, data: encodeData(credit, [holders as `0x${string}`[], amounts]) });
  const facades: string[] = [];
  for (const [k, s] of symbols.entries()) {
    const pin = typeof pinned === "string" ? pinned : pinned?.[k];
    const args = pin
      ? encodeParams(paramsFrom(["string", "address", "address"]), [
          s,
          ledger as `0x${string}`,
          pin as `0x${string}`,
        ])
      : encodeParams(paramsFrom(["string", "address"]), [s, ledger as `0x${string}`]);
    const code = pin ? c.PinnedFacade : c.LedgerFacade;
    facades.push(((await send(rpc, { data: code + args.slice(2) })).contractAddress as string).toLowerCase());
  }
  return { ledger, facades };
}
