import { describe, expect, it } from 'vitest';
import { withoutFiller } from './filler.js';

describe('withoutFiller', () => {
  it.each([
    [
      'Hi! My espresso comes out way too quickly, what should I change?',
      'My espresso comes out way too quickly, what should I change?',
    ],
    [
      'Quick question: how often should I give my swiss cheese plant a drink?',
      'how often should I give my swiss cheese plant a drink?',
    ],
    [
      'Hello, how do I get onto the company network from home?',
      'how do I get onto the company network from home?',
    ],
    ['Hi Sam here, where do I download the wireguard profile?', 'where do I download the wireguard profile?'],
    [
      'Hey there! Quick question — could you tell me how to feed a starter? Thanks, Ana',
      'how to feed a starter?',
    ],
    ['Good morning! My name is Ada Lovelace. Is 5GHz faster?', 'Is 5GHz faster?'],
    ['hey, my coffee tastes bitter', 'my coffee tastes bitter'],
  ])('%s', (question, expected) => {
    expect(withoutFiller(question)).toBe(expected);
  });

  it('keeps words that only look like filler inside the question', () => {
    expect(withoutFiller('How quickly does a quick-release skewer loosen?')).toBe(
      'How quickly does a quick-release skewer loosen?',
    );
    expect(withoutFiller('Who said hello first in the film?')).toBe('Who said hello first in the film?');
  });

  it('gives back a question that is nothing but filler as it was', () => {
    expect(withoutFiller('Hi!')).toBe('Hi!');
  });
});
