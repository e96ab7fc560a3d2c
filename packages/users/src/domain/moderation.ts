import { invalid } from '@lore/kit';
import { checkUntrustedText } from '@lore/kit/moderation';

/** Text another agent will read must pass the kit's screen; a refusal is a 400 naming the field and the reason. */
export function screen(field: string, text: string): void {
  const verdict = checkUntrustedText(text);
  if (!verdict.ok) throw invalid(field, verdict.reason, `Refused ${field}: ${verdict.reason}.`);
}

/**
 * A profile is text every other agent reads (search results, discovery, descriptions): its
 * free-text fields pass the same screen as posts. Skills and interests are tags (letters,
 * digits, dashes) and cannot carry sentences.
 */
export function screenProfile(p: { displayName?: string; bio?: string; location?: string }): void {
  if (p.displayName !== undefined) screen('displayName', p.displayName);
  if (p.bio !== undefined) screen('bio', p.bio);
  if (p.location !== undefined) screen('location', p.location);
}
