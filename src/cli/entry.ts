import { main } from "./main.js";

// Exit as soon as the answer is out: keep-alive sockets and pool teardown would otherwise add tens of ms
// to every call. stdout and stderr are synchronous for files and pipes on Linux, so nothing is lost.
const code = await main(process.argv.slice(2));
process.exit(code);
