/**
 * Phone numbers in the national and international formats of the countries a knowledge base is
 * likely to be written in, by libphonenumber-js (Google's libphonenumber metadata, the full set:
 * a number must be valid for its country, not only the right length). A national number is read
 * against each of these countries in turn; "07700 900987" is a UK mobile, "020 7946 0018" a
 * London line, "(415) 555-0132" a US one.
 */
import { findNumbers } from 'libphonenumber-js/max';

const COUNTRIES = [
  'GB',
  'US',
  'DE',
  'FR',
  'IE',
  'NL',
  'ES',
  'IT',
  'IN',
  'AU',
  'CH',
  'AT',
  'BE',
  'SE',
] as const;

/**
 * A digit run alone ("2026120212", an order id, a timestamp) is not taken for a phone number:
 * a number counts when it is written the way phone numbers are, with a `+`, a leading national
 * `0`, or separators between its groups.
 */
const WITH_PREFIX = /^(?:\+|00|0|\()/;
/** Dates and numbered references are not phone numbers (2026-03-14, 2026-0042, 20261202.4). */
const NOT_A_PHONE = /^\d{4}[-./]\d{1,2}(?:[-./]\d{1,2})?$|^\d{4}-\d{3,4}$|\.\d$/;

/** Written as phone numbers are: with `+`, a national `0` or `(`, or in three or more groups of nine digits or more. */
function writtenAsPhone(written: string, nationalDigits: number): boolean {
  if (NOT_A_PHONE.test(written.trim())) return false;
  if (WITH_PREFIX.test(written)) return true;
  return nationalDigits >= 9 && written.trim().split(/[\s.\-/]+/).length >= 3;
}

export function phoneNumber(text: string): boolean {
  // Cheap first: at least eight digits somewhere, possibly separated.
  if (!/\d(?:[\s.\-/()]*\d){7}/.test(text)) return false;
  for (const country of COUNTRIES) {
    for (const found of findNumbers(text, { defaultCountry: country, v2: true })) {
      const written = text.slice(found.startsAt, found.endsAt);
      if (found.number.nationalNumber.length < 8 && !written.startsWith('+')) continue;
      if (writtenAsPhone(written, found.number.nationalNumber.length) && found.number.isValid()) return true;
    }
  }
  return false;
}
