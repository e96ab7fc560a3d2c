/**
 * What a text must hold before the costliest of Lore's rules (sensitive-rules.ts) can fire on
 * it: an e-mail address needs an `@` or an "at" written out, an access code a word that names
 * one and a digit, a phone number eight digits, a random key a long run of key characters. A
 * text without it is not searched by the rule at all. Every piece of knowledge is scanned when
 * it is added, and most passages are prose none of these rules can match: the gates take the
 * scan of such a passage from about 0.9 ms to a third of that (rule-gates.bench.ts).
 *
 * Each gate is a necessary condition of its rule, read off the rule's own patterns (same
 * flags, so the same case folding), never a guess: skipping a rule where its gate fails
 * changes no verdict. rule-gates.test.ts checks it on the scanner's corpora, rule by rule.
 */

/** Lore's e-mail forms (credential-forms.ts): `EMAIL` needs an `@`; `OBFUSCATED` an "at" in brackets or between spaces. */
const EMAIL_GATE = /@|[([{<]\s*at\s*[)\]}>]|\s(?:at|AT)\s/u;

/**
 * Every alternative of `ACCESS_CODE`'s naming part holds one of these words (door code, pin,
 * passcode, digicode, combination, Türcode, zugangscode, code de la porte, código, codice), and
 * the code itself is digits.
 */
const ACCESS_CODE_WORD = /code|pin|combination|c(?:ó|o)digo|codice/iu;

/**
 * Eight digits with only phone separators between them: each of the phone patterns must match
 * eight digits so written, and `phoneNumber` returns at once without them.
 */
const PHONE_DIGITS = /\d(?:[\s.\-/()]*\d){7}/;

/** `hasHighEntropyString` looks only at runs of 16 hex digits or of 20 key characters. */
const KEY_RUN = /[0-9a-f]{16}|[A-Za-z0-9+/_=-]{20}/i;

/** By rule id: false when the rule cannot find anything in the text (as `foldLookalikes` left it). */
export const RULE_GATES: Readonly<Record<string, (text: string) => boolean>> = {
  email: (t) => EMAIL_GATE.test(t),
  'access-code': (t) => ACCESS_CODE_WORD.test(t) && /\d/.test(t),
  phone: (t) => PHONE_DIGITS.test(t),
  'high-entropy': (t) => KEY_RUN.test(t),
};

/** Whether the rule of this id must search the text (rules without a gate always do). */
export const mayFind = (ruleId: string, text: string): boolean => RULE_GATES[ruleId]?.(text) ?? true;
