// undici's Pool and request API, imported by path: the package index also loads fetch, websockets and
// caches, which costs ~35 ms of start-up on every call (measured, see bench/). The types are the package's own.
declare module "undici/lib/dispatcher/pool.js" {
  import { Pool } from "undici";
  export default Pool;
}
declare module "undici/lib/api/api-request.js" {
  import type { Dispatcher } from "undici";

  const request: (this: Dispatcher, opts: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
  export default request;
}
