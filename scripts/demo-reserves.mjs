// The demo's last act: a whole audit on the demo's own regtest node, as a custodian, an auditor and a
// customer would run it — reserves signed by the node's wallet over the audit's challenge and proven,
// liabilities committed with that challenge, one customer checking their inclusion, `solvency --verify`
// SOLVENT, a proof signed over another custodian's text refused beside it, and one real exchange file judged.
// scripts/demo.mjs calls demoReserves() with its throwaway node; nothing here starts or stops a node.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BIN = join(ROOT, "bin", "chaingw");
/** OKX's v2 sample (okx/proof-of-reserves, example/): a customer's leaves, the full tree, its root */
const OKX = join(ROOT, "test", "fixtures", "exchange", "liabilities");
const OKX_ROOT = "9e98ebde32ef22ded88a5fb2d5e53d76ed57cb9c6b2c966f250721defe6ab041";

/**
 * Runs the audit against the node at `url` (its wallet signs; the password travels in CHAINGW_URL and
 * --url-for, never on a printed line) and prints what each party sees.
 * @param {{ url: string, user: string, password: string, addresses: string[],
 *   rpc: (method: string, params?: unknown[]) => Promise<any> }} o
 * @returns {Promise<number>} 0 when every step said what it should
 */
export async function demoReserves({ url, user, password, addresses, rpc }) {
  const u = new URL(url);
  u.username = encodeURIComponent(user);
  u.password = encodeURIComponent(password);
  const secret = u.toString();
  const dir = mkdtempSync(join(tmpdir(), "chaingw-demo-"));
  // what an auditor opens afterwards — the report package and the customer's page — is kept in the
  // repository's .tmp/demo-audit/ (git ignores .tmp/; CHAINGW_DEMO_OUT names another place), new each run
  const out = process.env.CHAINGW_DEMO_OUT || join(ROOT, ".tmp", "demo-audit");
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const kept = out.startsWith(ROOT) ? out.slice(ROOT.length) : out;
  // every file is named relative to the audit's directory, where chaingw runs
  const at = (f) => f;
  const shown = (a) =>
    a.map((x) => x.replaceAll(secret, "$NODE").replaceAll(`${dir}/`, "").replaceAll(out, kept));
  let failed = 0;
  /** an argument as a shell reads it back: quoted where it has a space ("Demo Auditor") */
  const quoted = (x) => (/\s/.test(x) ? JSON.stringify(x) : x);
  /** runs chaingw, prints the command (paths short, no credentials) and what it printed; checks the exit */
  const run = (args, want, label = shown(args).map(quoted).join(" ")) => {
    console.log(`\n$ chaingw ${label}`);
    const s = spawnSync(process.execPath, [BIN, ...args], {
      cwd: dir,
      env: { ...process.env, CHAINGW_URL: secret },
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    process.stdout.write(s.stdout ?? "");
    process.stderr.write(s.stderr ?? "");
    if (s.status !== 0) console.log(`(exit ${s.status})`);
    if (s.status !== want) {
      failed++;
      console.log(`demo: expected exit ${want}, got ${s.status}`);
    }
    return s;
  };

  // the plain scan first: what the node holds at these addresses, nobody's signature yet
  run(["reserves", "scan", ...addresses], 0, `reserves scan <${addresses.length} funded addresses>`);

  // 1. the auditor picks the audit's challenge; the custodian's wallet signs it with two of its keys
  const challenge = `Demo Exchange: proof of reserves audit ${new Date().toISOString().slice(0, 10)}`;
  console.log(`\ndemo: the auditor's challenge is ${JSON.stringify(challenge)}`);
  const keys = [await rpc("getnewaddress", ["", "legacy"]), await rpc("getnewaddress", ["", "legacy"])];
  await rpc("sendtoaddress", [keys[0], 5]);
  await rpc("sendtoaddress", [keys[1], 2.5]);
  await rpc("generatetoaddress", [1, addresses[0]]);
  /** `address,signature` lines: the wallet's signature of each key over `text`, written to `file` */
  const sign = async (file, text) => {
    const lines = [];
    for (const k of keys) lines.push(`${k},${await rpc("signmessage", [k, text])}`);
    writeFileSync(join(dir, file), `${lines.join("\n")}\n`);
  };
  await sign("signatures.csv", challenge);
  run(
    [
      "reserves",
      "scan",
      ...keys,
      "--proof",
      at("reserves.json"),
      "--challenge",
      challenge,
      "--signatures",
      at("signatures.csv"),
    ],
    0,
    `reserves scan <2 wallet addresses> --proof reserves.json --challenge "…" --signatures signatures.csv`,
  );
  run(
    ["reserves", "verify", at("reserves.json"), "--challenge", challenge],
    0,
    'reserves verify reserves.json --challenge "…"',
  );

  // 2. the custodian commits what it owes its customers, under the same challenge
  writeFileSync(
    join(dir, "balances.csv"),
    "customer_id,asset,amount\nalice,LTC,2.5\nbob,LTC,1.75\ncarol,LTC,0.3\ndave,LTC,2.2\n",
  );
  writeFileSync(join(dir, "assets.csv"), "asset,decimals\nLTC,8\n");
  run(
    [
      "liabilities",
      "build",
      "--input",
      at("balances.csv"),
      "--assets",
      at("assets.csv"),
      "--out",
      at("audit"),
      "--challenge",
      challenge,
    ],
    0,
    'liabilities build --input balances.csv --assets assets.csv --out audit --challenge "…"',
  );

  // 3. one customer checks their inclusion, offline
  const proof = spawnSync(process.execPath, [BIN, "liabilities", "proof", "--out", at("audit"), "alice"], {
    cwd: dir,
    encoding: "utf8",
  });
  writeFileSync(join(dir, "alice.json"), proof.stdout);
  console.log("\n$ chaingw liabilities proof --out audit alice > alice.json");
  run(
    [
      "liabilities",
      "verify",
      at("alice.json"),
      "--commitment",
      at("audit/commitment.json"),
      "--customer",
      "alice",
    ],
    0,
  );
  // the same check as a page the customer opens: it recomputes the path in their browser, offline
  run(["liabilities", "proof", "--out", at("audit"), "alice", "--html", join(out, "alice.html")], 0);

  // 4. the auditor: the liabilities against the reserves, re-read on the chain
  const solvency = (reserves, want, more = []) =>
    run(
      [
        "solvency",
        "--liabilities",
        at("audit/commitment.json"),
        "--reserves",
        `LTC=${reserves}`,
        "--backing",
        "LTC=litecoin-regtest",
        "--verify",
        "--url-for",
        `utxo=${secret}`,
        ...more,
      ],
      want,
    );
  // with the package the auditor hands the client: the page, the CSVs, every document read, MANIFEST.sha256
  const pkg = join(out, "package");
  const scope = ["--auditor", "Demo Auditor", "--entity", "Demo Exchange", "--period", challenge.slice(-10)];
  solvency(at("reserves.json"), 0, ["--report", pkg, ...scope]);
  run(["report", "verify", pkg], 0);

  // 5. beside it, a forgery: the same coins, signed over another custodian's challenge (anyone's public
  //    proof) — it holds on its own terms, and proves nothing for this audit
  const other = "Another Exchange: proof of reserves audit";
  await sign("other.csv", other);
  run(
    [
      "reserves",
      "scan",
      ...keys,
      "--proof",
      at("other.json"),
      "--challenge",
      other,
      "--signatures",
      at("other.csv"),
    ],
    0,
    `reserves scan <2 wallet addresses> --proof other.json --challenge ${JSON.stringify(other)} --signatures other.csv`,
  );
  solvency(at("other.json"), 1);

  // 6. a real exchange's file: OKX's published v2 sample, against the root OKX published
  run(
    [
      "liabilities",
      "verify",
      join(OKX, "okx-v2-user_info_file.json"),
      join(OKX, "okx-v2-full-liabilities-merkle-tree.txt"),
      "--root",
      OKX_ROOT,
    ],
    0,
    // the line as it runs from the repository's root: both files' paths and the whole root, to copy
    `liabilities verify test/fixtures/exchange/liabilities/okx-v2-user_info_file.json test/fixtures/exchange/liabilities/okx-v2-full-liabilities-merkle-tree.txt --root ${OKX_ROOT}`,
  );
  rmSync(dir, { recursive: true, force: true });
  console.log(`\ndemo: kept for you to open in a browser (each page self-contained, offline):
  ${join(kept, "package", "index.html")}   the report package's page (chaingw report verify ${join(kept, "package")})
  ${join(kept, "alice.html")}   alice's page: checks her inclusion in her browser`);
  return failed ? 1 : 0;
}
