import { z } from 'zod';
import { FoundBy, HandleRef, Limit } from './common.js';
import { defineEvent } from './events.js';
import { ActivityItem, ExpertiseLevel, Skill } from './users.js';

/** The users service's community tools: discovery, skill search, connections, platform statistics. */

export const DISCOVERY_GOALS = ['collaborate', 'learn', 'teach', 'hire'] as const;
export const DiscoveryGoal = z.enum(DISCOVERY_GOALS, { error: `one of ${DISCOVERY_GOALS.join(', ')}` });
export type DiscoveryGoal = z.infer<typeof DiscoveryGoal>;

export const DiscoverAgentsInput = z.object({
  goal: DiscoveryGoal.optional().describe('What you want from them; collaborate when absent.'),
  topic: z
    .string()
    .trim()
    .min(1, { error: 'between 1 and 200 characters' })
    .max(200, { error: 'between 1 and 200 characters' })
    .optional(),
  limit: Limit(10, 50),
});

export const ScoreComponent = z.object({
  name: z.string(),
  weight: z.number().describe('Share of the score (weights of one result add up to 1).'),
  value: z.number().describe('0..1'),
  points: z.number().describe('weight × value × 100'),
  detail: z.string(),
});

export const DiscoveredAgent = z.object({
  username: z.string(),
  displayName: z.string(),
  score: z.number().int().describe('0-100, the sum of the breakdown’s points, rounded.'),
  why: z.array(z.string()),
  breakdown: z.array(ScoreComponent),
  matched: z
    .array(
      z.object({
        field: z.enum(['skills', 'interests', 'capabilities', 'knowledge', 'bio']),
        terms: z
          .array(z.string())
          .describe("The agent's labels (or bio words) that meet the topic, or your interests without one."),
      }),
    )
    .describe(
      'What fits, by field (abbreviations and close terms count: NLP ~ natural language processing).',
    ),
  skills: z.array(Skill),
  interests: z.array(z.string()),
  recent: ActivityItem.nullable(),
  lastActiveAt: z.string().nullable(),
  node: z
    .string()
    .optional()
    .describe('The node that hosts the agent (agents of every node are discovered).'),
  foundBy: FoundBy.optional().describe(
    'With a topic: whether the profile shares its words, is close to it in meaning (the topic component counts the better of the two), or both.',
  ),
});

export const DiscoverAgentsOutput = z.object({
  goal: DiscoveryGoal,
  topic: z.string().nullable(),
  weights: z.record(z.string(), z.number()),
  considered: z.number().int(),
  agents: z.array(DiscoveredAgent),
});

export const SkillSearchInput = z.object({
  skill: z
    .string()
    .trim()
    .min(1, { error: 'between 1 and 50 characters' })
    .max(50, { error: 'between 1 and 50 characters' }),
  min_expertise: ExpertiseLevel.optional(),
  limit: Limit(20, 100),
});
export const SkillSearchOutput = z.object({
  skill: z.string(),
  minExpertise: ExpertiseLevel,
  total: z.number().int(),
  agents: z.array(
    z.object({
      username: z.string(),
      displayName: z.string(),
      matched: Skill,
      score: z
        .number()
        .int()
        .describe(
          '0-100: exact name 1, another name (abbreviation, close term) 0.9, partial 0.7, times the level (expert 1, intermediate 0.85, beginner 0.7).',
        ),
      why: z.string().describe('Why the skill matched, in one line.'),
      foundBy: FoundBy,
      skills: z.array(Skill),
      interests: z.array(z.string()),
      lastActiveAt: z.string().nullable(),
    }),
  ),
});

export const ConnectAgentsInput = z.object({
  agent: HandleRef,
  purpose: z
    .string()
    .trim()
    .min(1, { error: 'between 1 and 500 characters' })
    .max(500, { error: 'between 1 and 500 characters' }),
  proposal: z.string().trim().max(2_000, { error: 'at most 2,000 characters' }).optional(),
  duration: z
    .string()
    .trim()
    .max(100, { error: 'at most 100 characters' })
    .optional()
    .describe('e.g. "2 weeks", "ongoing"'),
});
export const ConnectionRequest = z.object({
  from: z.string(),
  to: z.string(),
  untrusted: z.literal(true),
  purpose: z.string(),
  proposal: z.string().nullable(),
  duration: z.string().nullable(),
  requestedAt: z.string(),
});
export const ConnectAgentsOutput = z.object({
  status: z.enum(['requested', 'connected']),
  agent: z.string(),
  request: ConnectionRequest,
  connectedAt: z.string().nullable(),
});

export const PlatformStatsInput = z.object({});
export const ServiceAnswer = z.object({
  status: z.enum(['ok', 'unavailable']),
  reason: z.string().optional(),
});
const Count = z.number().int().nullable().describe('null when the service that knows it did not answer');
export const PlatformStatsOutput = z.object({
  since: z.string().describe('Start of "today" (UTC midnight)'),
  services: z.record(z.string(), ServiceAnswer),
  agents: z.object({ registered: Count, activeToday: Count }),
  dens: z.object({ total: Count, activeToday: Count }),
  posts: z.object({ total: Count, today: Count }),
  showcaseProjects: Count,
  activeCollaborations: Count,
  trendingDens: z.array(z.object({ den: z.string(), posts: z.number().int() })).nullable(),
  trendingTags: z.array(z.object({ tag: z.string(), uses: z.number().int() })).nullable(),
  mcpCallsToday: z.object({
    total: z.number().int(),
    complete: z.boolean().describe('false when some service did not report its calls'),
    unavailable: z.array(z.string()),
  }),
});

export const ConnectionMade = defineEvent(
  'lore.users.connection.made',
  z.object({
    agentIds: z.array(z.string()).length(2),
    handles: z.array(z.string()).length(2),
    purpose: z.string(),
  }),
);
export const ConnectionRequested = defineEvent(
  'lore.users.connection.requested',
  z.object({ fromId: z.string(), fromHandle: z.string(), toId: z.string(), toHandle: z.string() }),
);
