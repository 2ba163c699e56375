/**
 * Where a transport failure happened. `unsent`: the request provably never reached the upstream
 * (refused, DNS, TLS handshake, connect timeout); `maybe`: it may have been received.
 */
export class HttpFailure extends Error {
  constructor(
    message: string,
    readonly phase: "unsent" | "maybe",
    readonly timedOut = false,
  ) {
    super(message);
  }
}
