/**
 * The time of an RFC 3339 date-time, for solvency's one time rule (judge/moment.ts `timeFault`, both paths).
 */

/**
 * Unix seconds of an RFC 3339 date-time (one `isRfc3339` took). A leap second (23:59:60, which RFC 3339
 * allows and Date.parse refuses) is the second after :59, as POSIX time counts it; a text that still reads
 * as no time is NaN, which `timeFault` takes for a date not known.
 */
export function rfc3339Seconds(s: string): number {
  const leap = /^(.*T\d\d:\d\d:)60((?:\.\d+)?(?:Z|[+-]\d\d:\d\d))$/i.exec(s);
  return leap ? Date.parse(`${leap[1]}59${leap[2]}`) / 1000 + 1 : Date.parse(s) / 1000;
}
