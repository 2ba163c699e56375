/**
 * Secrets never printed, hostile upstreams, interrupts and closed pipes.
 * Every output this file captures is kept and scanned for the canary secrets in the last test.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fault, type FaultServer, startFaultServer } from "./fixtures/faults.js";
import { type Gateway, startGateway } from "./fixtures/gateway.js";
import { type CliOptions, type CliResult, runCli, spawnCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { HANG_GUARD_MS, running, until } from "./helpers/procs.js";

const KEY = "CANARY-KEY-a83f1c7e";
const PW = "CANARY-PW-5d2b8e61";
const COOKIE_PW = "CANARY-COOKIE-91e4c0";
const TOKEN = Buffer.from(`hard:${PW}`).toString("base64");
const CANARIES = [KEY, PW, COOKIE_PW, TOKEN, Buffer.from(`ck:${COOKIE_PW}`).toString("base64")];

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BIN = join(ROOT, "bin", "chaingw");

/** Everything any CLI run printed, for the canary scan at the end. */
const captured: string[] = [];
async function cli(args: string[], opts?: CliOptions): Promise<CliResult> {
  const r = await runCli(args, opts);
  captured.push(r.stdout, r.stderr);
  return r;
}
const lines = (s: string) => s.split("\n").filter((l) => l.length > 0);
const STACK = /^\s+at /m;

let ltc: LitecoinNode; // rpcpassword = PW
let ltcCookie: LitecoinNode; // rpcpassword = COOKIE_PW, used through a cookie file
let gw: Gateway;
let dir: string;
let cookieFile: string;
let blockHash: string;
const servers: { stop(): Promise<void> }[] = [];

interface Raw {
  url: string;
  hits: number;
  headers: IncomingMessage["headers"][];
  stop(): Promise<void>;
}

/** A bare HTTP server for answers the fault server does not make; counts hits and keeps headers. */
async function rawServer(
  handle: (req: IncomingMessage, res: ServerResponse, body: string) => void,
  host = "127.0.0.1",
): Promise<Raw> {
  const raw: Raw = { url: "", hits: 0, headers: [], stop: async () => {} };
  const server = createHttpServer((req, res) => {
    raw.hits++;
    raw.headers.push(req.headers);
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString("utf8");
    });
    req.on("end", () => handle(req, res, body));
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const { port } = server.address() as AddressInfo;
  raw.url = `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}/`;
  raw.stop = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  servers.push(raw);
  return raw;
}

const idOf = (body: string): unknown => {
  try {
    return JSON.parse(body).id ?? null;
  } catch {
    return null;
  }
};

beforeAll(async () => {
  [ltc, ltcCookie] = await Promise.all([
    startLitecoind({ rpcUser: "hard", rpcPassword: PW, blocks: 0 }),
    startLitecoind({ rpcUser: "ck", rpcPassword: COOKIE_PW, blocks: 3 }),
  ]);
  // 500 blocks for the --range | head test
  await ltc.mine(500);
  blockHash = await ltc.rpc<string>("getblockhash", [1]);
  gw = await startGateway({
    apiKey: KEY,
    products: { ltc: { url: ltc.url, user: "hard", password: PW } },
  });
  servers.push(gw);
  dir = mkdtempSync(join(tmpdir(), "chaingw-hard-"));
  cookieFile = join(dir, ".cookie");
  writeFileSync(cookieFile, `ck:${COOKIE_PW}`);
  chmodSync(cookieFile, 0o600);
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await Promise.all([ltc?.stop(), ltcCookie?.stop()]);
});

/** An upstream that echoes every credential it receives inside its JSON-RPC error message. */
const echoHandler = (req: IncomingMessage, res: ServerResponse, body: string) => {
  const msg = `you sent authorization=${req.headers.authorization} x-api-key=${req.headers["x-api-key"]}`;
  const one = (id: unknown) => ({ jsonrpc: "2.0", id, error: { code: -1, message: msg, data: msg } });
  let out: unknown;
  try {
    const p = JSON.parse(body);
    out = Array.isArray(p) ? p.map((e) => one(e.id)) : one(p.id);
  } catch {
    out = one(null);
  }
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(out));
};

describe("secrets never printed", () => {
  const authUrl = () => `http://hard:${PW}@127.0.0.1:${ltc.port}/`;

  it("password in --url / CHAINGW_URL: success, -v, --json, wrong password, refused endpoint", async () => {
    const ok = await cli(["-v", "getblockheader", blockHash, "--url", authUrl()]);
    expect(ok.exitCode).toBe(0);
    const viaEnv = await cli(["-v", "--json", "getblockchaininfo"], { env: { CHAINGW_URL: authUrl() } });
    expect(viaEnv.exitCode).toBe(0);
    const wrong = await cli([
      "-v",
      "--json",
      "rpc",
      "getblockcount",
      "--url",
      `http://hard:${PW}x@127.0.0.1:${ltc.port}/`,
    ]);
    expect(wrong.exitCode).not.toBe(0);
    const wrong2 = await cli([
      "-v",
      "getblockchaininfo",
      "--url",
      `http://hard:${PW}x@127.0.0.1:${ltc.port}/`,
    ]);
    expect(wrong2.exitCode).toBe(4);
    const refused = await cli([
      "-v",
      "--json",
      "getblockchaininfo",
      "--retries",
      "0",
      "--url",
      `http://hard:${PW}@127.0.0.1:1/`,
    ]);
    expect(refused.exitCode).toBe(3);
    expect(refused.stderr).toContain("http://127.0.0.1:1/");
  });

  it("cookie file: works, and its password never shows; a cookie file readable by others is refused", async () => {
    const ok = await cli([
      "-v",
      "--json",
      "getblockchaininfo",
      "--url",
      ltcCookie.url,
      "--rpc-cookie",
      cookieFile,
    ]);
    expect(ok.exitCode).toBe(0);
    expect(JSON.parse(ok.stdout).blocks).toBe(3);
    const open = join(dir, "open-cookie");
    writeFileSync(open, `ck:${COOKIE_PW}`);
    chmodSync(open, 0o640);
    const r = await cli(["getblockchaininfo", "--url", ltcCookie.url, "--rpc-cookie", open]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`chmod 600 ${open}`);
  });

  it("API key from env, file and profile (never argv); --api-key on argv works but warns about the process list", async () => {
    const base = ["-v", "--json", "rpc", "getblockcount", "--gateway", gw.baseUrl, "--product", "ltc"];
    expect((await cli(base, { env: { CHAINGW_API_KEY: KEY } })).stdout).toBe("500\n");
    const kf = join(dir, "key");
    writeFileSync(kf, `${KEY}\n`);
    chmodSync(kf, 0o600);
    expect((await cli([...base, "--api-key-file", kf])).stdout).toBe("500\n");
    const cfg = join(dir, "config.json");
    writeFileSync(
      cfg,
      JSON.stringify({
        defaultProfile: "g",
        profiles: { g: { gateway: gw.baseUrl, product: "ltc", apiKey: KEY } },
      }),
    );
    chmodSync(cfg, 0o600);
    expect(
      (await cli(["-v", "--json", "rpc", "getblockcount"], { env: { CHAINGW_CONFIG: cfg } })).stdout,
    ).toBe("500\n");
    const argv = await cli([...base, "--api-key", KEY]);
    expect(argv.exitCode).toBe(0);
    expect(argv.stderr).toMatch(/--api-key puts the key in the process list/);
    // the hidden flag stays out of --help
    expect((await cli(["--help"])).stdout).not.toContain("--api-key <key>");
  });

  it("wrong key: exit 4 in human, --json and -v modes", async () => {
    for (const extra of [[], ["--json"], ["-v"]]) {
      const r = await cli([...extra, "getblockchaininfo", "--gateway", gw.baseUrl, "--product", "ltc"], {
        env: { CHAINGW_API_KEY: `${KEY}-wrong` },
      });
      expect(r.exitCode).toBe(4);
    }
  });

  it("an upstream that echoes the credentials in its errors: scrubbed in human, --json, -v and batch output", async () => {
    const echo = await rawServer(echoHandler);
    const gwArgs = ["--gateway", echo.url, "--product", "p", "--retries", "0"];
    const env = { CHAINGW_API_KEY: KEY };
    for (const extra of [[], ["--json"], ["-v"]]) {
      const k = await cli([...extra, "getblockchaininfo", ...gwArgs], { env });
      expect(k.exitCode).toBe(1);
      expect(k.stderr).toContain("x-api-key=***");
      const p = await cli([...extra, "getblockchaininfo", "--url", `http://hard:${PW}@${echo.url.slice(7)}`]);
      expect(p.exitCode).toBe(1);
      expect(p.stderr).toContain("authorization=Basic ***");
      const c = await cli([...extra, "getblockchaininfo", "--url", echo.url, "--rpc-cookie", cookieFile]);
      expect(c.exitCode).toBe(1);
    }
    const input = '{"method":"getblockcount"}\nnot json\n{"method":"getblockchaininfo"}\n';
    const b = await cli(["batch", ...gwArgs], { env, input });
    expect(lines(b.stdout)).toHaveLength(3);
    expect(b.stdout).toContain("x-api-key=***");
    const bp = await cli(["batch", "-v", "--url", `http://hard:${PW}@${echo.url.slice(7)}`], { input });
    expect(lines(bp.stdout)).toHaveLength(3);
  });

  it("batch and --range through a gateway with the key, including bad lines, -v", async () => {
    const input = `{"method":"getblockcount"}\n{"method":"getblockheader","params":["zz"]}\n{"method":"getblockheader","params":["${blockHash}"]}\n`;
    const b = await cli(["-v", "batch", "--gateway", gw.baseUrl, "--product", "ltc"], {
      env: { CHAINGW_API_KEY: KEY },
      input,
    });
    expect(b.exitCode).toBe(2);
    expect(lines(b.stdout)).toHaveLength(3);
    const r = await cli(
      ["-v", "getblockheader", "--range", "1..5", "--gateway", gw.baseUrl, "--product", "ltc"],
      {
        env: { CHAINGW_API_KEY: KEY },
      },
    );
    expect(r.exitCode).toBe(0);
    expect(lines(r.stdout)).toHaveLength(5);
  });

  it("reserves report with credentials in the URL (the report and its errors)", async () => {
    const addr = await ltc.newAddress();
    const r = await cli(["-v", "--url", authUrl(), "reserves", "scan", addr]);
    const j = await cli(["--json", "--url", authUrl(), "reserves", "scan", addr]);
    const bad = await cli(["--url", `http://hard:${PW}@127.0.0.1:1/`, "reserves", "scan", addr]);
    for (const x of [r, j, bad]) expect(x.stderr).not.toMatch(STACK);
    expect(bad.exitCode).toBeGreaterThan(0);
  });

  it("malformed config, invalid URLs and open config files: exit 2, the secret not quoted", async () => {
    const cfg = join(dir, "broken.json");
    writeFileSync(cfg, `{"profiles":{"p":{"apiKey":${KEY}}}}`);
    chmodSync(cfg, 0o600);
    const r = await cli(["rpc", "getblockcount"], { env: { CHAINGW_CONFIG: cfg } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/is not valid JSON \(line 1\)/);
    const slash = await cli(["rpc", "getblockcount", "--url", `http://hard:a/${PW}@127.0.0.1:1/`]);
    expect(slash.exitCode).toBe(2);
    expect(slash.stderr).toContain("is not a URL");
    const gwBad = await cli([
      "rpc",
      "getblockcount",
      "--gateway",
      `http://hard:${PW}@[zz/`,
      "--product",
      "p",
    ]);
    expect(gwBad.exitCode).toBe(2);
    const openCfg = join(dir, "open.json");
    writeFileSync(openCfg, JSON.stringify({ defaultProfile: "p", profiles: { p: { url: authUrl() } } }));
    chmodSync(openCfg, 0o644);
    const o = await cli(["rpc", "getblockcount"], { env: { CHAINGW_CONFIG: openCfg } });
    expect(o.exitCode).toBe(2);
    expect(o.stderr).toContain(`chmod 600 ${openCfg}`);
  });

  const external = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && !i.internal && i.family === "IPv4")?.address;

  it.skipIf(!external)(
    `credentials over plain http to a non-loopback host (${external ?? "none here"}): exit 2, nothing sent; --insecure sends with a warning`,
    async () => {
      const srv = await rawServer((_q, res, body) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id: idOf(body), result: 7 }));
      }, "0.0.0.0");
      const port = new URL(srv.url).port;
      const plain = `http://${external}:${port}/`;
      const withPw = `http://hard:${PW}@${external}:${port}/`;
      const a = await cli(["rpc", "getblockcount", "--url", withPw]);
      expect(a.exitCode).toBe(2);
      expect(a.stderr).toMatch(/refusing to send credentials over plain http.*--insecure/);
      const b = await cli(["rpc", "getblockcount", "--gateway", plain, "--product", "p"], {
        env: { CHAINGW_API_KEY: KEY },
      });
      expect(b.exitCode).toBe(2);
      const c = await cli(["rpc", "getblockcount", "--url", plain, "--rpc-cookie", cookieFile]);
      expect(c.exitCode).toBe(2);
      expect(srv.hits).toBe(0);
      // without credentials plain http is fine
      const d = await cli(["--json", "rpc", "getblockcount", "--url", plain]);
      expect(d.stdout).toBe("7\n");
      expect(srv.hits).toBe(1);
      const e = await cli(["--json", "--insecure", "rpc", "getblockcount", "--url", withPw]);
      expect(e.exitCode).toBe(0);
      expect(e.stdout).toBe("7\n");
      expect(e.stderr).toMatch(/warning: --insecure: sending credentials over plain http/);
      expect(srv.hits).toBe(2);
    },
  );

  let hasOpenssl = true;
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
  } catch {
    hasOpenssl = false;
  }

  it.skipIf(!hasOpenssl)(
    "TLS is verified: a self-signed https upstream is exit 3 with a TLS message; --insecure accepts it (single calls and batch)",
    async () => {
      const keyFile = join(dir, "tls.key");
      const certFile = join(dir, "tls.crt");
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-subj",
          "/CN=localhost",
          "-days",
          "1",
          "-keyout",
          keyFile,
          "-out",
          certFile,
        ],
        { stdio: "ignore" },
      );
      let hits = 0;
      const server = createHttpsServer(
        { key: readFileSync(keyFile), cert: readFileSync(certFile) },
        (req, res) => {
          let body = "";
          req.on("data", (c: Buffer) => {
            body += c.toString("utf8");
          });
          req.on("end", () => {
            hits++;
            const p = JSON.parse(body);
            const one = (e: { id: unknown }) => ({ jsonrpc: "2.0", id: e.id, result: 42 });
            res.writeHead(200, { "content-type": "application/json" });
            res.end(JSON.stringify(Array.isArray(p) ? p.map(one) : one(p)));
          });
        },
      );
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      servers.push({ stop: () => new Promise<void>((r) => server.close(() => r())) });
      const url = `https://hard:${PW}@localhost:${(server.address() as AddressInfo).port}/`;
      const strict = await cli(["--json", "rpc", "getblockcount", "--url", url, "--retries", "0"]);
      expect(strict.exitCode).toBe(3);
      expect(strict.stdout).toBe("");
      expect(strict.stderr).toMatch(
        /TLS handshake failed \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\)/,
      );
      expect(lines(strict.stderr)).toHaveLength(1);
      const input = '{"method":"getblockcount"}\n{"method":"getblockcount"}\n';
      const strictBatch = await cli(["batch", "--url", url, "--retries", "0"], { input });
      expect(strictBatch.exitCode).toBe(3);
      expect(strictBatch.stdout).toMatch(/TLS handshake failed/);
      expect(hits).toBe(0);
      const loose = await cli(["--json", "--insecure", "rpc", "getblockcount", "--url", url]);
      expect(loose.exitCode).toBe(0);
      expect(loose.stdout).toBe("42\n");
      const looseBatch = await cli(["--insecure", "batch", "--url", url], { input });
      expect(looseBatch.exitCode).toBe(0);
      expect(lines(looseBatch.stdout)).toEqual(['{"id":1,"result":42}', '{"id":2,"result":42}']);
      expect(hits).toBeGreaterThan(0);
    },
  );
});

describe("hostile upstreams: one line, exit 3, no stack, no hang, nothing on stdout in --json", () => {
  let redirectTarget: Raw;
  const cases: {
    name: string;
    expect: RegExp;
    url: () => Promise<string>;
    args?: string[];
  }[] = [];
  const viaFault = async (fault: Fault, withUpstream = true): Promise<string> => {
    const fs: FaultServer = await startFaultServer({
      upstream: withUpstream ? { url: ltc.url, user: "hard", password: PW } : undefined,
      fault,
    });
    servers.push(fs);
    return fs.url;
  };
  const viaRaw = async (h: (req: IncomingMessage, res: ServerResponse, body: string) => void) =>
    (await rawServer(h)).url;
  const json = (
    res: ServerResponse,
    body: string,
    headers: Record<string, string> = { "content-type": "application/json" },
  ) => {
    res.writeHead(200, headers);
    res.end(body);
  };

  cases.push(
    {
      name: "response over --max-response (declared length)",
      expect: /exceeds the 1048576-byte cap \(--max-response\)/,
      url: () => viaFault({ kind: "huge", bytes: 3_000_000 }, false),
      args: ["--max-response", "1"],
    },
    {
      name: "response over --max-response (chunked, no length)",
      expect: /response exceeds the 1048576-byte cap/,
      args: ["--max-response", "1"],
      url: () =>
        viaRaw((_q, res, body) => {
          res.writeHead(200, { "content-type": "application/json" });
          res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(idOf(body))},"result":"`);
          const chunk = "a".repeat(64 * 1024);
          let n = 0;
          const pump = () => {
            while (n < 64 && !res.destroyed) {
              n++;
              if (!res.write(chunk)) return void res.once("drain", pump);
            }
            if (!res.destroyed) res.end('"}');
          };
          pump();
        }),
    },
    {
      name: "nesting 100k deep",
      expect: /nested deeper than 256 levels/,
      url: () => viaRaw((_q, res) => json(res, "[".repeat(100_000) + "]".repeat(100_000))),
    },
    {
      name: "nesting 100k deep inside result",
      expect: /nested deeper than 256 levels/,
      url: () =>
        viaRaw((_q, res, b) =>
          json(res, `{"jsonrpc":"2.0","id":${JSON.stringify(idOf(b))},"result":${"[".repeat(100_000)}`),
        ),
    },
    {
      name: "non-JSON body",
      expect: /HTTP 200 .*with a body that is not JSON/,
      url: () => viaRaw((_q, res) => json(res, "OK then", { "content-type": "text/plain" })),
    },
    { name: "empty body", expect: /with an empty body/, url: () => viaRaw((_q, res) => json(res, "")) },
    {
      name: "JSON with a wrong content type",
      expect: /content type text\/plain, not JSON/,
      url: () =>
        viaRaw((_q, res, b) =>
          json(res, JSON.stringify({ jsonrpc: "2.0", id: idOf(b), result: 1 }), {
            "content-type": "text/plain",
          }),
        ),
    },
    {
      name: "wrong id",
      expect: /answer carries id .*, expected \d+/,
      url: () => viaFault({ kind: "wrongId" }),
    },
    {
      name: "missing id",
      expect: /answer carries id \(none\)/,
      url: () => viaRaw((_q, res) => json(res, '{"jsonrpc":"2.0","result":1}')),
    },
    {
      name: "null id",
      expect: /answer carries id/,
      url: () => viaRaw((_q, res) => json(res, '{"jsonrpc":"2.0","id":null,"result":1}')),
    },
    {
      name: "neither result nor error",
      expect: /neither result nor error/,
      url: () => viaFault({ kind: "noResult" }, false),
    },
    {
      name: "JSON array where an object belongs",
      expect: /not a JSON-RPC object/,
      url: () => viaRaw((_q, res) => json(res, "[1,2,3]")),
    },
    {
      name: "HTML error page (502)",
      expect: /HTTP 502 \(text\/html\) with an HTML page/,
      url: () => viaFault({ kind: "html" }, false),
    },
    {
      name: "HTML page with HTTP 200",
      expect: /HTTP 200 \(text\/html\) with an HTML page/,
      url: () =>
        viaRaw((_q, res) => json(res, "<html><body>login</body></html>", { "content-type": "text/html" })),
    },
    { name: "truncated JSON", expect: /truncated JSON body/, url: () => viaFault({ kind: "truncated" }) },
    {
      name: "connection reset",
      expect: /connection reset|closed by the upstream/,
      url: () => viaFault({ kind: "reset" }, false),
    },
    {
      name: "headers never come (hang)",
      expect: /no complete answer within 1000 ms/,
      url: () => viaFault({ kind: "hang" }, false),
    },
    {
      name: "slowloris body (1 byte / 200 ms)",
      expect: /no complete answer within 1000 ms/,
      url: () => viaFault({ kind: "slowBody", chunkEveryMs: 200 }),
    },
    {
      name: "redirect (307 to another server)",
      expect: /HTTP 307 redirect to .* not followed/,
      url: async () => {
        redirectTarget = await rawServer((_q, res) =>
          json(res, '{"jsonrpc":"2.0","id":1,"result":"stolen"}'),
        );
        return viaRaw((_q, res) => {
          res.writeHead(307, { location: `${redirectTarget.url}steal` });
          res.end();
        });
      },
    },
    {
      name: "redirect (301 with a JSON body)",
      expect: /HTTP 301 redirect/,
      url: () =>
        viaRaw((_q, res) => {
          res.writeHead(301, { location: "https://elsewhere.invalid/", "content-type": "application/json" });
          res.end('{"jsonrpc":"2.0","id":1,"result":1}');
        }),
    },
  );

  for (const c of cases) {
    it(c.name, async () => {
      const base = await c.url();
      const url = `http://hard:${PW}@${base.slice(7)}`;
      const common = [
        "getblockchaininfo",
        "--url",
        url,
        "--retries",
        "0",
        "--request-timeout",
        "1",
        "--timeout",
        "5",
        ...(c.args ?? []),
      ];
      for (const mode of ["json", "human"] as const) {
        const r = await cli(mode === "json" ? ["--json", ...common] : common);
        expect(r.exitCode, r.stderr).toBe(3);
        expect(r.stdout).toBe("");
        expect(lines(r.stderr)).toHaveLength(1);
        expect(r.stderr).not.toMatch(STACK);
        expect(r.stderr).toMatch(c.expect);
        // ended by what the upstream did (the 1 s request timeout for the hang and the slowloris, whose
        // message names it), never by waiting out the 5 s overall --timeout: the tool's own account, not a
        // clock (a "< 4 s" failed at load 10)
        expect(r.stderr).not.toMatch(/overall --timeout reached/);
        if (mode === "json") expect(JSON.parse(r.stderr).error.code).toBe("transport");
        else expect(r.stderr).toMatch(/^chaingw: /);
      }
      if (c.name.startsWith("redirect (307")) {
        expect(redirectTarget.hits).toBe(0);
        expect(redirectTarget.headers).toEqual([]);
      }
    });
  }

  it("the default --max-response holds a verbosity-2-sized block (40 MB answer)", async () => {
    const url = await viaFault({ kind: "huge", bytes: 40 * 1024 * 1024 }, false);
    const r = await cli(["--json", "getblock", blockHash, "2", "--url", url, "--retries", "0"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(40 * 1024 * 1024 - 100);
    captured.pop(); // 40 MB of "a": nothing to scan
    captured.pop();
    captured.push(r.stderr);
  });

  it("batch over hostile upstreams: one error line per input line, exit 3, no stack", async () => {
    const input = `${'{"method":"getblockcount"}\n'.repeat(3)}`;
    for (const fault of [{ kind: "html" }, { kind: "noResult" }, { kind: "truncated" }] as Fault[]) {
      const url = await viaFault(fault);
      const r = await cli(["batch", "--url", url, "--retries", "0", "--request-timeout", "1"], { input });
      expect(r.exitCode).toBe(3);
      expect(lines(r.stdout)).toHaveLength(3);
      expect(r.stderr).not.toMatch(STACK);
    }
  });
});

describe("interrupts and closed pipes", () => {
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    it(`${sig} mid-call (upstream hanging) exits 130 with one line`, async () => {
      const fs = await startFaultServer({ fault: { kind: "hang" } });
      servers.push(fs);
      for (const json of [false, true]) {
        const before = fs.hits;
        const p = spawnCli([
          ...(json ? ["--json"] : []),
          "getblockchaininfo",
          "--url",
          `http://hard:${PW}@127.0.0.1:${fs.port}/`,
        ]);
        await until("the call at the node", () => fs.hits > before, running(p));
        expect(fs.hits).toBe(before + 1);
        p.kill(sig);
        const r = await p;
        captured.push(String(r.stdout), String(r.stderr));
        expect(r.exitCode).toBe(130);
        expect(String(r.stdout)).toBe("");
        // --json: the same fact as one JSON error object
        expect(lines(String(r.stderr))).toEqual([
          json
            ? JSON.stringify({ error: { code: "interrupted", message: "interrupted", interrupted_by: sig } })
            : "chaingw: interrupted",
        ]);
      }
    });
  }

  const sh = async (script: string, env: Record<string, string> = {}) => {
    const r = await execa("bash", ["-c", script], {
      reject: false,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", NO_COLOR: "1", HOME: dir, ...env },
      extendEnv: false,
      timeout: HANG_GUARD_MS,
    });
    captured.push(String(r.stdout), String(r.stderr));
    return r;
  };

  it("getblockheader --range 1..500 | head -1: quiet, exit 0", async () => {
    const r = await sh(
      `node ${BIN} getblockheader --range 1..500 --url "$U" | head -1; echo "status=\${PIPESTATUS[0]}" >&2`,
      { U: `http://hard:${PW}@127.0.0.1:${ltc.port}/` },
    );
    expect(lines(String(r.stdout))).toHaveLength(1);
    expect(JSON.parse(String(r.stdout)).id).toBe(1);
    expect(String(r.stderr).trim()).toBe("status=0");
  });

  it("batch of 5000 lines | head -1 and a human-mode call | head -c 10: quiet, exit 0", async () => {
    const f = join(dir, "many.jsonl");
    writeFileSync(f, '{"method":"getblockcount"}\n'.repeat(5000));
    const r = await sh(`node ${BIN} batch ${f} --url "$U" | head -1; echo "status=\${PIPESTATUS[0]}" >&2`, {
      U: `http://hard:${PW}@127.0.0.1:${ltc.port}/`,
    });
    expect(String(r.stdout)).toBe('{"id":1,"result":500}');
    expect(String(r.stderr).trim()).toBe("status=0");
    const h = await sh(
      `node ${BIN} getblock "$H" 2 --url "$U" | head -c 10 >/dev/null; echo "status=\${PIPESTATUS[0]}" >&2`,
      {
        U: `http://hard:${PW}@127.0.0.1:${ltc.port}/`,
        H: blockHash,
      },
    );
    expect(String(h.stderr).trim()).toBe("status=0");
  });
});

describe("canary scan (runs last)", () => {
  it("no canary secret in any captured stdout or stderr", () => {
    const all = captured.join("\n");
    const found = CANARIES.map((c) => [c, all.split(c).length - 1] as const).filter(([, n]) => n > 0);
    console.log(
      `canary scan: ${captured.length} captured outputs, ${(all.length / 1024).toFixed(0)} KB scanned, ${found.length === 0 ? "0 occurrences" : JSON.stringify(found)}`,
    );
    expect(captured.length).toBeGreaterThan(100);
    expect(found).toEqual([]);
  });
});
