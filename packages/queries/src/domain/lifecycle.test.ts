import { describe, expect, it } from 'vitest';
import {
  backoff,
  type Command,
  type Draft,
  decide,
  type Event,
  evolve,
  initialState,
  type QueryState,
  Refused,
  run,
  STEP_LEASE_MS,
  type Verdict,
} from './lifecycle.js';

const T = 1_000_000;
const policy = { windowMs: 15 * 60_000, maxBackoffMs: 60_000 };
const draft: Draft = {
  text: 'Logical qubits were error-corrected in 2024 [1].',
  citations: [{ source: 'quantum.txt', excerpt: 'error-corrected logical qubits' }],
  strategy: 'extractive',
};
const verdict = (outcome: Verdict['outcome']): Verdict => ({
  outcome,
  decidedBy: outcome === 'pending' || outcome === 'held' ? 'none' : 'condition:interpreter',
  condition: outcome === 'accepted' || outcome === 'rejected' ? 'Accept questions about quantum' : null,
  reason: `${outcome} because the table says so`,
  checks: [],
});

/** A state reached by running commands from the start. */
function after(...cmds: Command[]): QueryState {
  return cmds.reduce((s, c) => run(c, s).state, initialState);
}
const received = () => after({ type: 'receive', at: T });
const drafted = () => after({ type: 'receive', at: T }, { type: 'draft', draft, at: T + 1 });
const decided = (o: Verdict['outcome']) =>
  after(
    { type: 'receive', at: T },
    { type: 'draft', draft, at: T + 1 },
    { type: 'evaluate', verdict: verdict(o), at: T + 2 },
  );
const broadcast = () => ({ ...received(), broadcast: true });
const noKnowledge = () => after({ type: 'receive', at: T }, { type: 'draft', draft: null, at: T + 1 });
const fail = (step: 'draft' | 'evaluate', at: number): Command => ({
  type: 'fail',
  step,
  error: 'nothing answers on rpc.knowledge.retrieve',
  policy,
  at,
});

describe('received query lifecycle: decide', () => {
  const accept: Command = { type: 'accept', by: 'manual:@bob', reason: 'Accepted by @bob.', at: T + 9 };
  const reject: Command = { type: 'reject', by: 'manual:@bob', reason: 'Rejected by @bob.', at: T + 9 };
  const edit: Command = { type: 'edit', text: 'Mine.', citations: [], by: '@bob', at: T + 9 };

  // [state, command, event types, or the refusal it must raise]
  const table: Array<[string, () => QueryState, Command, Event['type'][] | 'refused']> = [
    ['new', () => initialState, { type: 'receive', at: T }, ['received']],
    ['drafting (again)', received, { type: 'receive', at: T }, []],
    ['drafting', received, { type: 'draft', draft, at: T }, ['drafted']],
    ['drafting', received, { type: 'draft', draft: null, at: T }, ['nothing-drafted']],
    ['drafting', received, { type: 'draft', draft: { ...draft, citations: [] }, at: T }, ['nothing-drafted']],
    ['drafting (broadcast)', broadcast, { type: 'draft', draft: null, at: T }, ['dropped']],
    [
      'drafting (broadcast)',
      broadcast,
      { type: 'draft', draft: { ...draft, citations: [] }, at: T },
      ['dropped'],
    ],
    ['drafting (broadcast)', broadcast, { type: 'draft', draft, at: T }, ['drafted']],
    ['drafting', received, fail('draft', T + 5), ['retry-scheduled']],
    ['drafting', received, fail('evaluate', T + 5), []],
    ['drafted (late draft)', drafted, { type: 'draft', draft, at: T }, []],
    ['drafted', drafted, { type: 'evaluate', verdict: verdict('accepted'), at: T }, ['auto-decided']],
    ['drafted', drafted, { type: 'evaluate', verdict: verdict('held'), at: T }, ['auto-decided']],
    ['drafted', drafted, fail('evaluate', T + 5), ['retry-scheduled']],
    ['drafted', drafted, accept, ['manually-decided']],
    [
      'pending (re-evaluated)',
      () => decided('pending'),
      { type: 'evaluate', verdict: verdict('accepted'), at: T },
      [],
    ],
    ['pending', () => decided('pending'), accept, ['manually-decided']],
    ['pending', () => decided('pending'), reject, ['manually-decided']],
    ['pending', () => decided('pending'), edit, ['edited']],
    ['held', () => decided('held'), accept, ['manually-decided']],
    ['held', () => decided('held'), reject, ['manually-decided']],
    ['accepted', () => decided('accepted'), accept, 'refused'],
    ['accepted', () => decided('accepted'), reject, 'refused'],
    ['accepted', () => decided('accepted'), edit, ['edited']],
    ['rejected', () => decided('rejected'), accept, 'refused'],
    ['rejected', () => decided('rejected'), edit, 'refused'],
    ['no-knowledge', noKnowledge, accept, 'refused'],
    ['no-knowledge', noKnowledge, reject, ['manually-decided']],
    ['no-knowledge', noKnowledge, edit, ['edited']],
    ['drafting', received, accept, 'refused'],
    ['drafting', received, edit, 'refused'],
  ];

  it.each(table)('%s, command %#: as the table says', (_name, state, cmd, expected) => {
    if (expected === 'refused') {
      expect(() => decide(cmd, state())).toThrow(Refused);
      return;
    }
    expect(decide(cmd, state()).map((e) => e.type)).toEqual(expected);
  });

  it('says why a refused command is refused', () => {
    expect(() => decide(accept, noKnowledge())).toThrow(/no relevant knowledge.*cqUpdateEditAnswer/);
    expect(() => decide(accept, decided('accepted'))).toThrow(/already accepted; only pending/);
    expect(() => decide(edit, decided('rejected'))).toThrow(/can no longer be edited/);
  });
});

describe('received query lifecycle: evolve', () => {
  it('walks drafting → drafted → each automatic outcome', () => {
    expect(received()).toMatchObject({ status: 'drafting', nextAttemptAt: T + STEP_LEASE_MS });
    expect(drafted()).toMatchObject({ status: 'drafted', draft: { text: draft.text, edited: false } });
    const table: Array<[Verdict['outcome'], Partial<QueryState>]> = [
      ['accepted', { status: 'accepted', revision: 1, nextAttemptAt: null }],
      ['rejected', { status: 'rejected', revision: 0 }],
      ['pending', { status: 'pending', revision: 0 }],
      ['held', { status: 'held', revision: 0 }],
    ];
    for (const [outcome, expected] of table) {
      const s = decided(outcome);
      expect(s, outcome).toMatchObject({ ...expected, evaluatedAt: T + 2 });
      expect(s.decision.reason).toBe(`${outcome} because the table says so`);
      expect(s.decision.at).toBe(outcome === 'accepted' || outcome === 'rejected' ? T + 2 : null);
    }
  });

  it('drops a broadcast nothing relevant was found for, and keeps one asked by name for its owner', () => {
    const closest = [{ source: 'espresso.md', excerpt: 'Grind finer when the shot runs fast.', score: 0.21 }];
    const nothing = { type: 'draft', draft: null, closest, at: T + 1 } as const;
    expect(run(nothing, broadcast()).state).toMatchObject({ status: 'dropped', nextAttemptAt: null });
    expect(run(nothing, received()).state).toMatchObject({ status: 'no-knowledge', closest });
  });

  it('keeps the closest passages of a question nothing was drafted for, and none for a drafted one', () => {
    const closest = [{ source: 'espresso.md', excerpt: 'Grind finer when the shot runs fast.', score: 0.21 }];
    const nothing = after({ type: 'receive', at: T }, { type: 'draft', draft: null, closest, at: T + 1 });
    expect(nothing).toMatchObject({ status: 'no-knowledge', closest });
    // Written by the owner from there: the passages it was written beside stay on the copy.
    const answered = run(
      { type: 'edit', text: 'Mine.', citations: [], by: '@bob', at: T + 9 },
      nothing,
    ).state;
    expect(answered).toMatchObject({ status: 'pending', closest });
    expect(noKnowledge().closest).toEqual([]);
    expect(drafted().closest).toBeNull();
  });

  it('retries a step with doubling waits up to the ceiling, then gives it up as undeliverable', () => {
    let s = received();
    const waits: number[] = [];
    let at = T;
    for (let i = 0; i < 40 && s.status === 'drafting'; i++) {
      const { state, events } = run(fail('draft', at), s);
      s = state;
      if (events[0]?.type === 'retry-scheduled') {
        waits.push(events[0].nextAttemptAt - at);
        at = events[0].nextAttemptAt;
      }
    }
    expect(waits.slice(0, 7)).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000]);
    expect(Math.max(...waits)).toBe(60_000);
    // The last retry lands exactly on the deadline, and the next failure gives up.
    expect(at).toBe(T + policy.windowMs);
    expect(s).toMatchObject({
      status: 'undeliverable',
      nextAttemptAt: null,
      decision: { decidedBy: 'system' },
    });
    expect(s.decision.reason).toMatch(
      /^Undeliverable: Drafting could not run for 15 min \(\d+ attempts; last error: nothing answers/,
    );
  });

  it('starts a new window for evaluation after a late draft', () => {
    const slow = run(fail('draft', T + 10), received()).state;
    const s = run({ type: 'draft', draft, at: T + 600_000 }, slow).state;
    expect(s).toMatchObject({ status: 'drafted', attempts: 0, retryUntil: null });
    const e = decide(fail('evaluate', T + 700_000), s)[0];
    expect(e).toMatchObject({ type: 'retry-scheduled', retryUntil: T + 700_000 + policy.windowMs });
  });

  it('lets the owner decide a query whose evaluation was given up, when it has a draft', () => {
    let s = drafted();
    s = run(fail('evaluate', T), s).state;
    s = run(fail('evaluate', T + policy.windowMs), s).state;
    expect(s.status).toBe('undeliverable');
    expect(run({ type: 'accept', by: 'manual:@bob', reason: 'ok', at: T + 1 }, s).state).toMatchObject({
      status: 'accepted',
      revision: 1,
    });
    const nothing = [fail('draft', T), fail('draft', T + policy.windowMs)].reduce(
      (x, c) => run(c, x).state,
      received(),
    );
    expect(nothing.status).toBe('undeliverable');
    expect(() => decide({ type: 'accept', by: 'x', reason: 'x', at: T }, nothing)).toThrow(Refused);
  });

  it('keeps the citations an edit passes in, and marks an edit citing nothing as the owner’s', () => {
    const cited = evolve(decided('pending'), {
      type: 'edited',
      text: 'Logical qubits were error-corrected.',
      citations: draft.citations,
      by: '@bob',
      resent: false,
      at: T + 5,
    });
    expect(cited.draft).toMatchObject({
      citations: draft.citations,
      strategy: 'extractive',
      writtenByOwner: false,
    });
    const own = evolve(decided('accepted'), {
      type: 'edited',
      text: 'Ask me tomorrow.',
      citations: [],
      by: '@bob',
      resent: true,
      at: T + 5,
    });
    expect(own).toMatchObject({
      status: 'accepted',
      revision: 2,
      draft: { citations: [], strategy: 'manual', edited: true, writtenByOwner: true },
    });
    const fromNothing = run(
      { type: 'edit', text: 'My own.', citations: [], by: '@bob', at: T + 5 },
      noKnowledge(),
    );
    expect(fromNothing.state).toMatchObject({ status: 'pending', decision: { decidedBy: 'none' } });
  });

  it('waits 1 s, 2 s, 4 s … never more than the ceiling', () => {
    expect([1, 2, 3, 4, 10, 100].map((n) => backoff(n, 5000))).toEqual([1000, 2000, 4000, 5000, 5000, 5000]);
  });
});
