// The main job: start a throwaway litecoind -regtest on a free loopback port, mine some blocks, and show
// what chaingw does against it. Everything it starts, it stops.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startAnvil, startLitecoind } from "./regtest.mjs";

const ltc = await startLitecoind();
const { url, authUrl, datadir, port: rpcPort } = ltc;
const { user, password } = ltc.auth;
const rpc = (method, params = []) => ltc.rpc(method, params);

// funded addresses from a throwaway regtest wallet
await rpc("createwallet", ["demo"]);
const addresses = [];
for (let i = 0; i < 20; i++) addresses.push(await rpc("getnewaddress", ["", "bech32"]));
for (const [i, a] of addresses.entries()) await rpc("generatetoaddress", [i < 12 ? 1 + (i % 3) : 0, a]);
await rpc("generatetoaddress", [101, addresses[19]]);

const bin = join(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..", "bin", "chaingw");
const env = { ...process.env, CHAINGW_URL: authUrl };
const show = (args) => {
  console.log(`\n$ chaingw ${args.join(" ")}`);
  try {
    process.stdout.write(
      execFileSync(process.execPath, [bin, ...args], {
        env,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
  } catch (e) {
    process.stdout.write(String(e.stdout ?? ""));
    process.stderr.write(String(e.stderr ?? ""));
    console.log(`(exit ${e.status})`);
  }
};

console.log(
  `demo: litecoind -regtest on 127.0.0.1:${rpcPort} (datadir ${datadir}); CHAINGW_URL carries its credentials`,
);
show(["getblockchaininfo"]);
const hash = await rpc("getblockhash", [5]);
show(["getblock", hash]);
const tx = (await rpc("getblock", [hash])).tx[0];
show(["gettxout", tx, "0"]);
show(["--json", "gettxout", tx, "0"]);
show(["getblock", "00".repeat(32)]);
show(["getblock", "zz"]);

// the EVM group against a local anvil (npm @foundry-rs/anvil): a block, a transfer, its receipt-less lookup
const anvil = await startAnvil({ blocks: 3 });
const [from, to] = await anvil.rpc("eth_accounts");
const txHash = await anvil.rpc("eth_sendTransaction", [{ from, to, value: "0xde0b6b3a7640000" }]);
console.log(`\ndemo: anvil on ${anvil.url} (the EVM group)`);
show(["--chain", "evm", "--url", anvil.url, "eth_getBlockByNumber", "latest", "false"]);
show(["--chain", "evm", "--url", anvil.url, "eth_getTransactionByHash", txHash]);
show([
  "--chain",
  "evm",
  "--url",
  anvil.url,
  "eth_estimateGas",
  "--from",
  from,
  "--to",
  to,
  "--value",
  "1000",
]);
show(["--chain", "evm", "--url", anvil.url, "eth_getBlockByNumber", "pending-ish", "false"]);
await anvil.stop();

const reservesDemo = fileURLToPath(new URL("./demo-reserves.mjs", import.meta.url));
if (existsSync(reservesDemo)) {
  const { demoReserves } = await import(reservesDemo);
  const status = await demoReserves({ url, user, password, addresses: addresses.slice(0, 16), rpc });
  if (status) process.exitCode = status;
}
await ltc.stop();
