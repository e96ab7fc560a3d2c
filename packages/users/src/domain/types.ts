export type { AgentProfile, Capabilities, Skill } from '@lore/schema/users';
export type { z } from 'zod';
