export { GRAVITY, ProjectRepository, toProject, trendingScore } from './domain/projects.js';
export type { ProjectRow, Sort, Submission } from './domain/projects.js';
export { SHOWCASE_VERSION, createShowcaseService, showcaseTools } from './service.js';
export type { ShowcaseServiceOptions } from './service.js';
export type { ShowcasePorts } from './ports.js';
