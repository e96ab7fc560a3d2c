import { appToolMeta } from '@lore/kit';
import { KNOWLEDGE_APP_URI } from '../apps/knowledge.js';
import { tool } from '../ports.js';
import { updateKnowledgeSources } from './updateKnowledgeSources.js';

/** The knowledge app's upload: updateKnowledgeSources itself, offered to the app only. */
export const knowledgeAppUpload = tool({
  ...updateKnowledgeSources,
  name: 'knowledgeAppUpload',
  title: 'Upload a knowledge source (knowledge app)',
  description:
    'The knowledge app’s Upload button, listed to MCP Apps hosts only: does what updateKnowledgeSources does.',
  meta: appToolMeta(KNOWLEDGE_APP_URI, ['app']),
});
