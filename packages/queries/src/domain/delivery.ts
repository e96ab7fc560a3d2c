import type { Outbox } from '@lore/kit/bus';
import { handleOnce } from '@lore/kit/bus';
import type { Database } from '@lore/kit/db';
import type { EventEnvelope, EventPayload } from '@lore/schema/events';
import type { AnswerShared, AnswerWithheld } from '@lore/schema/queries';
import type * as tables from '../tables.js';
import type { Network } from './network.js';
import type { QuestionRepository } from './questions.js';

export interface DeliveryDeps {
  db: Database<typeof tables>;
  outbox: Outbox;
  questions: QuestionRepository;
  network: Network;
  now: () => number;
}

/**
 * What an asker's node does with answers coming back: believe them only when signed by the
 * node hosting the peer who answers, and keep them only when they answer a question the
 * asker really sent to that peer. Anything else is dropped and counted.
 */
export class Delivery {
  constructor(private readonly d: DeliveryDeps) {}

  async answerShared(
    a: EventPayload<typeof AnswerShared>,
    event: EventEnvelope,
    consumer: string,
  ): Promise<void> {
    const peer = await this.admissible(event, a);
    if (!peer) return;
    await handleOnce(this.d.db, consumer, event, async (tx) => {
      // Under the name this node knows the peer by (qualified where a local agent holds its handle).
      await this.d.questions.storeAnswer(tx, { ...a, recipientHandle: peer }, event.id, this.d.now());
    });
  }

  async answerWithheld(
    w: EventPayload<typeof AnswerWithheld>,
    event: EventEnvelope,
    consumer: string,
  ): Promise<void> {
    if (!(await this.admissible(event, w))) return;
    await handleOnce(this.d.db, consumer, event, async (tx) => {
      await this.d.questions.markWithheld(tx, w.questionId, w.recipientId, w.reason, this.d.now(), w.detail);
    });
  }

  private async admissible(
    event: EventEnvelope,
    m: {
      questionId: string;
      askerId: string;
      askerHandle: string;
      recipientId: string;
      recipientHandle: string;
    },
  ): Promise<string | null> {
    // Every node hears every answer; only the asker's node keeps it, so only it pays for the checks.
    if (!(await this.d.network.hostedHere(m.askerHandle, m.askerId))) return null;
    const check = await this.d.network.check(event, { handle: m.recipientHandle, id: m.recipientId });
    if (!check.ok) return null;
    if (!(await this.d.questions.wasSent(m.questionId, m.askerId, m.recipientId))) {
      this.d.network.drop(
        event,
        'unsolicited',
        `@${m.askerHandle} never sent ${m.questionId} to @${check.handle}`,
      );
      return null;
    }
    return check.handle;
  }
}
