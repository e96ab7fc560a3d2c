import { packageProject } from '../../vitest.project.js';

// Lore processes the tests start inherit it: no embedding model unless a test asks for one.
export default packageProject('apps/aggregator', { LORE_EMBEDDINGS: 'off' });
