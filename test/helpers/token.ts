/**
 * The ERC-20-like test token (test/fixtures/evm/Token.sol, compiled once into Token.json by
 * scripts/compile-reserve-token.mjs): deployed on anvil from the stored bytecode, no compiler at test time.
 */
import { readFileSync } from "node:fs";
import { until } from "./procs.js";

export const TOKEN = JSON.parse(
  readFileSync(new URL("../fixtures/evm/Token.json", import.meta.url), "utf8"),
) as { abi: unknown[]; bytecode: string };
export const TOKEN_ABI_PATH = new URL("../fixtures/evm/Token.json", import.meta.url).pathname;

export type RpcFn = (method: string, params?: unknown[]) => Promise<any>;

export const word = (n: bigint | number | string): string =>
  (typeof n === "string" ? n.replace(/^0x/, "") : BigInt(n).toString(16)).padStart(64, "0");

/** anvil's first two dev accounts (funded, unlocked). */
export const ALICE = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
export const BOB = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";

/**
 * The receipt of `hash`, waited for as long as the node still holds the transaction (pending or mined): one
 * it dropped, or never had, gets no receipt, and the wait ends there, not at a clock (a loaded host mines
 * late, not wrong). A node that went away ends it too (its rpc throws). The one receipt wait of the helpers.
 */
export async function receipt(rpc: RpcFn, hash: string) {
  let r: any = null;
  await until(
    `the receipt of ${hash}`,
    async () => {
      r = await rpc("eth_getTransactionReceipt", [hash]);
      return r !== null;
    },
    async () => (await rpc("eth_getTransactionByHash", [hash])) !== null,
  );
  return r;
}

/** Sends a transaction from `from` and waits for its receipt (anvil mines one block per transaction). */
export async function send(rpc: RpcFn, tx: Record<string, string>) {
  const hash: string = await rpc("eth_sendTransaction", [{ gas: "0x1000000", ...tx }]);
  const r = await receipt(rpc, hash);
  if (r.status !== "0x1") throw new Error(`transaction failed: ${JSON.stringify(r)}`);
  return r;
}

/** Deploys the token with `supply` base units minted to ALICE; its address. */
export async function deployToken(rpc: RpcFn, supply: bigint): Promise<string> {
  const r = await send(rpc, { from: ALICE, data: `${TOKEN.bytecode}${word(supply)}` });
  return String(r.contractAddress).toLowerCase();
}

/** Selectors used below (checked against `cast sig` in the tests). */
export const SEL = { transfer: "0xa9059cbb", spam: "0xd337892d" };
