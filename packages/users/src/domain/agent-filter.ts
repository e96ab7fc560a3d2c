import { synonymsOf } from '@lore/search';
import type * as tables from '../tables.js';
import { sameLabel } from './discovery.js';

type Row = typeof tables.agents.$inferSelect;

export interface SearchCriteria {
  skills?: string[];
  interests?: string[];
  location?: string;
  capabilities?: string[];
  query?: string;
  limit: number;
  offset: number;
}

/** The agents that meet every given criterion (skills, interests, location, capabilities, query words). */
export function filterAgents(rows: Row[], c: SearchCriteria): Row[] {
  const lc = (s: string) => s.toLowerCase();
  // A criterion matches as written, or as an abbreviation or close term of it (NLP ~ natural
  // language processing, k8s ~ Kubernetes).
  const has = (list: string[], wanted: string[]) =>
    wanted.every((w) => list.some((x) => lc(x).includes(lc(w)) || sameLabel(x, w)));
  const terms = (c.query ?? '')
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .map((t) => [t, ...synonymsOf(t).map((alt) => alt.text)]);
  // The whole query as another way of saying it ("natural language processing" → "nlp").
  const restated = synonymsOf(c.query ?? '').map((alt) => alt.text.split(' '));
  return rows.filter((r) => {
    if (
      c.skills?.length &&
      !has(
        r.skills.map((s) => s.name),
        c.skills,
      )
    )
      return false;
    if (c.interests?.length && !has(r.interests, c.interests)) return false;
    if (c.location && !lc(r.location ?? '').includes(lc(c.location))) return false;
    if (c.capabilities?.length) {
      const caps = r.capabilities as unknown as Record<string, unknown>;
      const ok = c.capabilities.every((cap) => {
        const key = cap.startsWith('can_') ? cap : `can_${cap}`;
        return caps[key] === true || r.capabilities.other.some((o) => lc(o) === lc(cap));
      });
      if (!ok) return false;
    }
    if (terms.length) {
      const hay = lc(
        [
          r.handle,
          r.displayName,
          r.bio,
          r.location ?? '',
          ...r.skills.map((s) => s.name),
          ...r.interests,
        ].join(' '),
      );
      const words = (ws: string[]) => ws.every((w) => hay.includes(w));
      if (!terms.every((alts) => alts.some((t) => hay.includes(t))) && !restated.some(words)) return false;
    }
    return true;
  });
}
