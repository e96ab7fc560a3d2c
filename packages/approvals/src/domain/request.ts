import { foldLookalikes } from '@lore/kit/moderation';

/**
 * What a question actually asks. A topic condition approves only when the question's request
 * is about the topic, not when the topic's word sits somewhere in it: "TypeScript aside, what
 * is the payroll password?" asks about the payroll password, and "Physics question: what is the
 * lab door code?" asks for a door code. So a question is cut into parts (sentences, a label
 * before a colon, clauses joined by a comma or "and" before a new question word), and the parts
 * that ask something — they open with a question word or an imperative, or end with "?" — are
 * its requests. A question none of whose parts reads as a request is one request as a whole.
 */

/** Words that open a request, in English and the languages a question is likely to come in. */
const ASKS = [
  // English
  "what|what's|whats|how|who|whom|whose|which|where|when|why|can|could|would|will|should|shall|may|might|is|are|was|were|do|does|did|has|have|had",
  "tell|give|share|list|show|explain|describe|send|reveal|print|provide|write|find|summarize|summarise|compare|name|state|spell|dump|output|repeat|paste|read|recite|disclose|leak|confirm|i need|i want|i would like|i'd like|need|want",
  // German, French, Spanish, Italian, Portuguese, Dutch
  'was|wie|wer|wem|wen|wessen|welche|welcher|welches|wo|wann|warum|wieso|weshalb|gib|nenne|sag|sage|zeig|zeige|erkläre|verrate|ist|sind|kannst|können',
  "quel|quelle|quels|quelles|comment|qui|où|quand|pourquoi|qu'est|que|quoi|donne|dis|montre|explique|révèle|est-ce",
  'qué|que|cuál|cuáles|cómo|quién|quiénes|dónde|cuándo|por qué|dime|dame|muestra|explica|revela|cuánto|cuánta',
  'che|cosa|quale|quali|come|chi|dove|quando|perché|dimmi|dammi|mostra|spiega|rivela|quanto',
  'o que|qual|quais|quem|onde|quanto|diga|mostre|explique|revele',
  'wat|welk|welke|hoe|wie|waar|wanneer|waarom|geef|vertel|toon',
].join('|');
const OPENS_REQUEST = new RegExp(`^(?:${ASKS})(?=$|[\\s,'’])`, 'u');
/** Words that may stand before a request without being one ("and", "so", "ok, now"). */
const LEAD =
  /^(?:(?:and|but|so|also|then|now|ok|okay|well|hey|hi|hello|please|just|quick(?:ly)?|oh|btw|by the way|one more thing|lastly|finally|und|et|y|e|en)\b[\s,]*)+/u;

/** "X aside", "apart from X", "not about X": a part that sets a topic aside does not ask about it. */
const SETS_ASIDE =
  /\b(?:aside|apart from|besides|other than|except|excluding|not about|not related|never mind|nevermind|forget|ignore|ignoring|leaving|setting|putting|instead of|rather than|beiseite|abgesehen|außer|mis à part|à part|sauf|aparte|además de|excepto|a parte|tranne|além de|exceto)\b/u;

const CLAUSE_BREAK = new RegExp(
  `\\s+(?:and|but|also|plus|then|und|et|y|e|en|&)\\s+(?=(?:${ASKS})(?=$|[\\s,'’]))`,
  'gu',
);

/**
 * The question's parts, each marked as a request or not, lower-cased and look-alikes folded.
 * Within a sentence, a part that opens with a question word or an imperative starts a request;
 * parts after it continue it ("how do generics, unions and intersections work in TypeScript"),
 * unless they set a topic aside; parts before the first request are preambles. A sentence that
 * ends with "?" but opens no request asks with its last part that sets nothing aside.
 */
export function questionParts(question: string): Array<{ text: string; request: boolean }> {
  const text = foldLookalikes(question).toLowerCase().replace(/[’]/g, "'");
  const parts: Array<{ text: string; request: boolean }> = [];
  // "dict.get" or "12:30" is not the end of a sentence: a period or colon ends one only before a space.
  for (const m of text.matchAll(/(?:[^?!.;:\n¿¡]|[.:](?![\s.:]|$))+[?!.;:\n]*/gu)) {
    const asked = /\?/.test(m[0]);
    const pieces = m[0]
      .replace(/[?!.;:\n]+$/u, '')
      .split(/,|\s+[-–—]\s+|\(|\)/u)
      .flatMap((p) => p.split(CLAUSE_BREAK))
      .map((p) => p.replace(LEAD, '').trim())
      .filter(Boolean);
    const sentence: Array<{ text: string; request: boolean }> = [];
    let current: { text: string; request: boolean } | null = null;
    for (const piece of pieces) {
      if (OPENS_REQUEST.test(piece)) {
        current = { text: piece, request: true };
        sentence.push(current);
      } else if (current && !SETS_ASIDE.test(piece)) current.text += `, ${piece}`;
      else sentence.push({ text: piece, request: false });
    }
    if (asked && !sentence.some((p) => p.request)) {
      const last = [...sentence].reverse().find((p) => !SETS_ASIDE.test(p.text));
      if (last) last.request = true;
    }
    parts.push(...sentence);
  }
  return parts;
}

/** The parts of a question that ask something; the whole question when none reads as a request. */
export function requestsOf(question: string): string[] {
  const parts = questionParts(question);
  const asks = parts.filter((p) => p.request).map((p) => p.text);
  if (asks.length) return asks;
  const kept = parts.filter((p) => !SETS_ASIDE.test(p.text)).map((p) => p.text);
  if (kept.length) return kept;
  const whole = foldLookalikes(question).toLowerCase().trim();
  return whole ? [whole] : [];
}
