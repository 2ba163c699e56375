import { closePools } from "../rpc/http.js";
import { main } from "./main.js";

const code = await main(process.argv.slice(2));
await closePools();
process.exitCode = code;
