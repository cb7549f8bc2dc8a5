// A decimal as Parquet's DECIMAL holds it: the integer of its digits at a fixed scale (12.5 at scale 3 is
// 12500). Exact: multiplying the float by 10^scale and truncating is not (1.005 × 1000 = 1004.999…), so a
// number is rounded to its integer only when it lies that close to one, and otherwise made from its
// decimal text, which for the service's decimals (at most 15 significant digits) is exact.
/** A JSON number (or the IEEE754Compatible string) as the unscaled integer of a DECIMAL of `scale` digits. */
export function scaledDecimal(value: unknown, scale: number): bigint | null {
  if (value === null || value === undefined) return null
  if (typeof value === 'number') {
    // A number of at most `scale` fraction digits scales to within float error of its integer, far from a
    // half: rounding finds it, while the integer is below 2^53. Else (more digits, or too large) the text.
    const scaled = value * 10 ** scale
    const nearest = Math.round(scaled)
    if (Math.abs(scaled - nearest) < 1e-6 && Number.isSafeInteger(nearest)) return BigInt(nearest)
  }
  const written = typeof value === 'number' ? String(value) : String(value).trim()
  const match = /^(-?)(\d*)(?:\.(\d*))?$/.exec(written)
  if (!match) {
    // Exponent notation (1e-7, 1e+21): past the digits an exact decimal text would have.
    const number = Number(written)
    if (!Number.isFinite(number)) throw new Error(`not a decimal: ${written}`)
    return BigInt(Math.round(number * 10 ** scale))
  }
  const [, sign, whole, fraction = ''] = match
  const digits = `${whole}${fraction.padEnd(scale, '0').slice(0, scale)}`
  let unscaled = BigInt(digits === '' ? '0' : digits)
  // Digits past the scale are rounded half away from zero, as MySQL does.
  if (fraction.length > scale && fraction.charCodeAt(scale) >= 53) unscaled += 1n
  return sign === '-' ? -unscaled : unscaled
}
