import { spawn } from "node:child_process";
import { createConnection } from "node:net";
import { freePort } from "./ports.js";
import { hasExited, sleep, terminate, trackChild } from "./procs.js";

export interface RedisServer {
  url: string;
  /** the redis-server process (SIGSTOP / SIGCONT it to make a hung Redis) */
  pid: number;
  stop(): Promise<void>;
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
