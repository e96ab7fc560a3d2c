import { z } from 'zod';

/** The agent an API key belongs to: who a tool call is made by, on every service. */
export const VerifiedAgent = z.object({ id: z.string(), handle: z.string(), node: z.string() });
export type VerifiedAgent = z.infer<typeof VerifiedAgent>;
