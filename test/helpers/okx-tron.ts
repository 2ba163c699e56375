/**
 * TRON rows of an OKX-layout address file, for the tests that read one with `--node TRON=URL`: the layout's
 * header and fixed text, addresses and signatures made by TronWeb (signMessageV2, OKX's TRON v2 form), and
 * the TRX/USDT amounts of the TRON fixture (6 places) as a file writes them.
 */
import { TronWeb } from "tronweb";

export const OKX_MESSAGE = "I am an OKX address";
/** TRON mainnet's eth_chainId: the fixture answers it for an exchange's mainnet rows (`--node TRON=` is asked) */
export const TRON_MAINNET = "0x2b6653dc";
export const OKX_HEADER =
  "coin,Network,Snapshot Height,address,amount,message,signature1,signature2,redeem script/ public key, eoa1, eoa2";

export const tronAddress = (key: string): string => TronWeb.address.fromPrivateKey(key) as string;
/** TronWeb's signature of OKX's text by `key` (no node: signing is offline) */
export const tronSign = (key: string): string =>
  new TronWeb({ fullHost: "http://127.0.0.1:1" }).trx.signMessageV2(OKX_MESSAGE, key);
/** a T… address as the fixture keys its balances: 0x and 20 bytes */
export const hex20 = (addr: string): string => `0x${TronWeb.address.toHex(addr).slice(2)}`;
/** base units → decimal text with 6 places, trailing zeros kept off */
export const six = (v: bigint): string => {
  const s = v.toString().padStart(7, "0");
  return `${s.slice(0, -6)}.${s.slice(-6)}`.replace(/\.?0+$/, "");
};
