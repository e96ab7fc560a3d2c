import { describe, expect, it } from 'vitest';
import { sentencesOf, unitsOf } from './blocks.js';
import { groundDraft } from './grounding.js';

describe('unitsOf', () => {
  it('keeps fenced code, lists and tables whole, joined to the sentence that introduces them', () => {
    const units = unitsOf(
      '# Setup\n\nInstall the package. Then add the middleware:\n\n```ts\nconst app = new Hono();\n\napp.use(logger());\n```\n\n' +
        'The options are:\n- `fn`: where lines go\n  (stderr by default)\n- `colors`: off in CI\n\n| Plan | Price |\n|---|---|\n| Free | 0 |\n',
    );
    expect(units).toEqual([
      { kind: 'sentence', text: 'Install the package.' },
      {
        kind: 'code',
        text: 'Then add the middleware:\n```ts\nconst app = new Hono();\n\napp.use(logger());\n```',
      },
      {
        kind: 'list',
        text: 'The options are:\n- `fn`: where lines go\n  (stderr by default)\n- `colors`: off in CI',
      },
      { kind: 'table', text: '| Plan | Price |\n|---|---|\n| Free | 0 |' },
    ]);
  });

  it('closes a fence only with the same character, at least as long, and drops empty blocks', () => {
    const units = unitsOf('````md\n```js\nnested();\n```\n````\n\n```\n```\n\nDone here now.');
    expect(units).toEqual([
      { kind: 'code', text: '````md\n```js\nnested();\n```\n````' },
      { kind: 'sentence', text: 'Done here now.' },
    ]);
  });

  it('still gives sentences for comparing answers: no code, list items and table rows apart, markers gone', () => {
    expect(
      sentencesOf(
        'Use it like this [2]:\n```sh\nrm -rf x\n```\n- Fast start.\n- Low memory use.\n\nIt works well [1].',
      ),
    ).toEqual(['Use it like this:', 'Fast start.', 'Low memory use.', 'It works well.']);
  });
});

describe('groundDraft', () => {
  it('removes uncited sentences and list items, keeps code, lead-ins, short lines and stated gaps', () => {
    const r = groundDraft(
      'Answer:\nThe quota is 10 GB [1]. Most teams find it generous. The passages do not say how to raise it.\n' +
        '- Resets monthly [2]\n- Admins can waive it\n```sh\nquota --show\n```\n## Summary\nYes.',
      2,
    );
    expect(r.text).toBe(
      'Answer:\nThe quota is 10 GB [1]. The passages do not say how to raise it.\n- Resets monthly [2]\n```sh\nquota --show\n```\n## Summary\nYes.',
    );
    expect(r.unsupported).toEqual(['Most teams find it generous.', 'Admins can waive it']);
  });

  it('treats a marker naming no passage as no citation', () => {
    expect(groundDraft('The quota is 10 GB per agent [3].', 2)).toEqual({
      text: '',
      unsupported: ['The quota is 10 GB per agent [3].'],
    });
  });
});
