import type { LoreService, ServiceDeps } from '@lore/kit';
import { createKnowledgeService } from '@lore/knowledge';
import { createUsersService } from '@lore/users';

export interface ServiceEntry {
  name: string;
  create: (deps: ServiceDeps) => Promise<LoreService>;
}

/** Every service the all-in-one process hosts, users first: the others verify keys through it. */
export const SERVICES: ServiceEntry[] = [
  { name: 'users', create: createUsersService },
  { name: 'knowledge', create: createKnowledgeService },
];
