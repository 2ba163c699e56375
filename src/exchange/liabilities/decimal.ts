/**
 * Signed decimals as the exchanges' tools hold them (Java BigDecimal, Go shopspring decimal): an integer and a
 * scale, exact, never a float, and each tool's spelling of one, since the spelling is what they hash.
 */

/** `units / 10^scale`; the scale is kept (Java's `1.50` and `1.5` are different texts of one amount). */
export interface Dec {
  units: bigint;
  scale: number;
}

const DEC_RE = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** `"-1536.70659782"`, `1.000000000E-7`, `0E-16` → a Dec; undefined when it is not a decimal. */
export function parseDec(text: string): Dec | undefined {
  const m = DEC_RE.exec(text);
  if (!m) return undefined;
  const frac = m[3] ?? "";
  const units = BigInt(`${m[2]}${frac}`) * (m[1] ? -1n : 1n);
  const scale = frac.length - Number(m[4] ?? 0);
  if (!Number.isSafeInteger(scale) || Math.abs(scale) > 400) return undefined;
  if (scale < 0) return { units: units * 10n ** BigInt(-scale), scale: 0 };
  return { units, scale };
}

const rescale = (d: Dec, scale: number): bigint => d.units * 10n ** BigInt(scale - d.scale);

/** The exact sum, at the larger scale of the two (BigDecimal.add, decimal.Add). */
export function addDec(a: Dec, b: Dec): Dec {
  const scale = Math.max(a.scale, b.scale);
  return { units: rescale(a, scale) + rescale(b, scale), scale };
}

export const ZERO: Dec = { units: 0n, scale: 0 };

export const compareDec = (a: Dec, b: Dec): number => {
  const s = Math.max(a.scale, b.scale);
  const x = rescale(a, s);
  const y = rescale(b, s);
  return x < y ? -1 : x > y ? 1 : 0;
};

/** Cut to `places` decimals toward zero (BigDecimal.setScale(n, DOWN), decimal.Truncate). */
export function truncateDec(d: Dec, places: number): Dec {
  if (d.scale <= places) return { units: rescale(d, places), scale: places };
  return { units: d.units / 10n ** BigInt(d.scale - places), scale: places };
}

/** The digits at the Dec's own scale, no exponent (`BigDecimal.toPlainString`). */
export function plainDec(d: Dec): string {
  const neg = d.units < 0n;
  const digits = (neg ? -d.units : d.units).toString().padStart(d.scale + 1, "0");
  const whole = digits.slice(0, digits.length - d.scale);
  const frac = digits.slice(digits.length - d.scale);
  return `${neg ? "-" : ""}${whole}${frac ? `.${frac}` : ""}`;
}

/** Trailing zeros dropped (`stripTrailingZeros().toPlainString()`, shopspring's `String()`): `1.50` → `1.5`, `0.00` → `0`. */
export function strippedDec(d: Dec): string {
  let { units, scale } = d;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  return plainDec({ units, scale });
}

/** Java's `BigDecimal.toString()`: plain while the exponent is ≥ −6, else `1.000000000E-7`, `0E-16`. */
export function javaDec(d: Dec): string {
  const neg = d.units < 0n;
  const digits = (neg ? -d.units : d.units).toString();
  const adjusted = digits.length - 1 - d.scale;
  if (d.scale >= 0 && adjusted >= -6) return plainDec(d);
  const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${neg ? "-" : ""}${mant}E${adjusted >= 0 ? "+" : ""}${adjusted}`;
}
