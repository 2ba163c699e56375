/**
 * The gateway transport (POST {base}/v1/{product}, X-API-Key) through a real HTTP fixture in front of a
 * real node; config precedence flag > env > profile > default; cookie auth; README's method table.
 */
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gateway, startGateway } from "./fixtures/gateway.js";
import { runCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";

const KEY = "gw-key-CANARY-5f3a9c";
let ltc: LitecoinNode;
let cookieNode: LitecoinNode;
let gw: Gateway;
let dir: string;

beforeAll(async () => {
  [ltc, cookieNode] = await Promise.all([
    startLitecoind({ blocks: 12 }),
    startLitecoind({ cookie: true, blocks: 3 }),
  ]);
  gw = await startGateway({
    apiKey: KEY,
    products: { "ltc-regtest": { url: ltc.url, user: ltc.user, password: ltc.password } },
  });
  dir = mkdtempSync(join(tmpdir(), "chaingw-cfg-"));
});

/** A file in the test's temp dir with the given content and mode. */
function secretFile(name: string, content: string, mode: number): string {
  const f = join(dir, name);
  writeFileSync(f, content);
  chmodSync(f, mode);
  return f;
}

afterAll(async () => {
  await gw?.stop();
  await Promise.all([ltc?.stop(), cookieNode?.stop()]);
});

describe("gateway transport", () => {
  it("happy path: POST /v1/<product> with X-API-Key from CHAINGW_API_KEY", async () => {
    const before = gw.hits.byProduct["ltc-regtest"] ?? 0;
    const r = await runCli(
      ["--json", "getblockchaininfo", "--gateway", gw.baseUrl, "--product", "ltc-regtest"],
      {
        env: { CHAINGW_API_KEY: KEY },
      },
    );
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).blocks).toBe(12);
    expect(gw.hits.byProduct["ltc-regtest"]).toBe(before + 1);
    expect(gw.lastHeaders?.["x-api-key"]).toBe(KEY);
  });

  it("key from --api-key-file (mode 600)", async () => {
    const f = secretFile("key", KEY + "\n", 0o600);
    const r = await runCli([
      "getblockchaininfo",
      "--gateway",
      gw.baseUrl,
      "--product",
      "ltc-regtest",
      "--api-key-file",
      f,
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^blocks\s+12$/m);
  });

  it("a key file readable by others is refused with the chmod to run, nothing sent", async () => {
    const f = secretFile("key-open", KEY, 0o644);
    const before = gw.hits.total;
    const r = await runCli([
      "getblockchaininfo",
      "--gateway",
      gw.baseUrl,
      "--product",
      "ltc-regtest",
      "--api-key-file",
      f,
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`chmod 600 ${f}`);
    expect(gw.hits.total).toBe(before);
  });

  it("missing key: exit 4 naming the gateway, with a hint", async () => {
    const r = await runCli(["getblockchaininfo", "--gateway", gw.baseUrl, "--product", "ltc-regtest"]);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain(`${gw.baseUrl}/v1/ltc-regtest`);
    expect(r.stderr).toContain("401");
  });

  it("wrong key: exit 4, and the key never printed even with --verbose", async () => {
    const r = await runCli(["-v", "getblockchaininfo", "--gateway", gw.baseUrl, "--product", "ltc-regtest"], {
      env: { CHAINGW_API_KEY: "wrong-key-CANARY-77" },
    });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain("403");
    expect(r.stderr + r.stdout).not.toContain("wrong-key-CANARY-77");
  });

  it("unknown product: refused, not a node's answer (exit 3) naming the product URL and the gateway's error", async () => {
    const r = await runCli(["getblockchaininfo", "--gateway", gw.baseUrl, "--product", "nope"], {
      env: { CHAINGW_API_KEY: KEY },
    });
    // a gateway's 404 with its own JSON-RPC error ran nothing: another gateway may have the product
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain("wrong URL or product?");
    expect(r.stderr).toContain("/v1/nope");
    expect(r.stderr).toContain("unknown product");
  });

  it("a node error through the gateway is still the node's error (exit 1, -5)", async () => {
    const r = await runCli(
      ["getblock", "00".repeat(32), "--gateway", gw.baseUrl, "--product", "ltc-regtest"],
      {
        env: { CHAINGW_API_KEY: KEY },
      },
    );
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("-5");
  });

  it("--gateway without --product is a usage error", async () => {
    const r = await runCli(["getblockchaininfo", "--gateway", gw.baseUrl]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("--product");
  });

  it("credentials over plain http to a non-loopback host are refused (exit 2)", async () => {
    const r = await runCli(["getblockchaininfo", "--gateway", "http://192.0.2.1:9", "--product", "p"], {
      env: { CHAINGW_API_KEY: KEY },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("--insecure");
    expect(r.stderr).not.toContain(KEY);
  });
});

describe("config precedence: flag > env > profile > default", () => {
  const writeConfig = (profiles: object, mode = 0o600) => {
    const f = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(f, JSON.stringify(profiles));
    chmodSync(f, mode);
    return f;
  };

  it("profile supplies gateway, product and key", async () => {
    const cfg = writeConfig({
      defaultProfile: "gw",
      profiles: { gw: { gateway: gw.baseUrl, product: "ltc-regtest", apiKey: KEY } },
    });
    const r = await runCli(["--json", "rpc", "getblockcount"], { env: { CHAINGW_CONFIG: cfg } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("12\n");
  });

  it("env beats the profile, and the flag beats env", async () => {
    const cfg = writeConfig({
      profiles: { bad: { url: "http://127.0.0.1:1/" }, good: { url: ltc.authUrl } },
    });
    const viaEnv = await runCli(["--json", "rpc", "getblockcount", "--profile", "bad"], {
      env: { CHAINGW_CONFIG: cfg, CHAINGW_URL: ltc.authUrl },
    });
    expect(viaEnv.stdout).toBe("12\n");
    const viaFlag = await runCli(["--json", "rpc", "getblockcount", "--url", cookieNode.authUrl], {
      env: { CHAINGW_CONFIG: cfg, CHAINGW_PROFILE: "good", CHAINGW_URL: ltc.authUrl },
    });
    expect(viaFlag.stdout).toBe("3\n");
    const viaProfile = await runCli(["--json", "rpc", "getblockcount"], {
      env: { CHAINGW_CONFIG: cfg, CHAINGW_PROFILE: "good" },
    });
    expect(viaProfile.stdout).toBe("12\n");
  });

  it("a config file holding an apiKey readable by others is refused", async () => {
    const cfg = writeConfig(
      {
        defaultProfile: "gw",
        profiles: { gw: { gateway: gw.baseUrl, product: "ltc-regtest", apiKey: KEY } },
      },
      0o644,
    );
    const r = await runCli(["rpc", "getblockcount"], { env: { CHAINGW_CONFIG: cfg } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("chmod 600");
    expect(r.stderr).not.toContain(KEY);
  });

  it("unknown profile is a usage error naming it", async () => {
    const cfg = writeConfig({ profiles: {} });
    const r = await runCli(["rpc", "getblockcount", "--profile", "zzz"], { env: { CHAINGW_CONFIG: cfg } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('"zzz"');
  });

  it("--rpc-cookie reads the node's cookie; its secret is never printed", async () => {
    const cookie = readFileSync(cookieNode.cookieFile, "utf8");
    const r = await runCli([
      "-v",
      "--json",
      "rpc",
      "getblockcount",
      "--url",
      cookieNode.url,
      "--rpc-cookie",
      cookieNode.cookieFile,
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("3\n");
    expect(r.stderr).not.toContain(cookie.split(":")[1]);
  });
});

describe("docs derived from the registry", () => {
  it("docs/methods.md's method table (the README links it) equals `chaingw methods --markdown`", async () => {
    const r = await runCli(["methods", "--markdown"]);
    const readme = readFileSync(new URL("../docs/methods.md", import.meta.url), "utf8");
    const section = readme.split("<!-- methods:start -->")[1].split("<!-- methods:end -->")[0].trim();
    expect(section).toBe(r.stdout.trim());
  });
});

describe("credentials stay with the endpoints they were configured for", () => {
  it("a profile's cookie is not sent to a URL given by flag", async () => {
    const f = join(dir, `config-cookie-${Date.now()}.json`);
    writeFileSync(
      f,
      JSON.stringify({
        defaultProfile: "p",
        profiles: { p: { url: "http://127.0.0.1:1/", rpcCookie: cookieNode.cookieFile } },
      }),
    );
    chmodSync(f, 0o600);
    // the flag URL is the cookie node itself, without credentials: with the profile's cookie it would answer
    const r = await runCli(["rpc", "getblockcount", "--url", cookieNode.url], { env: { CHAINGW_CONFIG: f } });
    expect(r.exitCode).toBe(4);
    const viaProfile = await runCli(
      ["rpc", "getblockcount", "--json", "--url", cookieNode.url, "--rpc-cookie", cookieNode.cookieFile],
      {
        env: { CHAINGW_CONFIG: f },
      },
    );
    expect(viaProfile.stdout).toBe("3\n");
  });
});
