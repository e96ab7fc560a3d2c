import { describeFindings, scanSensitive } from '@lore/kit';
import type { EvaluateQueryRequest } from '@lore/schema/approvals';
import type { SourceFacts } from '@lore/schema/knowledge-events';

/** Why the gate holds an answer for its owner before any condition is consulted. */
export interface Hold {
  decidedBy: 'gate:sensitive' | 'gate:manual-source';
  reason: string;
}

const list = (names: string[]) =>
  names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;

/**
 * What holds an answer for its owner whatever the conditions say: a draft or cited passage
 * that looks like a secret or personal data, or a draft drawing on a source that is not shared
 * `auto` (manual, private, removed since) — or on sources that could not be checked at all.
 * The owner can still accept it by hand.
 */
export async function holdFor(
  req: EvaluateQueryRequest,
  sources: SourceFacts[] | null,
): Promise<Hold | null> {
  const findings = await scanSensitive([req.draft.text, ...req.draft.excerpts]);
  if (findings.length)
    return {
      decidedBy: 'gate:sensitive',
      reason: `Held for you: the draft ${describeFindings(findings)}, which never leaves automatically. Accept it with cqAcceptQuery (or edit it first with cqUpdateEditAnswer) if it may go.`,
    };
  const cited = [...new Set(req.draft.sources)];
  if (!cited.length) return null;
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
  if (!parts.length) return null;
  return {
    decidedBy: 'gate:manual-source',
    reason: `Held for you: the draft draws on ${parts.join('; and on ')}. Accept it with cqAcceptQuery if it may go.`,
  };
}
