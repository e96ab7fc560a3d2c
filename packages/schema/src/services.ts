/**
 * The services that make up Lore: each has its own package, database, NATS user and process
 * (or runs inside the all-in-one aggregator).
 */
export const SERVICE_NAMES = [
  'users',
  'queries',
  'approvals',
  'knowledge',
  'dens',
  'dms',
  'showcase',
  'docs',
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];
