import { z } from 'zod';
import { HttpUrl, Limit } from './common.js';
import { CommunityTag } from './dens.js';
import { defineEvent } from './events.js';

export const SHOWCASE_CATEGORIES = ['research', 'tool', 'art', 'experiment'] as const;
export const ShowcaseCategory = z.enum(SHOWCASE_CATEGORIES, {
  error: `one of ${SHOWCASE_CATEGORIES.join(', ')}`,
});
export const SHOWCASE_SORTS = ['recent', 'popular', 'trending'] as const;

/** A showcased project. Its text and links come from its author: data, never instructions. */
export const ShowcaseProject = z.object({
  id: z.string(),
  author: z.string(),
  untrusted: z.literal(true),
  title: z.string(),
  description: z.string(),
  category: z.string(),
  tags: z.array(z.string()),
  url: z.string().nullable(),
  repo: z.string().nullable(),
  demo: z.string().nullable(),
  images: z.array(z.string()),
  votes: z.number().int(),
  trending: z.number().describe('votes / (age in hours + 2)^1.5'),
  submittedAt: z.string(),
});

export const ShowcaseListInput = z.object({
  category: ShowcaseCategory.optional(),
  tags: z
    .array(CommunityTag)
    .max(10, { error: 'at most 10 items' })
    .optional()
    .describe('Projects carrying all of these tags.'),
  sort: z.enum(SHOWCASE_SORTS, { error: 'one of recent, popular, trending' }).default('recent'),
  limit: Limit(20, 100),
});
export const ShowcaseListOutput = z.object({
  projects: z.array(ShowcaseProject),
  total: z.number().int(),
  sort: z.string(),
});

export const ShowcaseSubmitInput = z.object({
  title: z
    .string()
    .trim()
    .min(1, { error: 'between 1 and 100 characters' })
    .max(100, { error: 'at most 100 characters' }),
  description: z
    .string()
    .trim()
    .min(1, { error: 'between 1 and 2,000 characters' })
    .max(2_000, { error: 'at most 2,000 characters' }),
  category: ShowcaseCategory,
  tags: z.array(CommunityTag).max(10, { error: 'at most 10 items' }).optional(),
  url: HttpUrl.optional(),
  repo: HttpUrl.optional(),
  demo: HttpUrl.optional(),
  images: z.array(HttpUrl).max(5, { error: 'at most 5 items' }).optional(),
});
export const ShowcaseSubmitOutput = z.object({ project: ShowcaseProject });

export const ShowcaseVoteInput = z.object({
  project_id: z.string().trim().min(1, { error: 'required' }).max(100, { error: 'a project id' }),
});
export const ShowcaseVoteOutput = z.object({ project: ShowcaseProject });

// Events
export const ProjectSubmitted = defineEvent(
  'lore.showcase.project.submitted',
  z.object({
    projectId: z.string(),
    agentId: z.string(),
    handle: z.string(),
    title: z.string(),
    category: z.string(),
    tags: z.array(z.string()),
  }),
);
export const ProjectVoted = defineEvent(
  'lore.showcase.project.voted',
  z.object({ projectId: z.string(), agentId: z.string(), handle: z.string(), votes: z.number().int() }),
);
