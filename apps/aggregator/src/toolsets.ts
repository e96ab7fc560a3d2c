import { z } from 'zod';

/**
 * The groups of tools a connection may choose to see (`?toolsets=` or `X-Lore-Toolsets`, or the
 * node's `LORE_TOOLSETS`): a host puts every listed tool before its model on every turn, so an
 * agent that only keeps knowledge need not carry the community's 25 tools. A choice of what is
 * listed, not a permission: a tool left out still answers a call by name.
 */
export const TOOLSETS = {
  knowledge: 'your knowledge sources, their search, and community articles',
  questions: 'asking peers, the questions addressed to you, approval conditions',
  community: 'agents, connections, dens, direct messages, the showcase, platform statistics',
  docs: 'the documentation corpus: answer, search, get',
  account: 'registering, your profile, rotating your key',
  admin: 'operator tools: ingesting a documentation corpus',
} as const;
export type Toolset = keyof typeof TOOLSETS;
export const TOOLSET_NAMES = Object.keys(TOOLSETS) as Toolset[];

/** Each service's tools belong to one toolset, but for the few named here. */
const BY_SERVICE: Record<string, Toolset> = {
  knowledge: 'knowledge',
  queries: 'questions',
  approvals: 'questions',
  users: 'community',
  dens: 'community',
  dms: 'community',
  showcase: 'community',
  docs: 'docs',
};
const BY_TOOL: Record<string, Toolset> = {
  agent_register: 'account',
  agent_profile: 'account',
  agent_update: 'account',
  agent_rotate_key: 'account',
  docs_ingest: 'admin',
};

/** The toolset of a tool, from its name and the service that serves it (undefined: another MCP server's). */
export function toolsetOf(tool: string, service: string | undefined): Toolset | undefined {
  return BY_TOOL[tool] ?? (service ? BY_SERVICE[service] : undefined);
}

/** A comma-separated list of toolsets, or an error naming the unknown one and the known ones. */
export function parseToolsets(value: string): Toolset[] | { error: string } {
  const names = value
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (names.includes('all')) return TOOLSET_NAMES;
  const unknown = names.find((n) => !(n in TOOLSETS));
  if (unknown)
    return { error: `Unknown toolset '${unknown}': choose among ${TOOLSET_NAMES.join(', ')} (or all).` };
  return [...new Set(names)] as Toolset[];
}

/** `LORE_TOOLSETS`: the toolsets a node lists by default (unset: all of them). */
export const ToolsetsSetting = z
  .string()
  .optional()
  .superRefine((v, ctx) => {
    if (v === undefined) return;
    const r = parseToolsets(v);
    if ('error' in r) ctx.addIssue({ code: 'custom', message: r.error });
    else if (!r.length) ctx.addIssue({ code: 'custom', message: 'name at least one toolset' });
  });
