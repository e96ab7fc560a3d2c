import { describe, expect, it } from 'vitest';
import {
  MODEL_ONLY_HEALTH,
  ORDINARY_PASSAGES,
  SENSITIVE_PASSAGES,
} from '../../test/fixtures/sensitivity-eval.js';
import {
  classifyByRules,
  describeSensitivity,
  moneyByRules,
  sensitivityVersion,
  sentencesOf,
} from './sensitivity.js';

describe('sensitivity by the rules alone (no model)', () => {
  it.each([
    ['The payroll database password is Hunter2-Payroll!', 'credentials'],
    ['| env | user | password |\n|---|---|---|\n| prod | deploy | bluebird |', 'credentials'],
    ['call her on 07700 900987 or at home on 020 7946 0018', 'contact'],
    ['Flat 4, 77 Harbour Road, Leith, Edinburgh EH6 6LQ', 'contact'],
    ['priya.shah(at)gmail.com', 'contact'],
    ['Priya has type 1 diabetes and keeps insulin in the fridge.', 'health'],
    ['Kenji uses an inhaler for asthma.', 'health'],
    ["Jensen Okafor's salary is 96,500 euros a year.", 'money'],
    ['Jensen Okafor makes 96,500 euros a year.', 'money'],
    ['IBAN DE89 3704 0044 0532 0130 00', 'money'],
    ['Anna was born on 14 March 1987 in Porto.', 'personal'],
    ['Olek will be let go at the end of the quarter.', 'personal'],
  ] as const)('%s → %s', async (text, category) => {
    expect(await classifyByRules(text)).toContain(category);
  });

  it.each([
    'Health checks hit /healthz every ten seconds; a pod that fails three is restarted.',
    'The memory leak was diagnosed with a heap snapshot; the fix shipped in 2.4.1.',
    'The license for the profiler costs 500 euros a year per seat.',
    'The service handles 100k requests a month on two small nodes.',
    'Archive the logs with tar before the HIVE job reads them.',
    'SVG icons use a stroke width of 2 and no fill.',
    'Install it with pip install lore-client.',
    'The payroll exporter is a TypeScript script that reads the payroll database every month.',
  ])('leaves alone: %s', async (text) => {
    expect(await classifyByRules(text)).toEqual([]);
  });

  it('says what the owner needs to know, and nothing when nothing is sensitive', () => {
    expect(
      describeSensitivity({ credentials: 3, contact: 0, health: 1, money: 0, personal: 0, unclassified: 2 }),
    ).toEqual([
      '3 passages hold credentials: answers drawn from them always wait for you.',
      '1 passage holds health facts: answers drawn from it always wait for you.',
      '2 passages are still being classified: answers drawn from them wait for you meanwhile.',
    ]);
    expect(
      describeSensitivity({ credentials: 0, contact: 0, health: 0, money: 0, personal: 0, unclassified: 0 }),
    ).toEqual([]);
  });

  it('versions a classification by its rules and its model', () => {
    expect(sensitivityVersion(null)).toMatch(/^r\d+$/);
    expect(sensitivityVersion('minilm@1')).toBe(`${sensitivityVersion(null)}+minilm@1`);
  });

  it('embeds sentences, not headings or fragments', () => {
    expect(sentencesOf('# Team\nPriya has type 1 diabetes. Ok.\n- Tom broke his leg skiing')).toEqual([
      'Priya has type 1 diabetes.',
      'Tom broke his leg skiing',
    ]);
  });

  it('finds money with the amount gate exactly where it finds it without', () => {
    const texts = [
      ...SENSITIVE_PASSAGES.map(([t]) => t),
      ...MODEL_ONLY_HEALTH,
      ...ORDINARY_PASSAGES,
      "Jensen Okafor's salary is 96,500 euros a year.",
      'Jensen Okafor makes 96,500 euros a year.',
      'She is on $120k. The license costs 500 euros a year per seat.',
      'He is on 4.200 EUR\nnet a month',
    ];
    const all = [...texts, ...texts.map((t) => `# Team notes\n\nFrom the review: ${t} Thanks.`)];
    const differ = all.filter((t) => moneyByRules(t) !== moneyByRules(t, false));
    expect(differ).toEqual([]);
    // The set exercises the searches the gate skips: amounts with and without pay around them.
    expect(all.filter((t) => moneyByRules(t, false)).length).toBeGreaterThanOrEqual(10);
    expect(all.filter((t) => !moneyByRules(t, false)).length).toBeGreaterThanOrEqual(10);
  });
});
