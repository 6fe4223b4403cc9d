/** GS1 mod-10 check digit of `body` (digits only): weights 3, 1, 3, 1, … from the right. */
export function gs1CheckDigit(body: string): number {
  let sum = 0;
  for (let i = body.length - 1, w = 3; i >= 0; i--, w = 4 - w) sum += (body.charCodeAt(i) - 48) * w;
  return (10 - (sum % 10)) % 10;
}

/** True when the last digit of `digits` is the GS1 check digit of the others. */
export function hasValidCheckDigit(digits: string): boolean {
  return /^\d{2,}$/.test(digits) && gs1CheckDigit(digits.slice(0, -1)) === Number(digits[digits.length - 1]);
}

export const CSET82 = `!"%&'()*+,-./0123456789:;<=>?ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz`;
const CSET32 = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
const PRIMES = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89];

/** The two check characters of a GMN-style value (GS1 General Specifications, "check character pair"). */
export function gs1CheckCharacters(body: string): string | null {
  if (body.length > PRIMES.length) return null;
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const value = CSET82.indexOf(body[i]);
    if (value < 0) return null;
    sum += value * PRIMES[body.length - 1 - i];
  }
  sum %= 1021;
  return CSET32[sum >> 5] + CSET32[sum & 31];
}
