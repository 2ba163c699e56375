/**
 * Where a transport failure happened. `unsent`: the request provably never reached the upstream
 * (refused, DNS, TLS handshake, connect timeout); `maybe`: it may have been received.
 */
export class HttpFailure extends Error {
  constructor(
    message: string,
    readonly phase: "unsent" | "maybe",
    readonly timedOut = false,
    /**
     * a kept-alive connection, reused, was found closed (reset, broken pipe) before any byte of the answer
     * came back: the upstream's server closed it idle as the request crossed, and its application never saw
     * the request (Transport.post resends a read once on a new connection)
     */
    readonly staleReuse = false,
  ) {
    super(message);
  }
}
