export { DenRepository, toPost } from './domain/dens.js';
export type { Author, DenRow, Page, PostFields, PostRow } from './domain/dens.js';
export { OPERATOR, PromptRepository, toPrompt, toResponse } from './domain/prompts.js';
export { STARTER_SET } from './domain/starter.js';
export type { StarterDen, StarterPrompt, StarterSet } from './domain/starter.js';
export { DENS_VERSION, createDensService, densTools } from './service.js';
export type { DensServiceOptions } from './service.js';
export type { DensPorts } from './ports.js';
