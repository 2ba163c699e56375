import { spawn } from "node:child_process";
import { createConnection } from "node:net";
import { freePort } from "./ports.js";
import { hasExited, sleep, terminate, trackChild } from "./procs.js";

export interface RedisServer {
  url: string;
  /** the redis-server process (SIGSTOP / SIGCONT it to make a hung Redis) */
  pid: number;
  /**
   * One command on a connection of its own (ACL SETUSER, INFO commandstats …): its reply as text (a status,
   * an error with its `-`, an integer, or a bulk string's body).
   */
  command(...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

/** Sends one command in RESP and reads its one reply (status, error, integer or bulk string). */
function command(port: number, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = createConnection({ port, host: "127.0.0.1" });
    let got = Buffer.alloc(0);
    s.setTimeout(5000, () => {
      s.destroy();
      reject(new Error(`redis ${args[0]}: no reply in 5 s`));
    });
    s.on("error", reject);
    s.on("data", (d: Buffer) => {
      got = Buffer.concat([got, d]);
      const eol = got.indexOf("\r\n");
      if (eol < 0) return;
      const head = got.subarray(0, eol).toString();
      let reply: string | undefined;
      if (head.startsWith("$")) {
        const n = Number(head.slice(1));
        if (n < 0) reply = "";
        else if (got.length >= eol + 2 + n) reply = got.subarray(eol + 2, eol + 2 + n).toString();
      } else reply = head;
      if (reply === undefined) return;
      s.destroy();
      resolve(reply);
    });
    s.on("connect", () =>
      s.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`),
    );
  });
}

/** Does a Redis answer PING on this port? */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ port, host: "127.0.0.1" });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(500, () => done(false));
    s.on("error", () => done(false));
    s.on("data", (d) => done(d.toString().startsWith("+PONG")));
    s.on("connect", () => s.write("PING\r\n"));
  });
}

/** Debian's redis-server on a free loopback port, nothing persisted (installed by scripts/setup.sh). */
export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const child = spawn(
    process.env.REDIS_SERVER_BIN ?? "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  trackChild(child);
  let err = "";
  child.stderr?.on("data", (c: Buffer) => (err += c.toString()));
  child.on("error", (e) => (err += String(e)));
  for (let i = 0; i < 200; i++) {
    if (hasExited(child)) throw new Error(`redis-server exited: ${err}`);
    if (await ping(port))
      return {
        url: `redis://127.0.0.1:${port}`,
        pid: child.pid as number,
        command: (...args) => command(port, args),
        stop: async () => {
          child.kill("SIGCONT");
          await terminate(child, 5000);
        },
      };
    await sleep(25);
  }
  await terminate(child, 1000);
  throw new Error(`redis-server not ready: ${err}`);
}
