/**
 * Lore's own rules for what must never leave a knowledge base on its own, on top of secretlint's
 * provider-specific detectors (see secrets.ts). Each rule names what it found in words the owner
 * reads in a decision reason ("a password", "an IBAN"); none returns the matched text.
 */
import { credentialInForm, emailAddress, postalAddress, sensitiveTableColumn } from './credential-forms.js';
import { phoneNumber } from './phone.js';

export type SensitiveKind = 'secret' | 'personal';

export interface SensitiveRule {
  id: string;
  kind: SensitiveKind;
  /** What it found, as "contains what looks like <label>" reads. */
  label: string;
  find(text: string): boolean;
}

/** Words that introduce a password, in the languages a knowledge base is likely to use. */
const PASSWORD_WORDS =
  '(?:passwords?|passwd|pwd|pass\\s*phrase|passphrase|kennwort|passwort|mot\\s+de\\s+passe|contrase(?:ñ|n)a|senha|parola\\s+d\\W?ordine|wachtwoord|has(?:ł|l)o|пароль|パスワード|密码|密碼)';
// "password: hunter2", "the password is Tr0ub4dor", "Passwort = geheim123!"
const PASSWORD_VALUE = new RegExp(
  `${PASSWORD_WORDS}[^\\n.;]{0,40}?(?:[:=]|\\bis\\b|\\bwas\\b|\\bare\\b|\\best\\b|\\bist\\b|\\bes\\b|\\bé\\b|\\bè\\b|—|-)\\s*["'\`“«]?([^\\s"'\`”»,;]{4,})`,
  'giu',
);
/** A value that reads as a secret rather than as a word ("stored", "rotated", "managed"). */
const looksLikeSecretValue = (v: string) =>
  /[\d]/.test(v) || /[^\p{L}\p{N}]/u.test(v) || /\p{Ll}\p{Lu}|\p{Lu}{2,}\p{Ll}/u.test(v);

const ACCESS_CODE = new RegExp(
  [
    // door code 4711, PIN: 0000, keypad combination 12-34-56, alarm code is #2580
    '(?:\\b(?:door|gate|entry|entrance|access|alarm|keypad|lock|locker|safe|building|lab|garage|office|vault|security)\\s*(?:code|pin|combination)s?|\\bpin(?:\\s*(?:code|number))?|\\bpasscodes?|\\bdigicode|\\bcombination|t(?:ü|ue)rcode|zugangscode|code\\s+(?:de\\s+la\\s+porte|d\\W?acc(?:è|e)s|porte)|c(?:ó|o)digo\\s+(?:de\\s+)?(?:la\\s+)?(?:puerta|acceso|entrada)|codice\\s+(?:della\\s+)?porta)',
    '[^\\n\\d]{0,30}?',
    '[#*]?\\d(?:[\\s-]?\\d){2,9}[#*]?',
  ].join(''),
  'iu',
);

const TOKEN_WORDS =
  '(?:api[\\s_-]?key|apikey|access[\\s_-]?key|secret(?:[\\s_-]?key)?|client[\\s_-]?secret|token|bearer|auth(?:orization)?|credentials?|private[\\s_-]?key|signing[\\s_-]?key|webhook[\\s_-]?secret)';
// "deploy token: dpl_9f8a…", "API key = 3b1f…", "Authorization: Bearer eyJ…"
const KEYED_TOKEN = new RegExp(
  `${TOKEN_WORDS}[^\\n]{0,30}?(?:[:=]|\\bis\\b|\\bwas\\b)\\s*["'\`]?(?:bearer\\s+)?([A-Za-z0-9_\\-./+=]{12,})`,
  'giu',
);

const PROVIDER_KEYS: RegExp[] = [
  /\blore_sk_[A-Za-z0-9_-]{16,}/,
  /\bsk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{20,}/,
  /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/,
  /\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b/,
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/,
  /\bgithub_pat_[A-Za-z0-9_]{40,}/,
  /\bglpat-[A-Za-z0-9_-]{20,}/,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/,
  /\bAIza[0-9A-Za-z_-]{35}\b/,
  /\bnpm_[A-Za-z0-9]{36}\b/,
  /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/,
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/,
  /\bhf_[A-Za-z0-9]{30,}\b/,
];

const PRIVATE_KEY = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\bPuTTY-User-Key-File-\d/;

// postgres://user:secret@host, mongodb+srv://u:p@…, Server=…;Password=…; (URLs of any scheme: credential-forms.ts)
const CONNECTION_STRING =
  /\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|mssql|sqlserver|oracle|jdbc:[a-z]+|ftp|sftp|smtp|ldap)s?:\/\/[^\s:@/]+:[^\s@/]+@[^\s]+|\b(?:password|pwd)\s*=\s*[^;\s]{3,}\s*;/i;

const PHONE_PATTERNS: RegExp[] = [
  // +44 20 7946 0958, +1-555-010-0199
  /(?<![\w+])\+\d{1,3}(?:[\s.-]?\(?\d{1,4}\)?){2,5}(?!\w)/,
  // (555) 010-0199, 555-010-0199
  /(?<!\w)\(\d{3}\)\s?\d{3}[\s.-]\d{4}(?!\w)|(?<![\w-])\d{3}[.-]\d{3}[.-]\d{4}(?![\w-])/,
  // "phone: 020 7946 0958", "Tel. 030/1234567", "mobile 0612345678"
  /\b(?:phone|tel(?:ephone|efon)?|mobile|cell|handy|móvil|portable|whatsapp|fax)\b\.?[^\n\d]{0,15}\d(?:[\s./-]?\d){6,14}/iu,
];

const NATIONAL_ID_PATTERNS: RegExp[] = [
  // US social security number
  /(?<![\d-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-])/,
  // UK national insurance number
  /\b(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]\s?\d{2}\s?\d{2}\s?\d{2}\s?[A-D]\b/,
  // an id introduced by its name: "passport no. X1234567", "BSN 123456782", "Steuer-ID: 12 345 678 901"
  /\b(?:ssn|ni\s+(?:no|number)|social\s+security(?:\s+number)?|national\s+(?:id|identity|insurance)(?:\s+number)?|passport(?:\s+(?:no|number))?|tax\s+(?:id|number)|steuer-?id|personalausweis|bsn|nir|dni|nie|codice\s+fiscale|personnummer|pesel|aadhaar)\b\.?[^\n\w]{0,10}(?:is\s+|:\s*|#\s*)?(?=[A-Z0-9 -]*\d)[A-Z0-9][A-Z0-9 -]{4,18}[A-Z0-9]\b/i,
];

/** ISO 13616: two letters, two check digits, then the account; valid when mod 97 is 1. */
function hasIban(text: string): boolean {
  const re = /\b([A-Z]{2})(\d{2})((?:\s?[A-Z0-9]){11,30})\b/g;
  for (const m of text.toUpperCase().matchAll(re)) {
    const bban = m[3]!.replace(/\s/g, '');
    const moved = `${bban}${m[1]}${m[2]}`;
    let rem = 0;
    for (const ch of moved) {
      const v = /\d/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
      for (const d of v) rem = (rem * 10 + Number(d)) % 97;
    }
    if (rem === 1) return true;
  }
  return false;
}

/** 13–19 digits that pass the Luhn check. */
function hasCardNumber(text: string): boolean {
  for (const m of text.matchAll(/(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g)) {
    const digits = m[0].replace(/\D/g, '');
    let sum = 0;
    for (let i = 0; i < digits.length; i++) {
      let d = Number(digits[digits.length - 1 - i]);
      if (i % 2 === 1) {
        d *= 2;
        if (d > 9) d -= 9;
      }
      sum += d;
    }
    if (sum % 10 === 0 && !/^(\d)\1+$/.test(digits)) return true;
  }
  return false;
}

/** Shannon entropy in bits per character. */
export function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/**
 * A run of 20+ key-like characters mixing letters and digits with at least 3.5 bits of entropy
 * per character: random keys look like this, words, version numbers and dates do not. Hex
 * runs (hashes, commit ids) are judged at their own lower ceiling.
 */
function hasHighEntropyString(text: string): boolean {
  // A standalone hex token of 16 to 31 characters (a key or a session id; commit ids are cited
  // shorter or whole) with letters and digits mixed.
  for (const m of text.matchAll(/(?<![A-Za-z0-9_-])[0-9a-f]{16,31}(?![A-Za-z0-9_-])/gi)) {
    const s = m[0];
    if (/[a-f]/i.test(s) && (s.match(/\d/g)?.length ?? 0) >= 3 && entropy(s) >= 3.0) return true;
  }
  for (const m of text.matchAll(/[A-Za-z0-9+/_=-]{20,}/g)) {
    const s = m[0];
    // A UUID is an identifier, not a secret.
    if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s)) continue;
    // Two digits at least: a long word with one digit ("word2") is still a word.
    if (!/[a-zA-Z]/.test(s) || (s.match(/\d/g)?.length ?? 0) < 2) continue;
    if (/^[0-9a-f]+$/i.test(s)) {
      if (s.length >= 32 && entropy(s) >= 3.0) return true;
      continue;
    }
    if (entropy(s) >= 3.5) return true;
  }
  return false;
}

const anyValue = (re: RegExp, text: string, ok: (v: string) => boolean) => {
  re.lastIndex = 0;
  for (const m of text.matchAll(re)) if (m[1] && ok(m[1])) return true;
  return false;
};

export const SENSITIVE_RULES: SensitiveRule[] = [
  { id: 'private-key', kind: 'secret', label: 'a private key', find: (t) => PRIVATE_KEY.test(t) },
  {
    id: 'connection-string',
    kind: 'secret',
    label: 'a connection string with credentials',
    find: (t) => CONNECTION_STRING.test(t),
  },
  {
    id: 'provider-key',
    kind: 'secret',
    label: 'an API key or token',
    find: (t) => PROVIDER_KEYS.some((re) => re.test(t)),
  },
  {
    id: 'password',
    kind: 'secret',
    label: 'a password',
    find: (t) => anyValue(PASSWORD_VALUE, t, looksLikeSecretValue),
  },
  {
    id: 'keyed-token',
    kind: 'secret',
    label: 'an API key or token',
    find: (t) => anyValue(KEYED_TOKEN, t, (v) => /\d/.test(v) && /[A-Za-z]/.test(v)),
  },
  {
    id: 'credential-form',
    kind: 'secret',
    label: 'a password',
    find: credentialInForm,
  },
  { id: 'access-code', kind: 'secret', label: 'an access code or PIN', find: (t) => ACCESS_CODE.test(t) },
  {
    id: 'high-entropy',
    kind: 'secret',
    label: 'a secret key (a long random string)',
    find: hasHighEntropyString,
  },
  { id: 'email', kind: 'personal', label: 'an e-mail address', find: emailAddress },
  {
    id: 'phone',
    kind: 'personal',
    label: 'a phone number',
    // Eight digits at least: shorter runs are years, versions and prices.
    find: (t) =>
      PHONE_PATTERNS.some((re) =>
        [...t.matchAll(new RegExp(re.source, `${re.flags}g`))].some(
          (m) => m[0].replace(/\D/g, '').length >= 8,
        ),
      ) || phoneNumber(t),
  },
  { id: 'address', kind: 'personal', label: 'a postal address', find: postalAddress },
  {
    id: 'personal-column',
    kind: 'personal',
    label: 'personal data in a table',
    find: (t) => sensitiveTableColumn(t) === 'personal',
  },
  { id: 'iban', kind: 'personal', label: 'a bank account number (IBAN)', find: hasIban },
  { id: 'card', kind: 'personal', label: 'a payment card number', find: hasCardNumber },
  {
    id: 'national-id',
    kind: 'personal',
    label: 'a national id number',
    find: (t) => NATIONAL_ID_PATTERNS.some((re) => re.test(t)),
  },
];
