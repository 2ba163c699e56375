/**
 * The retry seam of the client: what the failures of one call add up to — the tally a failover loop keeps
 * (every endpoint refused our credentials, none was ever sent, all refused connections, the server's
 * Retry-After), the backoff between passes, and the one error of a call no attempt answered, in the words of
 * the front end whose user reads it.
 */
import { AuthError, TransportError } from "../errors/index.js";
import type { Failure } from "./classify.js";
import type { Endpoint } from "./endpoint.js";

/**
 * The limits named in an error in the words of the front end whose user reads it: the CLI's flags, or the
 * gateway's own words (its users set no --max-response, --timeout or --request-timeout).
 */
export interface FrontWords {
  /** the answer cap */
  cap: string;
  /** how to give a heavy call longer */
  longer: string;
  /** the overall deadline of one call */
  deadline: string;
}

export const CLI_WORDS: FrontWords = {
  cap: "--max-response",
  longer: "give it longer with --request-timeout SECONDS",
  deadline: "overall --timeout",
};

/**
 * The error of a call no attempt answered: every endpoint refused our credentials (auth), or the last
 * distinct failures ("label: why") under "no endpoint could answer X" / "X failed". One wording for the
 * client's loop and for serve's quick path, which makes a first attempt of its own.
 */
export function exhausted(
  label: string,
  failures: string[],
  o: { allAuth: boolean; several: boolean; deadlineReached: boolean; words?: FrontWords },
): TransportError | AuthError {
  const distinct = [...new Set(failures)];
  const detail = distinct.length
    ? distinct.slice(-3).join("; ")
    : "overall deadline reached before any attempt";
  if (failures.length && o.allAuth) return new AuthError(`authentication refused: ${detail}`);
  const what = o.several ? `no endpoint could answer ${label}` : `${label} failed`;
  const deadline = o.deadlineReached ? ` (${(o.words ?? CLI_WORDS).deadline} reached)` : "";
  return new TransportError(`${what}: ${detail}${deadline}`);
}

/** The failures of one call's attempts, as the failover loop meets them. */
export class FailureTally {
  readonly failures: string[] = [];
  /** endpoints that refused our credentials: asking again in a later pass cannot help */
  readonly refusedAuth = new Set<Endpoint>();
  private allAuth = true;
  private allUnsent = true;
  private allRefused = true;
  /** the last Retry-After an upstream asked for, until the next pass */
  retryAfter: number | undefined;

  add(ep: Endpoint, f: Failure): void {
    if (f.auth) this.refusedAuth.add(ep);
    else this.allAuth = false;
    if (!f.unsent) this.allUnsent = false;
    if (f.kind !== "refused") this.allRefused = false;
    this.failures.push(`${ep.label}: ${f.why}`);
    this.retryAfter = f.retryAfterMs ?? this.retryAfter;
  }

  /** The wait before pass `pass + 1`: the upstream's Retry-After, else exponential with jitter. */
  backoff(pass: number): number {
    return this.retryAfter ?? Math.min(250 * 2 ** pass, 4000) * (0.5 + Math.random() / 2);
  }

  /** The call's error once every pass failed; `neverSent`, `notReady` and `authRefused` from the tally. */
  error(
    label: string,
    o: { several: boolean; deadlineReached: boolean; words?: FrontWords },
  ): TransportError | AuthError {
    const err = exhausted(label, this.failures, { allAuth: this.allAuth, ...o });
    if (err instanceof AuthError) return err;
    err.neverSent = this.failures.length > 0 && this.allUnsent;
    err.notReady = this.failures.length > 0 && this.allRefused;
    err.authRefused = this.refusedAuth.size > 0;
    return err;
  }
}
