/**
 * The words of a question that carry no subject: greetings, politeness, "quick question", the
 * asker introducing themselves, thanks and sign-offs. They are taken off before relevance is
 * judged, so that a note never matches because it shares a "hi" or a "quick" with a question,
 * and a question is not pushed away from its note by them either.
 */

const GREETING =
  '(?:hi|hello|hey|hiya|howdy|yo|greetings|good (?:morning|afternoon|evening|day)|dear|ahoy)(?: there| all| everyone| folks| team| guys| friend)?';
/** A name after a greeting ("Hi Sam,") or in an introduction ("Sam here"). */
const NAME = String.raw`[A-Z][\p{L}'’-]*(?: [A-Z][\p{L}'’-]*)?`;

/** Said at the start of a question, each as a whole clause. */
const LEADING: Array<RegExp | ((text: string) => string)> = [
  greeting,
  new RegExp(String.raw`^(?:it'?s |this is )?${NAME} here\b[,!.:;–—-]*\s*`, 'u'),
  new RegExp(String.raw`^(?:my name is|i am|i'm|this is) ${NAME}(?: from [\p{L} ]+?)?[,!.:;–—-]+\s*`, 'iu'),
  /^(?:(?:just )?(?:a )?quick (?:question|one|q)|one (?:more )?question|a question(?: for you)?|question)\s*(?:[,!.:;?–—-]+\s*|\s+(?=[a-z]))/i,
  /^(?:sorry to bother you|hope (?:you(?:'re| are) (?:well|doing well)|all is well)|i hope this finds you well)[,!.:;–—-]*\s*/i,
  /^(?:please|pls|kindly)[,!]?\s+/i,
];

const GREETING_RE = new RegExp(String.raw`^${GREETING}\b`, 'i');
/** A name after the greeting, written with a capital (the greeting itself is matched in any case). */
const GREETED_NAME = new RegExp(String.raw`^,?\s+${NAME}(?=\s*[,!.:;–—-])`, 'u');

/** "Hi!", "hello,", "Hi Sam," and "hey there" before the question proper. */
function greeting(text: string): string {
  const m = GREETING_RE.exec(text);
  if (!m) return text;
  let rest = text.slice(m[0].length);
  rest = rest.replace(GREETED_NAME, '');
  const after = /^\s*[,!.:;–—-]+\s*/.exec(rest) ?? /^\s+(?=[a-z])/.exec(rest);
  return after ? rest.slice(after[0].length) : text;
}

/** Said at the end: thanks, sign-offs, the asker's name. */
const TRAILING: RegExp[] = [
  new RegExp(
    String.raw`[\s,.!–—-]*(?:thanks?(?: you)?(?: so much| a lot| in advance| very much)?|many thanks|cheers|ta|much appreciated|regards|best|kind regards|best wishes)(?:[,!. ]+${NAME})?[\s.!]*$`,
    'iu',
  ),
  /[\s,]+please[\s.!?]*$/i,
];

/** Phrases inside a question that only soften it ("could you tell me how…" asks "how…"). */
const SOFTENERS =
  /\b(?:(?:could|can|would) you (?:please )?(?:tell me|let me know|help me(?: with)?|explain|advise)|i (?:was|am|'m) wondering(?: if| whether)?|do you (?:happen to )?know|i'?d like to know|any idea)\b[,:]?\s*/gi;

/** The question without its greetings, politeness and sign-offs (the question itself when that is all it is). */
export function withoutFiller(question: string): string {
  let text = question.trim();
  for (let changed = true; changed; ) {
    changed = false;
    for (const rule of LEADING) {
      const next = typeof rule === 'function' ? rule(text) : text.replace(rule, '');
      if (next !== text) {
        text = next.trim();
        changed = true;
      }
    }
  }
  for (const re of TRAILING) text = text.replace(re, '').trim();
  text = text
    .replace(SOFTENERS, '')
    .replace(/\s{2,}/g, ' ')
    .trim();
  return text.length ? text : question.trim();
}
