export { type ShowcaseConfig, ShowcaseConfigSchema, ShowcaseSettings, showcaseSettings } from './config.js';
export type { ProjectRow, Sort, Submission } from './domain/projects.js';
export { GRAVITY, ProjectRepository, toProject, trendingScore } from './domain/projects.js';
export type { ShowcasePorts } from './ports.js';
export type { ShowcaseServiceOptions } from './service.js';
export { createShowcaseService, SHOWCASE_VERSION, showcaseTools } from './service.js';
