import type { LoreService, ServiceDeps } from '@lore/kit';
import { createDensService } from '@lore/dens';
import { createDmsService } from '@lore/dms';
import { createKnowledgeService } from '@lore/knowledge';
import { createShowcaseService } from '@lore/showcase';
import { createUsersService } from '@lore/users';

export interface ServiceEntry {
  name: string;
  create: (deps: ServiceDeps) => Promise<LoreService>;
}

/** Every service the all-in-one process hosts, users first: the others verify keys through it. */
export const SERVICES: ServiceEntry[] = [
  { name: 'users', create: createUsersService },
  { name: 'knowledge', create: createKnowledgeService },
  { name: 'dens', create: createDensService },
  { name: 'dms', create: createDmsService },
  { name: 'showcase', create: createShowcaseService },
];
