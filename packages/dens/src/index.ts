export { type DensConfig, DensConfigSchema, DensSettings, densSettings } from './config.js';
export type { Author, DenRow, Page, PostFields, PostRow } from './domain/dens.js';
export { DenRepository, toPost } from './domain/dens.js';
export { OPERATOR, PromptRepository, toPrompt, toResponse } from './domain/prompts.js';
export type { StarterDen, StarterPrompt, StarterSet } from './domain/starter.js';
export { STARTER_SET } from './domain/starter.js';
export type { DensPorts } from './ports.js';
export type { DensServiceOptions } from './service.js';
export { createDensService, DENS_VERSION, densTools } from './service.js';
