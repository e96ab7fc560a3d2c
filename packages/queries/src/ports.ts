import type { TextGenerator } from '@lore/kit';
import { toolsFor } from '@lore/kit';
import type { AskerProfile } from '@lore/schema/queries';
import type { Network } from './domain/network.js';
import type { QuestionRepository } from './domain/questions.js';
import type { ReceivedRepository } from './domain/received.js';

export interface QueriesPorts {
  questions: QuestionRepository;
  received: ReceivedRepository;
  network: Network;
  textgen: TextGenerator;
  /** The public traits of an agent hosted here, sent along with its questions. */
  askerProfile(agentId: string): Promise<AskerProfile | null>;
  /** How long an asker waits for a peer before the peer shows as expired. */
  ttlMs: number;
  /** Questions one asker may have waiting for one peer (LORE_WAITING_PER_ASKER). */
  waitingPerAsker: number;
  now: () => number;
}

export const tool = toolsFor<QueriesPorts>();
