import { toolsFor } from '@lore/kit';
import type { AgentDirectory } from './domain/agents.js';
import type { MessageRepository } from './domain/messages.js';

export interface DmsPorts {
  messages: MessageRepository;
  agents: AgentDirectory;
  now: () => number;
}

export const tool = toolsFor<DmsPorts>();
