import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RULE_GATES } from './rule-gates.js';
import { foldLookalikes, scanSensitive } from './secrets.js';
import { ORDINARY, SENSITIVE } from './sensitive-corpus.js';
import { SENSITIVE_RULES } from './sensitive-rules.js';

const lines = (file: string) =>
  readFileSync(new URL(`./corpus/${file}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l.trim());

/** Forms each gated rule must still see, at the edges of what its gate lets through. */
const EDGES = [
  'priya.shah(at)gmail.com',
  'jo [at] example [dot] org',
  'sam at example dot com',
  'SAM AT EXAMPLE DOT COM',
  'write to jo {@} example (.) org',
  'meet at home dot five',
  'mail a@b.co',
  'The lab door code is 4711.',
  'PIN: 0815',
  'pin 1234',
  'Pin code 99 88',
  'keypad combination 12-34-56',
  'Der Türcode lautet 2580',
  'TUERCODE 2580',
  'zugangscode 1 2 3 4',
  'le code de la porte est 4711',
  "code d'accès 4455",
  'código de la puerta: 1234',
  'codigo acceso 998877',
  'codice della porta 4455',
  'door code ４７１１',
  'passcodes are 123 and 456',
  'Call +44 20 7946 0958 after six',
  'phone: 030 1234567',
  '(555) 010-0199 is the desk',
  '555.010.0199',
  'call her on 07700 900987',
  'tel. 030/1234567',
  '+1 234 567 8901',
  '+1 234',
  '０７７００ ９００９８７',
  'seed value 9fK2xQ7vLm3Np8Rt6Wy1Zb4Hc5Jd0Gs',
  'session 3f9a1c7e5b2d8f4a',
  'commit 3f9a1c7e5b2d8f4a6c0e9b1d3f5a7c9e2b4d6f8a',
  'ABCDEF0123456789ABCD',
  'a+b/c=d_e-f0g1h2i3j4k5l6',
];

/** The scanner's corpora, each text alone and set in a sentence of prose. */
const texts = [
  ...SENSITIVE.map(([t]) => t),
  ...ORDINARY,
  ...lines('ordinary.txt'),
  ...lines('injections.txt'),
  ...EDGES,
];
const corpus = [...texts, ...texts.map((t) => `Notes from the meeting at the office:\n${t} (see above).`)];

describe('rule gates', () => {
  it('gate only rules that exist', () => {
    const ids = new Set(SENSITIVE_RULES.map((r) => r.id));
    expect(Object.keys(RULE_GATES).filter((id) => !ids.has(id))).toEqual([]);
  });

  it.each(Object.keys(RULE_GATES))('%s: the gate lets through every text the rule fires on', (id) => {
    const rule = SENSITIVE_RULES.find((r) => r.id === id)!;
    const gate = RULE_GATES[id]!;
    const fired = corpus.map(foldLookalikes).filter((t) => rule.find(t));
    // The corpus exercises the rule: a gate that shut out its texts would fail here.
    expect(fired.length).toBeGreaterThanOrEqual(3);
    expect(fired.filter((t) => !gate(t))).toEqual([]);
  });

  it('shuts out ordinary prose, which is what they are for', () => {
    const prose =
      'The timeout readiness events every sequential when the batch is have. To percentile the install, set `versionConfigure` to 421 in the yaml file.';
    for (const gate of Object.values(RULE_GATES)) expect(gate(foldLookalikes(prose))).toBe(false);
  });

  it('leave every finding of the scan as the rules alone make it', async () => {
    for (const t of corpus) {
      const folded = foldLookalikes(t);
      const byRules = SENSITIVE_RULES.filter((r) => r.find(folded)).map((r) => r.id);
      const scanned = (await scanSensitive(t)).map((f) => f.rule).filter((r) => !r.startsWith('secretlint:'));
      expect(scanned, t).toEqual(byRules);
    }
  });
});
