/**
 * Credentials in the forms tools, config files and people write them, where no provider
 * pattern applies: a value after a credential word (`pw: …`, `Password for the NAS: bluebird`,
 * "the secret word is mangosteen"), environment variables (`DB_PASS=Winter2026`), command-line
 * flags (`mysql -u root -pS3cr3t`, `curl -u admin:Hunter22!`, `--password=…`), URLs with a
 * user and password, `user / password` pairs, Markdown tables whose header names a
 * credential or personal column, and postal addresses. Each returns only whether it found one.
 */

/** Words that introduce a password or a shared secret. */
const CREDENTIAL_WORDS = [
  'passwords?',
  'passwd',
  'pwd',
  'pw',
  'pass\\s*phrase',
  'passphrase',
  'passcodes?',
  'secret\\s+(?:word|phrase|question\\s+answer)',
  'code\\s*word',
  'safe\\s*word',
  'log\\s*-?\\s*in',
  'logon',
  'kennwort',
  'passwort',
  'mot\\s+de\\s+passe',
  'contrase(?:ñ|n)a',
  'senha',
  'parola\\s+d\\W?ordine',
  'wachtwoord',
  'has(?:ł|l)o',
  'пароль',
  'パスワード',
  '密码',
  '密碼',
].join('|');

/**
 * What follows a credential word without being one: instructions, states and placeholders
 * ("password: required", "the password is stored in the vault", "login: see the wiki").
 */
const NOT_A_VALUE = new Set(
  `a an the this that these those it its is was are be been being not no none never n/a na tbd todo
  required optional mandatory needed necessary missing empty blank unset set reset changed change
  stored saved kept hidden masked redacted encrypted hashed salted rotated expired expires expiring
  managed provided supplied generated random unique secret private personal shared sent given
  same different wrong incorrect invalid correct valid weak strong long short too case sensitive
  see ask contact enter type use using click choose pick select create update rotate store keep
  in on at by for from of to with without via per your my our their his her yours mine ours
  below above here there elsewhere later soon first next last only also still again
  prompt prompted protected authentication authorization authenticated login logout page screen
  form field box dialog window manager vault policy rules rule length characters chars digits
  letters minimum maximum min max at least most and or but if when then else
  available unavailable enabled disabled active inactive locked unlocked ok okay yes
  known unknown public default defaults placeholder example sample dummy test
  attempts attempt failed failure success successful expiry expiration`.split(/\s+/),
);

const PLACEHOLDER = /^(?:\$\{?[A-Za-z_][\w]*\}?|<[^>]*>?|\{\{.*|\[.*\]|\*+|x{3,}|\.{3,}|…|-+|_+|\?+|"+|'+)$/i;

function isValue(v: string): boolean {
  const value = v.replace(/[.,;:!?)\]}"'`»”]+$/, '');
  if (value.length < 3) return false;
  if (PLACEHOLDER.test(value)) return false;
  return !NOT_A_VALUE.has(value.toLowerCase());
}

/** A value that reads as a secret rather than as a word: digits, symbols or mixed case inside. */
export const looksLikeSecretValue = (v: string) =>
  /\d/.test(v) || /[^\p{L}\p{N}]/u.test(v) || /\p{Ll}\p{Lu}|\p{Lu}{2,}\p{Ll}/u.test(v);

// "Password for the build NAS: bluebird", "pw = hunter2", "login: Orchid-Lantern-58", "pass: …"
const KEYED = new RegExp(
  `(?<![\\p{L}\\p{N}_])(?:${CREDENTIAL_WORDS}|pass)(?![\\p{L}_])[^\\n:=]{0,40}?\\s*[:=]\\s*["'\`“«]?([^\\s"'\`”»,;|]+)`,
  'giu',
);
// "the password is bluebird.", "the secret word is mangosteen", "login is Orchid-Lantern-58"
const STATED = new RegExp(
  `(?<![\\p{L}\\p{N}_])(?:${CREDENTIAL_WORDS})(?![\\p{L}_])[^\\n.;:=]{0,40}?\\b(?:is|was|are|lautet|ist|est|es|é|è|будет|—)\\s+(?:["“«]([^"”»\\n]{4,80})["”»]|['\`]?([^\\s"'\`”»,;]+)(.{0,3}))`,
  'giu',
);

function keyedCredential(text: string): boolean {
  for (const m of text.matchAll(KEYED)) if (isValue(m[1]!)) return true;
  for (const m of text.matchAll(STATED)) {
    // A quoted value is the value, whatever its words ("the passphrase is \"correct horse…\"").
    if (m[1] && !PLACEHOLDER.test(m[1]) && !NOT_A_VALUE.has(m[1].toLowerCase())) return true;
    const value = m[2];
    if (!value) continue;
    if (!isValue(value)) continue;
    // A plain word counts when the sentence ends with it ("the password is bluebird."), not
    // when it goes on ("the password is rotated monthly").
    const ends = /^[.!]?(?:\s*$|\s*\n|[.!]?\s+\p{Lu}|[.!])/u.test(m[3] ?? '') || /[.!]$/.test(value);
    if (looksLikeSecretValue(value.replace(/[.!]+$/, '')) || ends) return true;
  }
  return false;
}

// DB_PASS=Winter2026, export API_TOKEN="abc123…", MYSQL_ROOT_PASSWORD: s3cret (YAML, .env, shell)
const ENV_SECRET =
  /(?<![A-Za-z0-9_])[A-Z][A-Z0-9_]*(?:PASS(?:WORD|WD)?|PWD|SECRET|TOKEN|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|AUTH)[A-Z0-9_]*["']?\s*[:=]\s*["']?([^\s"'#,;]{3,})/g;

/** Settings about secrets rather than secrets: MAX_TOKENS=4096, TOKEN_TTL=3600, SECRET_FILE=/run/… */
const ENV_SETTING =
  /(?:MAX|MIN|TTL|LIMIT|COUNT|SIZE|LENGTH|EXPIR|TIMEOUT|URL|FILE|PATH|HEADER|NAME|TYPE|PREFIX|ENABLED|ROTATION|ALGORITHM)/;

function envSecret(text: string): boolean {
  for (const m of text.matchAll(ENV_SECRET)) {
    const name = m[0].slice(0, m[0].search(/["']?\s*[:=]/));
    if (
      ENV_SETTING.test(
        name.replace(/PASS(?:WORD|WD)?|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|AUTH/g, ''),
      )
    )
      continue;
    if (isValue(m[1]!)) return true;
  }
  return false;
}

const CLI_SECRETS: RegExp[] = [
  // mysql -u root -pS3cr3t (the value joined to the flag), mysqldump, mariadb
  /\b(?:mysql|mysqldump|mariadb|mysqladmin)\b[^\n]*?\s-p(?!\s)([^\s'"]{3,}|'[^']{3,}'|"[^"]{3,}")/,
  // --password=…, --password …, --pass …, --db-password …
  /(?:^|\s)--(?:[a-z]+-)*(?:password|passwd|pass|pwd|secret|token|api-key)(?:=|\s+)(?!-)([^\s]{3,})/i,
  // sshpass -p …, redis-cli -a …, smbclient -U user%pass
  /\bsshpass\s+-p\s*(\S{3,})/,
  /\bredis-cli\b[^\n]*?\s-a\s+(\S{3,})/,
  /\bsmbclient\b[^\n]*?\s-U\s+\S+%(\S{3,})/,
  // curl -u admin:Hunter22!, wget --user=… --password=…, http -a user:pass
  /\b(?:curl|http|https|wget|git)\b[^\n]*?\s(?:-u|--user|-a|--auth)[\s=]+[^\s:]+:(\S{3,})/,
];

function cliSecret(text: string): boolean {
  return CLI_SECRETS.some((re) => {
    const m = re.exec(text);
    return !!m && isValue(m[1]!.replace(/^['"]|['"]$/g, ''));
  });
}

// https://deploy:Hunter22@git.example.com, ftp://u:p@host (any scheme)
const URL_CREDENTIALS = /\b[a-z][a-z0-9+.-]*:\/\/[^\s:@/]+:([^\s@/]{2,})@[\w.-]+/i;

// ~/.pgpass: host:port:database:user:password
const PGPASS_LINE = /\b[\w.*-]+:(?:\d{2,5}|\*):[\w*-]+:[\w*-]+:([^\s:]{3,})/;
// "wifi: SSID Office-5G, key Meadowlark2026", "WPA2 key = …"
const WIFI_KEY =
  /\b(?:wi-?fi|wlan|wpa2?|wpa3|ssid|network)\b[^\n]{0,40}?\b(?:key|pass(?:word)?|pw|psk)\b\s*[:=]?\s*(\S{6,})/i;

function fileFormats(text: string): boolean {
  const pg = PGPASS_LINE.exec(text);
  if (pg && isValue(pg[1]!)) return true;
  const wifi = WIFI_KEY.exec(text);
  return !!wifi && isValue(wifi[1]!) && looksLikeSecretValue(wifi[1]!);
}

function urlCredentials(text: string): boolean {
  const m = URL_CREDENTIALS.exec(text);
  return !!m && isValue(m[1]!) && !/^\$\{?\w+\}?$/.test(m[1]!);
}

// admin / Gr33nTea-Orbit, root/Toor2026!, "user: ops  pass: x" is KEYED
const USER_SLASH_PASSWORD =
  /\b(?:admin|administrator|root|sa|postgres|ubuntu|pi|guest|operator|user(?:name)?|login)\s*\/\s*(\S{4,})/gi;

function userSlashPassword(text: string): boolean {
  for (const m of text.matchAll(USER_SLASH_PASSWORD)) {
    const v = m[1]!.replace(/[.,;:]+$/, '');
    if (isValue(v) && looksLikeSecretValue(v) && /\d/.test(v) && !/^[\w-]+\/[\w/-]+$/.test(v)) return true;
  }
  return false;
}

/** Table columns whose values are credentials or personal data. */
const SECRET_COLUMN =
  /^(?:passwords?|pass(?:word)?s?|pwd|pw|passcodes?|pins?|secrets?|tokens?|api[ _-]?keys?|keys?|credentials?|logins?)$/i;
const PERSONAL_COLUMN =
  /^(?:phones?|phone\s*(?:no|number)s?|mobiles?|tel(?:ephone)?|e-?mails?|e-?mail\s+address(?:es)?|(?:home\s+|postal\s+)?address(?:es)?|date\s+of\s+birth|dob|birthday|ssn|national\s+id|salary|iban|account(?:\s+(?:no|number))?)$/i;

/** A table cell that holds a value, not a note about where it is ("(in the vault)", "see 1Password"). */
function isCellValue(cell: string): boolean {
  if (
    /^[([{<]/.test(cell) ||
    /\b(?:vault|see|ask|stored|manager|n\/a|none|tbd|redacted|hidden)\b/i.test(cell)
  )
    return false;
  return isValue(cell.split(/\s+/)[0]!);
}

const cells = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => c.trim());

/**
 * A Markdown (or pipe-separated) table with a credential or personal column and a value under
 * it: `| env | user | password |` then `| prod | deploy | bluebird |`.
 */
export function sensitiveTableColumn(text: string): 'secret' | 'personal' | undefined {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.includes('|')) continue;
    const header = cells(lines[i]!);
    if (header.length < 2) continue;
    const columns = header.map((h) =>
      SECRET_COLUMN.test(h.replace(/[*_`]/g, ''))
        ? 'secret'
        : PERSONAL_COLUMN.test(h.replace(/[*_`]/g, ''))
          ? 'personal'
          : undefined,
    );
    if (!columns.some(Boolean)) continue;
    for (let j = i + 1; j < lines.length && lines[j]!.includes('|'); j++) {
      const row = cells(lines[j]!);
      if (row.every((c) => /^:?-{2,}:?$/.test(c) || c === '')) continue;
      for (let k = 0; k < columns.length; k++)
        if (columns[k] && row[k] && isCellValue(row[k]!)) return columns[k];
    }
  }
  return undefined;
}

/** The value after a credential word, in an env var, a CLI flag, a URL or a user/password pair. */
export function credentialInForm(text: string): boolean {
  return (
    keyedCredential(text) ||
    envSecret(text) ||
    cliSecret(text) ||
    urlCredentials(text) ||
    userSlashPassword(text) ||
    fileFormats(text) ||
    sensitiveTableColumn(text) === 'secret'
  );
}

const STREET_TYPES =
  'Road|Rd|Street|St|Avenue|Ave|Lane|Ln|Drive|Dr|Boulevard|Blvd|Close|Court|Ct|Crescent|Place|Pl|Square|Sq|Terrace|Way|Gardens|Grove|Hill|Row|Walk|Parade|Mews|Highway|Hwy|Parkway|Pkwy|Circle|Cir|Wynd|Brae|Loan|Quay';
const STREET_LINE = new RegExp(
  `\\b\\d{1,5}[A-Za-z]?,?\\s+(?:[A-Z][\\p{L}'’.-]+\\s+){1,4}(?:${STREET_TYPES})\\b`,
  'u',
);
const CONTINENTAL_STREET = new RegExp(
  [
    // Hauptstraße 12, Kirchweg 3a, Marktplatz 1
    '\\b[A-ZÄÖÜ][a-zäöüß]+(?:straße|strasse|str\\.|weg|gasse|platz|allee|ring|damm|ufer|steig)\\s+\\d{1,4}[a-z]?\\b',
    // 12 rue de la Paix, 3 avenue des Ternes
    "\\b\\d{1,4}(?:\\s?(?:bis|ter))?,?\\s+(?:rue|avenue|av\\.|boulevard|bd|place|chemin|allée|impasse|quai|cours)\\s+(?:d[eu]\\s+|des\\s+|de\\s+la\\s+|la\\s+|l[’']\\s*)?\\p{Lu}",
    // Via Roma 10, Calle Mayor 5, Piazza Navona 2
    "\\b(?:Via|Viale|Piazza|Corso|Calle|Avenida|Plaza|Paseo|Carrer|Rua|Travessa)\\s+(?:[\\p{Lu}][\\p{L}'’.-]+\\s+){1,3}\\d{1,4}\\b",
  ].join('|'),
  'u',
);
// EH6 6LQ, SW1A 1AA
const UK_POSTCODE = /\b(?:[A-PR-UWYZ][A-HK-Y]?\d[A-Z\d]?)\s*\d[ABD-HJLNP-UW-Z]{2}\b/;
const US_STATES =
  'AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY';
// Springfield, IL 62704
const US_CITY_STATE_ZIP = new RegExp(
  `\\b[A-Z][a-z]+(?:\\s[A-Z][a-z]+)?,\\s*(?:${US_STATES})\\s+\\d{5}(?:-\\d{4})?\\b`,
);
// Flat 4, Apt 12B, Apartment 3, Suite 500, Unit 7
const DWELLING = /\b(?:Flat|Apt\.?|Apartment|Suite|Unit|Wohnung|Appartement|Piso)\s+\d{1,4}[A-Z]?\b/;
// 10115 Berlin, 75008 Paris, 00184 Roma
const POSTCODE_CITY = /(?:^|,|\n)\s*(?:[A-Z]{1,2}-)?\d{4,5}\s+\p{Lu}\p{Ll}{2,}/u;

/** A postal address: a street line, a UK postcode, a US city, state and ZIP, or a flat with a postcode. */
export function postalAddress(text: string): boolean {
  if (STREET_LINE.test(text) || CONTINENTAL_STREET.test(text)) return true;
  if (US_CITY_STATE_ZIP.test(text)) return true;
  if (
    UK_POSTCODE.test(text) &&
    (DWELLING.test(text) || /\b\d{1,5}\s+\p{Lu}/u.test(text) || /,\s*[A-Z][a-z]+/.test(text))
  )
    return true;
  return DWELLING.test(text) && POSTCODE_CITY.test(text);
}

// priya.shah(at)gmail.com, jo [at] example [dot] org, sam at example dot com
const AT = /\s*(?:[([{<]\s*(?:at|@)\s*[)\]}>]|\s(?:at|AT)\s)\s*/g;
const DOT = /\s*(?:[([{<]\s*(?:dot|\.)\s*[)\]}>]|\s(?:dot|DOT)\s)\s*/g;
const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/u;
const OBFUSCATED =
  /[\p{L}\p{N}._%+-]+(?:\s*[([{<]\s*(?:at|@)\s*[)\]}>]\s*|\s(?:at|AT)\s)[\p{L}\p{N}-]+(?:(?:\s*[([{<]\s*(?:dot|\.)\s*[)\]}>]\s*|\s(?:dot|DOT)\s|\.)[\p{L}\p{N}-]+)*(?:\s*[([{<]\s*(?:dot|\.)\s*[)\]}>]\s*|\s(?:dot|DOT)\s|\.)\p{L}{2,}\b/gu;

/** An e-mail address, also in the forms people write to keep it from scrapers. */
export function emailAddress(text: string): boolean {
  if (EMAIL.test(text)) return true;
  for (const m of text.matchAll(OBFUSCATED)) {
    const candidate = m[0].replace(AT, '@').replace(DOT, '.');
    // "meet at home dot" is prose: an address needs a dot-separated domain after the @.
    if (
      EMAIL.test(candidate) &&
      /@[\p{L}\p{N}-]+\.\p{L}{2,}/u.test(candidate.replace(/\.(?=[\p{L}\p{N}-]+\.)/gu, '.'))
    )
      if (!/\s(?:at|AT)\s/.test(m[0]) || /(?:dot|DOT|[([{<])/.test(m[0])) return true;
  }
  return false;
}
