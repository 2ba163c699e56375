import { createServer } from "node:net";

/**
 * A loopback TCP port that was free a moment ago. The kernel picks it (port 0), so parallel
 * workers rarely collide; callers that bind it later should still tolerate EADDRINUSE.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      if (addr === null || typeof addr === "string") {
        srv.close();
        reject(new Error("freePort: no TCP address"));
        return;
      }
      const port = addr.port;
      srv.close((err) => (err ? reject(err) : resolve(port)));
    });
  });
}
