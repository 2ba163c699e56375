/**
 * `reserves verify` of an exchange's address file with a node (`--node NET=URL`): balances re-read at the
 * snapshot block and contract wallets' owners asked of the chain. Real anvil; a file built in OKX's 2024-26
 * layout whose signatures are made by `cast wallet sign` over keccak256(message) (OKX's EVM form); a
 * Safe-style wallet compiled with solc-js (test/fixtures/exchange/ownership/contracts/OwnersWallet.sol) and
 * the ERC-20 of test/fixtures/token. Each forgery (a balance above what the chain held at the snapshot,
 * owners the contract does not name, an EOA passed off as a contract) beside the honest file that holds.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { trackDir } from "./helpers/procs.js";

const CAST = new URL("../node_modules/.bin/cast", import.meta.url).pathname;
const K0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const A0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const K1 = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const A1 = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const A2 = "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc";
const MESSAGE = "I am an OKX address";
const WALLET = JSON.parse(
  readFileSync(new URL("./fixtures/exchange/ownership/contracts/ownerswallet.json", import.meta.url), "utf8"),
).contracts.OwnersWallet as string;
const TOKEN = JSON.parse(readFileSync(new URL("./fixtures/token/token.json", import.meta.url), "utf8"))
  .contracts.Token as string;
const cast = (...args: string[]) => execFileSync(CAST, args, { encoding: "utf8" }).trim();
/** OKX's EVM form: personal_sign over the 32 bytes of keccak256(message) (cast signs 0x… text as bytes) */
const okxSign = (key: string) => cast("wallet", "sign", "--private-key", key, cast("keccak", MESSAGE));
const word = (a: string) => a.slice(2).padStart(64, "0");

let dir: string;
let anvil: AnvilNode;
let wallet: string;
let stranger: string;
let token: string;
let height: number;

async function send(tx: Record<string, string>): Promise<string | undefined> {
  const hash = await anvil.rpc<string>("eth_sendTransaction", [{ from: A0, gas: "0x1c9c380", ...tx }]);
  for (let i = 0; i < 200; i++) {
    const r = await anvil.rpc<{ contractAddress: string | null; status: string } | null>(
      "eth_getTransactionReceipt",
      [hash],
    );
    if (r) {
      expect(r.status).toBe("0x1");
      return r.contractAddress?.toLowerCase();
    }
    await new Promise((ok) => setTimeout(ok, 25));
  }
  throw new Error("not mined");
}

const HEADER =
  "coin,Network,Snapshot Height,address,amount,message,signature1,signature2,redeem script/ public key, eoa1, eoa2";
function okxFile(name: string, rows: string[]): string {
  const p = join(dir, name);
  writeFileSync(p, `coin,snapshot height,amount\nETH(ALL),${height},9002\n\n${HEADER}\n${rows.join("\n")}\n`);
  return p;
}
const eoaRow = (coin: string, address: string, amount: string, key: string) =>
  `${coin},ETH,${height},${address},${amount},${MESSAGE},${okxSign(key)},,`;
const walletRow = (address: string, amount: string, owners = [A0, A1]) =>
  `ETH,ETH,${height},${address},${amount},${MESSAGE},${okxSign(K0)},${okxSign(K1)},,${owners[0]},${owners[1]}`;

interface Report {
  verdict: string;
  rows: {
    line: number;
    proven: boolean | null;
    status: string;
    reason: string;
    balance?: { holds: boolean; value: string };
  }[];
}
const verify = async (file: string, ...more: string[]) => {
  const r = await runCli([
    "reserves",
    "verify",
    file,
    "--json",
    "--node",
    `ETH=${anvil.url}`,
    "--stand-in",
    "ethereum",
    ...more,
  ]);
  return { ...r, report: JSON.parse(r.stdout) as Report };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-exchange-chain-"));
  trackDir(dir);
  // chain id 1: the file's ETH rows are Ethereum's, and a --node must say it is on their chain
  anvil = await startAnvil(["--chain-id", "1"]);
  wallet = (await send({ data: `${WALLET}${word(A0)}${word(A1)}${word("0x2")}` })) as string;
  stranger = (await send({ data: `${WALLET}${word(A0)}${word(A2)}${word("0x2")}` })) as string;
  token = (await send({
    data: `${TOKEN}${cast("abi-encode", "constructor(string,uint8)", "USDT", "6").slice(2)}`,
  })) as string;
  await send({ to: token, data: cast("calldata", "mint(address[],uint256[])", `[${A0}]`, "[100000000]") });
  // 2 ETH each, sent in real transactions; the block after them is the snapshot
  await send({ to: wallet, value: "0x1bc16d674ec80000" });
  await send({ to: stranger, value: "0x1bc16d674ec80000" });
  height = Number(BigInt(await anvil.rpc<string>("eth_blockNumber", [])));
  // after the snapshot the wallet receives 5 ETH more: the balance at the snapshot block is what counts
  await send({ to: wallet, value: "0x4563918244f40000" });
});

afterAll(async () => {
  await anvil?.stop();
});

describe("an OKX-layout file checked against anvil", () => {
  it("holds: an EOA's ether and token at the snapshot block, a contract wallet whose owners sign and whom the contract names (threshold 2)", async () => {
    const file = okxFile("honest.csv", [
      eoaRow("ETH", A0, "9000", K0),
      walletRow(wallet, "2"),
      eoaRow("USDT", A0, "100", K0),
    ]);
    const { exitCode, report, stderr } = await verify(file, "--token", `USDT=${token}`);
    expect(stderr).toBe("");
    expect(report.rows.map((r) => r.status)).toEqual(["proven", "proven", "proven"]);
    expect(report.rows[1]?.reason).toContain(
      `the contract names them among its 2 owners, threshold 2, at block ${height}`,
    );
    expect(report.rows[1]?.balance).toMatchObject({ holds: true, value: "2.000000000000000000" });
    expect(report.rows[2]?.balance).toMatchObject({ holds: true, value: "100.000000" });
    expect(report.verdict).toBe("holds");
    expect(exitCode).toBe(0);
  });

  it("one chain, any spelling: USDT on network ERC20, or USDT-ERC20, is read by --node ETH=; --node ETH= and --node ERC20= together refused", async () => {
    const files = [
      okxFile("erc20.csv", [`USDT,ERC20,${height},${A0},100,${MESSAGE},${okxSign(K0)},,`]),
      okxFile("usdt-erc20.csv", [`USDT-ERC20,,${height},${A0},100,${MESSAGE},${okxSign(K0)},,`]),
    ];
    for (const file of files) {
      const { exitCode, report, stderr } = await verify(file, "--token", `USDT=${token}`);
      expect(stderr).toBe("");
      // before: no node named ERC20, so the row was not read (signed, the amount claimed: exit 3)
      expect(report.rows.map((r) => [r.status, r.balance?.holds])).toEqual([["proven", true]]);
      expect(exitCode).toBe(0);
    }
    const both = await runCli([
      "reserves",
      "verify",
      files[0] as string,
      "--node",
      `ETH=${anvil.url}`,
      "--stand-in",
      "ethereum",
      "--node",
      `ERC20=${anvil.url}`,
    ]);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toBe(
      'chaingw: --node "ETH" and --node "ERC20" name one chain (the files\' "ETH"): give one of them\n',
    );
  });

  it("fails: a balance above what the chain held at the snapshot, naming the row", async () => {
    const { exitCode, report } = await verify(okxFile("raised.csv", [walletRow(wallet, "2.5")]));
    expect(report.rows[0]).toMatchObject({ proven: false, status: "failed" });
    expect(report.rows[0]?.reason).toContain(
      `holds 2.000000000000000000 at block ${height}, less than the 2.500000000000000000 claimed`,
    );
    expect(exitCode).toBe(1);
  });

  it("fails: owners who sign but whom the contract does not name; an EOA passed off as a contract", async () => {
    const { exitCode, report } = await verify(
      okxFile("strangers.csv", [walletRow(stranger, "1"), walletRow(A2, "0")]),
    );
    expect(report.rows[0]).toMatchObject({ proven: false, status: "failed" });
    expect(report.rows[0]?.reason).toContain(`${A1} is not among them`);
    expect(report.rows[1]?.reason).toContain(`${A2} has no code at block ${height}`);
    expect(exitCode).toBe(1);
  });

  it("a coin that is not the network's own (BNB on ETH, the forger's relabel of an ETH row): its ether is not read as BNB; the ETH row holds", async () => {
    const file = okxFile("native.csv", [eoaRow("ETH", A0, "1", K0), eoaRow("BNB", A0, "1", K0)]);
    const { report } = await verify(file);
    expect(report.rows[0]).toMatchObject({ status: "proven", balance: { holds: true } });
    expect(report.rows[1]?.balance).toMatchObject({ holds: null });
    expect(report.rows[1]?.reason ?? "").not.toContain("less than");
    expect(JSON.stringify(report.rows[1]?.balance)).toContain("BNB is not ETH's own coin");
  });

  it("cannot say: a token row whose contract is not given; the same wallet without a node", async () => {
    const file = okxFile("token.csv", [eoaRow("USDT", A0, "100", K0)]);
    const { report } = await verify(file);
    expect(report.rows[0]?.balance).toMatchObject({ holds: null });
    const bare = await runCli([
      "reserves",
      "verify",
      okxFile("bare.csv", [walletRow(wallet, "2")]),
      "--json",
    ]);
    expect(bare.exitCode).toBe(3);
    expect(JSON.parse(bare.stdout).rows[0].reason).toContain("needs a node (--node NET=URL), not checked");
  });
});

describe("every --node is asked which chain it is on before a row is read on it", () => {
  it("ETH's or LINEA's rows on a node of another chain (anvil's 31337): exit 2 naming both chains, nothing judged; the same rows on their own chains' nodes are proven; a chain chaingw cannot name: its rows cannot say", async () => {
    const [devnet, linea] = await Promise.all([startAnvil(), startAnvil(["--chain-id", "59144"])]);
    try {
      await Promise.all([devnet, linea].map((n) => n.rpc("anvil_mine", [`0x${height.toString(16)}`])));
      const lineaRow = `ETH,LINEA,${height},${A0},9000,${MESSAGE},${okxSign(K0)},,`;
      const eth = okxFile("eth.csv", [eoaRow("ETH", A0, "9000", K0)]);
      const onLinea = okxFile("linea.csv", [lineaRow]);
      const run = (file: string, node: string) => runCli(["reserves", "verify", file, "--node", node]);
      // the forger's node: a devnet that holds what the file claims, given for Ethereum's or Linea's rows
      const forgedEth = await run(eth, `ETH=${devnet.url}`);
      expect(forgedEth.exitCode).toBe(2);
      expect(forgedEth.stdout).toBe("");
      expect(forgedEth.stderr).toBe(
        "chaingw: --node ETH=…: the node is on anvil (chain id 31337), not Ethereum, the chain of the file's ETH rows; give a node of Ethereum. Nothing was checked\n",
      );
      const forgedLinea = await run(onLinea, `LINEA=${devnet.url}`);
      expect(forgedLinea.exitCode).toBe(2);
      expect(forgedLinea.stderr).toBe(
        "chaingw: --node LINEA=…: the node is on anvil (chain id 31337), not LINEA (chain id 59144), the chain of the file's LINEA rows; give a node of LINEA (chain id 59144). Nothing was checked\n",
      );
      // the honest controls: each file on a node of its rows' chain
      const honestEth = await verify(eth);
      expect(honestEth.report.rows.map((r) => r.status)).toEqual(["proven"]);
      const honestLinea = await runCli([
        "reserves",
        "verify",
        onLinea,
        "--json",
        "--node",
        `LINEA=${linea.url}`,
      ]);
      expect(honestLinea.stderr).toBe("");
      expect((JSON.parse(honestLinea.stdout) as Report).rows.map((r) => r.status)).toEqual(["proven"]);
      // ZKSYNC may be zkSync Lite, no EVM chain: no chain id to check the node against, its rows not read
      const zk = okxFile("zk.csv", [`ETH,ZKSYNC,${height},${A0},9000,${MESSAGE},${okxSign(K0)},,`]);
      const unknown = await runCli(["reserves", "verify", zk, "--json", "--node", `ZKSYNC=${devnet.url}`]);
      const row = (JSON.parse(unknown.stdout) as Report).rows[0];
      expect(row?.status).not.toBe("proven");
      expect(row?.reason).toContain(
        "chaingw does not know which chain ZKSYNC is, so the node given for it (on anvil (chain id 31337)) is not known to be its: its balances are not read",
      );
      expect(unknown.exitCode).toBe(3);
    } finally {
      await Promise.all([devnet.stop(), linea.stop()]);
    }
  });

  it("a node that answers 503: the row is cannot say at the verifier (exit 3), the node named without its credentials; the same file on anvil proven (exit 0)", async () => {
    let hits = 0;
    const down = createServer((_req, res) => {
      hits++;
      res.writeHead(503, { "content-type": "text/plain" }).end("service unavailable");
    });
    await new Promise<void>((ok) => down.listen(0, "127.0.0.1", ok));
    const port = (down.address() as AddressInfo).port;
    try {
      const file = okxFile("down.csv", [eoaRow("ETH", A0, "9000", K0)]);
      const honest = await verify(file);
      expect(honest.report.rows.map((r) => r.status)).toEqual(["proven"]);
      expect(honest.exitCode).toBe(0);
      const r = await runCli([
        "reserves",
        "verify",
        file,
        "--json",
        "--node",
        `ETH=http://auditor:s3cret@127.0.0.1:${port}/`,
      ]);
      const row = (JSON.parse(r.stdout) as Report).rows[0];
      // before: status "signed" (signed, the amount claimed), which solvency had to patch into cannot say
      expect(row?.status).toBe("cannot-say");
      expect(row?.proven).toBe(null);
      expect(row?.reason).toContain(
        `cannot say: the node given for ETH (http://127.0.0.1:${port}/) did not answer which chain it is on (`,
      );
      expect(row?.reason).toContain("its balance is not read");
      expect(`${r.stdout}${r.stderr}`).not.toContain("s3cret");
      expect((JSON.parse(r.stdout) as Report).verdict).toBe("cannot-say");
      expect(r.exitCode).toBe(3);
      expect(hits).toBeGreaterThan(0);
    } finally {
      down.close();
    }
  });
});
