import { describeFindings, scanSensitive } from '@lore/kit/moderation';
import type { EvaluateQueryRequest } from '@lore/schema/approvals';
import type { SensitivityCategory } from '@lore/schema/knowledge';
import type { PassageFacts, SourceFacts } from '@lore/schema/knowledge-events';

/** Why the gate holds an answer for its owner before any condition is consulted. */
export interface Hold {
  decidedBy: 'gate:sensitive' | 'gate:manual-source';
  reason: string;
}

const list = (names: string[]) =>
  names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;

/**
 * What holds an answer for its owner whatever the conditions say: a draft or cited passage
 * that looks like a secret or personal data, a draft drawing on a source that is not shared
 * `auto` (manual, private, removed since) — or on sources that could not be checked at all —
 * and a draft drawing on a passage classified sensitive when it was ingested (or not classified
 * yet). The owner can still accept it by hand.
 */
export async function holdFor(
  req: EvaluateQueryRequest,
  sources: SourceFacts[] | null,
  passages?: PassageFacts[] | null,
): Promise<Hold | null> {
  const findings = await scanSensitive([req.draft.text, ...req.draft.excerpts]);
  if (findings.length)
    return {
      decidedBy: 'gate:sensitive',
      reason: `Held for you: the draft ${describeFindings(findings)}, which never leaves automatically. Accept it with cqAcceptQuery (or edit it first with cqUpdateEditAnswer) if it may go.`,
    };
  const cited = [...new Set(req.draft.sources)];
  if (!cited.length) return passageHold(req, passages);
  if (!sources)
    return {
      decidedBy: 'gate:manual-source',
      reason:
        'Held for you: the sources the draft cites could not be checked (knowledge service unavailable).',
    };
  const by = (s: SourceFacts['sharing']) =>
    cited.filter((name) => (sources.find((f) => f.name === name)?.sharing ?? 'missing') === s);
  const manual = by('manual');
  const privateOnes = by('private');
  const missing = by('missing');
  const parts = [
    manual.length ? `${list(manual)}, which you share manual` : '',
    privateOnes.length ? `${list(privateOnes)}, which you keep private` : '',
    missing.length ? `${list(missing)}, which you no longer have` : '',
  ].filter(Boolean);
  if (!parts.length) return passageHold(req, passages);
  return {
    decidedBy: 'gate:manual-source',
    reason: `Held for you: the draft draws on ${parts.join('; and on ')}. Accept it with cqAcceptQuery if it may go.`,
  };
}

const CATEGORY_WORDS: Record<SensitivityCategory, string> = {
  credentials: 'credentials',
  contact: 'personal contact data',
  health: 'health facts',
  money: 'money or pay',
  personal: 'other personal matters',
};

/**
 * A draft drawing on a passage classified sensitive when it was ingested waits for its owner,
 * whatever the conditions say; so does one drawing on a passage not classified yet, or on an
 * excerpt found in no passage of its source. `undefined`: the caller did not ask (unit tests of
 * the conditions); `null`: knowledge could not say, which holds.
 */
function passageHold(req: EvaluateQueryRequest, passages: PassageFacts[] | null | undefined): Hold | null {
  if (passages === undefined || !req.draft.excerpts.length) return null;
  if (passages === null)
    return {
      decidedBy: 'gate:sensitive',
      reason:
        'Held for you: what the passages the draft cites hold could not be checked (knowledge service unavailable).',
    };
  const categories = [...new Set(passages.flatMap((p) => p.sensitivity))];
  if (categories.length) {
    const from = [...new Set(passages.filter((p) => p.sensitivity.length).map((p) => p.source))];
    return {
      decidedBy: 'gate:sensitive',
      reason: `Held for you: the draft draws on passages of ${list(from)} classified when you added ${from.length === 1 ? 'it' : 'them'} as holding ${list(categories.map((c) => CATEGORY_WORDS[c]))}, which never leave automatically. Accept it with cqAcceptQuery (or edit it first with cqUpdateEditAnswer) if it may go.`,
    };
  }
  const waiting = passages.filter((p) => !p.classified);
  if (waiting.length)
    return {
      decidedBy: 'gate:sensitive',
      reason: `Held for you: the draft draws on passages of ${list([...new Set(waiting.map((p) => p.source))])} that are not classified yet (or no longer there), and an unclassified passage never leaves automatically. Accept it with cqAcceptQuery if it may go.`,
    };
  return null;
}

/**
 * Words that ask for a password or credentials, in the languages askers try (a question that
 * asks for one is held even when the draft quotes only a harmless passage beside it): English,
 * German, French, Spanish, Portuguese, Italian, Dutch and Russian, accents folded.
 */
const CREDENTIAL_REQUEST =
  /(?<![\p{L}\p{N}])(pass ?words?|passphrases?|passcodes?|credentials?|connection strings?|passwort|kennwort|zugangsdaten|mot de passe|identifiants|contrasenas?|senhas?|parola d ?ordine|wachtwoord|пароль|пароли)(?![\p{L}\p{N}])/u;

/** Why an answer a condition would accept is held instead: the question asks for credentials. */
export const CREDENTIALS_ASKED: Hold = {
  decidedBy: 'gate:sensitive',
  reason:
    'Held for you: the question asks for a password or credentials, which are never answered automatically, whatever the draft quotes. Accept it with cqAcceptQuery (or edit it first with cqUpdateEditAnswer) if it may go.',
};

/** Whether a question asks for a password or credentials. */
export function asksForCredentials(question: string): boolean {
  const folded = question.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[’'`]/g, ' ');
  return CREDENTIAL_REQUEST.test(folded);
}
