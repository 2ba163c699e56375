// The main job: start a throwaway litecoind -regtest on a free loopback port, mine some blocks, and show
// what chaingw does against it. Everything it starts, it stops.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const datadir = mkdtempSync(join(tmpdir(), "chaingw-demo-"));
const [rpcPort, p2pPort] = [await freePort(), await freePort()];
const user = "demo";
const password = Math.random().toString(36).slice(2) + Math.random().toString(36).slice(2);
const node = spawn(
  "litecoind",
  [
    "-regtest",
    "-server",
    "-listen=0",
    `-port=${p2pPort}`,
    `-rpcport=${rpcPort}`,
    "-rpcbind=127.0.0.1",
    "-rpcallowip=127.0.0.1",
    `-datadir=${datadir}`,
    "-vbparams=mweb:-2:0",
    "-fallbackfee=0.0001",
    `-rpcuser=${user}`,
    `-rpcpassword=${password}`,
    "-printtoconsole=0",
    "-daemon=0",
  ],
  { stdio: "ignore" },
);
const cleanup = () => {
  try {
    node.kill("SIGTERM");
  } catch {}
  rmSync(datadir, { recursive: true, force: true });
};
process.on("exit", cleanup);
process.on("SIGINT", () => process.exit(130));

const url = `http://127.0.0.1:${rpcPort}/`;
const authUrl = `http://${user}:${password}@127.0.0.1:${rpcPort}/`;
async function rpc(method, params = []) {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: "Basic " + Buffer.from(`${user}:${password}`).toString("base64"),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = await res.json();
  if (body.error) throw Object.assign(new Error(body.error.message), { code: body.error.code });
  return body.result;
}
for (let i = 0; ; i++) {
  try {
    await rpc("getblockchaininfo");
    break;
  } catch (e) {
    if (i > 100) throw new Error(`litecoind did not start: ${e.message}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

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

const reservesDemo = join(import.meta.dirname ?? ".", "demo-reserves.mjs");
if (existsSync(reservesDemo)) {
  const { demoReserves } = await import(reservesDemo);
  await demoReserves({ url, user, password, addresses: addresses.slice(0, 16) });
}
cleanup();
