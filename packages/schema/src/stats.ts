import { z } from 'zod';
import { defineRpc } from './rpc.js';

/**
 * Every service answers `rpc.<service>.stats` with its own figures (the users service gathers
 * them for platform_stats): the subject is named after the service that publishes it.
 */
export const StatsRequest = z.object({ since: z.string().describe('ISO start of "today"') });
export const StatsReply = z.object({ service: z.string(), figures: z.record(z.string(), z.unknown()) });

export const statsRpc = (service: string) => defineRpc(`rpc.${service}.stats`, StatsRequest, StatsReply);
