export type { AgentProfile, Capabilities, Skill } from '@lore/schema';
export type { z } from 'zod';
