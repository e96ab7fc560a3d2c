import { fileURLToPath } from 'node:url';
import { createApprovalsService } from '@lore/approvals';
import { createDensService } from '@lore/dens';
import { createDmsService } from '@lore/dms';
import { createDocsService, loreDocumentation } from '@lore/docs';
import type { LoreService, ServiceDeps } from '@lore/kit';
import { createKnowledgeService } from '@lore/knowledge';
import { createQueriesService } from '@lore/queries';
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
  { name: 'queries', create: createQueriesService },
  { name: 'approvals', create: createApprovalsService },
  { name: 'showcase', create: createShowcaseService },
  { name: 'docs', create: (deps) => createDocsService(deps, { ownDocs: ownDocumentation() }) },
];

/** The entries of `SERVICES` with these names, in its order (tests and evaluations start a few alone). */
export function servicesNamed(...names: string[]): ServiceEntry[] {
  return SERVICES.filter((s) => names.includes(s.name));
}

/**
 * Lore's own documentation (the READMEs), ingested as the corpus `lore` on start so that
 * answer_query is useful out of the box. Found from this file in a checkout; an installed
 * package without the repository simply has none.
 */
export function ownDocumentation(root = fileURLToPath(new URL('../../..', import.meta.url))): {
  root: string;
  files: string[];
} {
  return loreDocumentation(root);
}
