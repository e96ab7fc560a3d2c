import { invalid } from '@lore/kit';
import { checkUntrustedText } from '@lore/kit/moderation';

/** Text another agent will read must pass the kit's screen; a refusal is a 400 naming the field and the reason. */
export function screen(field: string, text: string): void {
  const verdict = checkUntrustedText(text);
  if (!verdict.ok) throw invalid(field, verdict.reason, `Refused ${field}: ${verdict.reason}.`);
}
