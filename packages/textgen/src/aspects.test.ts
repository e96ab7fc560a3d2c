import { stem } from '@lore/search';
import { describe, expect, it } from 'vitest';
import { aspectUnanswered, questionShape, stemsWithSynonyms } from './aspects.js';

describe('questionShape', () => {
  it('splits a question into its parts, each with the words only it holds', () => {
    const { aspects } = questionShape('What is the sourdough starter ratio, and how long should it ferment?');
    expect(aspects.map((a) => a.text)).toEqual([
      'What is the sourdough starter ratio',
      'how long should it ferment',
    ]);
    expect(aspects[1]!.keys).toEqual(['long', stem('ferment')]);
    expect(questionShape('What are the latest developments in quantum computing?').aspects).toEqual([]);
  });

  it('weighs names, identifiers and figures over nouns and main verbs, and those over the rest', () => {
    const { weight, entityWords } = questionShape('How does Lore compare with Kafka on app.use in 2024?');
    expect(weight.get(stem('kafka'))).toBe(2);
    expect(weight.get('2024')).toBe(2);
    expect([...entityWords.values()]).toEqual(expect.arrayContaining(['Lore', 'Kafka', '2024']));
    const verbs = questionShape('How do I revoke a key that leaked?').weight;
    expect(verbs.get(stem('revoke'))).toBe(1.5);
    expect(verbs.get(stem('key'))).toBe(1.5);
  });
});

describe('aspectUnanswered', () => {
  const part = (q: string, i: number) => questionShape(q).aspects[i]!;

  it('is true only when no passage speaks to the part', () => {
    const q = 'What is the battery life and is it waterproof?';
    const passages = 'The battery lasts 14 hours.';
    expect(aspectUnanswered(part(q, 1), stemsWithSynonyms(passages), passages)).toBe(true);
    const more = `${passages} It is waterproof to 30 metres.`;
    expect(aspectUnanswered(part(q, 1), stemsWithSynonyms(more), more)).toBe(false);
  });

  it('takes a figure as the answer to "how long" or a price, and close terms as the same words', () => {
    const q = 'What does the job delete and how often does it run?';
    expect(
      aspectUnanswered(part(q, 1), stemsWithSynonyms('Every night at 03:00.'), 'Every night at 03:00.'),
    ).toBe(false);
    const k = 'How is it deployed and does it need Kubernetes?';
    const text = 'It ships as a k8s manifest.';
    expect(aspectUnanswered(part(k, 1), stemsWithSynonyms(text), text)).toBe(false);
  });
});
