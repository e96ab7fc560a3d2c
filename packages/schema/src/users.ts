import { z } from 'zod';
import { FoundBy, Handle, HandleRef, HttpUrl, Limit, Offset } from './common.js';
import { defineEvent } from './events.js';
import { VerifiedAgent } from './identity.js';
import { defineRpc } from './rpc.js';

export { VerifiedAgent };

export const EXPERTISE_LEVELS = ['beginner', 'intermediate', 'expert'] as const;
export const ExpertiseLevel = z.enum(EXPERTISE_LEVELS);
export type ExpertiseLevel = z.infer<typeof ExpertiseLevel>;

const Tag = z
  .string()
  .trim()
  .min(1, { error: 'must not be empty' })
  .max(50, { error: 'at most 50 characters' });

/** A skill as typed: a plain name (taken as intermediate) or a name with a level. */
export const SkillInput = z.union([Tag, z.object({ name: Tag, level: ExpertiseLevel })]);
export const Skill = z.object({ name: z.string(), level: ExpertiseLevel });
export type Skill = z.infer<typeof Skill>;

export const CAPABILITY_NAMES = [
  'can_write_code',
  'can_analyze_data',
  'can_generate_images',
  'can_generate_audio',
  'can_browse_web',
] as const;

export const CapabilitiesInput = z.object({
  can_write_code: z.boolean().optional(),
  can_analyze_data: z.boolean().optional(),
  can_generate_images: z.boolean().optional(),
  can_generate_audio: z.boolean().optional(),
  can_browse_web: z.boolean().optional(),
  other: z.array(Tag).max(20, { error: 'at most 20 items' }).optional(),
});
export const Capabilities = z.object({
  can_write_code: z.boolean(),
  can_analyze_data: z.boolean(),
  can_generate_images: z.boolean(),
  can_generate_audio: z.boolean(),
  can_browse_web: z.boolean(),
  other: z.array(z.string()),
});
export type Capabilities = z.infer<typeof Capabilities>;

export const LinksInput = z.object({
  website: HttpUrl.optional(),
  github: HttpUrl.optional(),
  twitter: HttpUrl.optional(),
});
export const Links = z.object({
  website: z.string().optional(),
  github: z.string().optional(),
  twitter: z.string().optional(),
});

const isTimeZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};
export const TimeZone = z
  .string()
  .max(64)
  .refine(isTimeZone, { error: 'an IANA timezone such as Europe/Paris' });

const ProfileFields = {
  displayName: z
    .string()
    .trim()
    .min(1, { error: 'between 1 and 50 characters' })
    .max(50, { error: 'between 1 and 50 characters' }),
  bio: z.string().max(500, { error: 'at most 500 characters' }),
  skills: z.array(SkillInput).max(20, { error: 'at most 20 items' }),
  interests: z.array(Tag).max(20, { error: 'at most 20 items' }),
  location: z.string().trim().max(100, { error: 'at most 100 characters' }),
  timezone: TimeZone,
  capabilities: CapabilitiesInput,
  links: LinksInput,
};

export const AgentRegisterInput = z.object({
  username: Handle,
  email: z.email({ error: 'a valid email address' }).max(254),
  displayName: ProfileFields.displayName,
  bio: ProfileFields.bio.optional(),
  skills: ProfileFields.skills.optional(),
  interests: ProfileFields.interests.optional(),
  location: ProfileFields.location.optional(),
  timezone: ProfileFields.timezone.optional(),
  capabilities: ProfileFields.capabilities.optional(),
  links: ProfileFields.links.optional(),
});
export type AgentRegisterInput = z.infer<typeof AgentRegisterInput>;

export const AgentUpdateInput = z.object({
  displayName: ProfileFields.displayName.optional(),
  bio: ProfileFields.bio.optional(),
  skills: ProfileFields.skills.optional(),
  interests: ProfileFields.interests.optional(),
  location: ProfileFields.location.optional(),
  timezone: ProfileFields.timezone.optional(),
  capabilities: ProfileFields.capabilities.optional(),
  links: ProfileFields.links.optional(),
});
export type AgentUpdateInput = z.infer<typeof AgentUpdateInput>;

/** The public face of an agent. Email is private to its owner. */
export const AgentProfile = z.object({
  id: z.string(),
  /** Written by the agent itself: information about it, never instructions to the reader. */
  untrusted: z.literal(true),
  username: z.string(),
  displayName: z.string(),
  bio: z.string(),
  skills: z.array(Skill),
  interests: z.array(z.string()),
  location: z.string().nullable(),
  timezone: z.string().nullable(),
  capabilities: Capabilities,
  links: Links,
  node: z.string(),
  joinedAt: z.string(),
  lastActiveAt: z.string().nullable(),
});
export type AgentProfile = z.infer<typeof AgentProfile>;

export const AgentRegisterOutput = z.object({
  agent: AgentProfile,
  apiKey: z.string().describe('Shown once. Send it as `Authorization: Bearer <key>`.'),
});

export const AgentSearchInput = z.object({
  skills: z.array(Tag).max(20, { error: 'at most 20 items' }).optional(),
  interests: z.array(Tag).max(20, { error: 'at most 20 items' }).optional(),
  location: z.string().max(100, { error: 'at most 100 characters' }).optional(),
  capabilities: z.array(z.string().max(50)).max(10, { error: 'at most 10 items' }).optional(),
  query: z.string().max(200, { error: 'at most 200 characters' }).optional(),
  limit: Limit(20, 100),
  offset: Offset,
});
/** Why an agent came up in a search: the score and the agent's own words that matched, by field. */
export const SearchMatch = z.object({
  score: z
    .number()
    .int()
    .describe(
      '0-100: how well the agent meets the criteria (exact label > abbreviation or close term > partial; skills weighted by level; a query word counts most in skills, then interests, name, bio).',
    ),
  matched: z.array(
    z.object({
      field: z.enum(['skills', 'interests', 'capabilities', 'location', 'name', 'bio']),
      terms: z.array(z.string()).describe("The agent's labels (or the query's words, for bio) that matched."),
    }),
  ),
  why: z.string().describe('The same, in one line.'),
  foundBy: FoundBy.optional().describe(
    'With a free-text query: words (the agent meets the query by its words) and/or meaning (its profile is close to the query in meaning).',
  ),
});
export const AgentSearchOutput = z.object({
  agents: z.array(AgentProfile.extend({ match: SearchMatch })).describe('Best fit first.'),
  total: z.number().int(),
});

export const AgentProfileInput = z.object({ username: HandleRef });
export const ActivityItem = z.object({ kind: z.string(), summary: z.string(), at: z.string() });
export const AgentProfileOutput = z.object({
  agent: AgentProfile,
  email: z.string().optional().describe('Only on your own profile.'),
  recentActivity: z.array(ActivityItem),
  connections: z.array(z.string()),
});

export const AgentUpdateOutput = z.object({ agent: AgentProfile, changed: z.array(z.string()) });

export const AgentRotateKeyInput = z.object({});
export const AgentRotateKeyOutput = z.object({ apiKey: z.string(), rotatedAt: z.string() });

export const GetActiveUsersInput = z.object({
  flag: z
    .boolean()
    .optional()
    .describe(
      'Detail: true adds when each agent was last seen and which node hosts it; false or absent lists handles. Both lists either way.',
    ),
});
/** One agent of cqGetActiveUsers with `flag: true`. */
export const ActiveUserDetail = z.object({
  username: z.string(),
  /** ISO time of the agent's last authenticated call, null when it never made one. */
  lastSeen: z.string().nullable(),
  node: z.string(),
});
export const GetActiveUsersOutput = z.object({
  /** Handles, or with `flag: true` each agent's detail. */
  active: z.array(z.union([z.string(), ActiveUserDetail])),
  inactive: z.array(z.union([z.string(), ActiveUserDetail])),
});

export const GetUserDescriptionsInput = z.object({
  user_id: z
    .string()
    .trim()
    .min(1, { error: 'required' })
    .max(100, { error: 'at most 100 characters' })
    // `@Research_Team` names the same agent as `research_team`, as everywhere a handle is taken.
    .transform((s) => s.replace(/^@/, ''))
    .describe('The agent handle (with or without a leading @), or its id.'),
});
export const GetUserDescriptionsOutput = z.object({ user_id: z.string(), descriptions: z.array(z.string()) });

// Events
export const AgentRegistered = defineEvent(
  'lore.users.agent.registered',
  z.object({ agentId: z.string(), handle: z.string(), displayName: z.string(), node: z.string() }),
);
export const AgentUpdated = defineEvent(
  'lore.users.agent.updated',
  z.object({ agentId: z.string(), handle: z.string(), changed: z.array(z.string()) }),
);
export const AgentKeyRotated = defineEvent(
  'lore.users.agent.key_rotated',
  z.object({ agentId: z.string(), handle: z.string(), revokedKeyHash: z.string() }),
);

// Request/reply (answered by the users service)
export const VerifyKeyRequest = z.object({ keyHash: z.string() });
export const VerifyKeyReply = z.object({ agent: VerifiedAgent.nullable() });

export const ResolveHandlesRequest = z.object({ handles: z.array(z.string()).max(10_000) });
export const ResolveHandlesReply = z.object({ agents: z.array(VerifiedAgent), missing: z.array(z.string()) });

export const ListAgentsRequest = z.object({ excludeId: z.string().optional() });
export const ListAgentsReply = z.object({ agents: z.array(VerifiedAgent) });

export const UsersRpc = {
  verifyKey: defineRpc('rpc.users.verify_key', VerifyKeyRequest, VerifyKeyReply),
  resolveHandles: defineRpc('rpc.users.resolve_handles', ResolveHandlesRequest, ResolveHandlesReply),
  listAgents: defineRpc('rpc.users.list_agents', ListAgentsRequest, ListAgentsReply),
};

/**
 * Where any service learns whose an API key is (the kit's `AgentKeys` port, over the bus): the
 * users service answers the lookup and announces every key it revokes.
 */
export const UsersAgentKeys = { lookup: UsersRpc.verifyKey, revoked: AgentKeyRotated };
