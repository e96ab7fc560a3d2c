/**
 * The names and lifetimes of what Lore keeps on JetStream, without the NATS client: modules that
 * a process without NATS loads (rate limits, the console's sessions) read them from here.
 */
/** The event stream's name and subjects unless a deployment or a test names its own. */
export const EVENTS_STREAM = 'LORE_EVENTS';
export const EVENTS_PREFIX = 'lore';
/** How long the stream remembers an event id, so a re-published event is stored once. */
export const DUPLICATE_WINDOW_MS = 120_000;

/** The network directory's buckets (written by the users service alone). */
export const DIRECTORY_BUCKETS = ['lore_handles', 'lore_nodes', 'lore_agents'] as const;
/** Rate-limit counters every service shares, and how long a window's counter lives. */
export const RATE_LIMIT_BUCKET = 'lore-rate-limits';
export const RATE_LIMIT_TTL_MS = 3 * 60_000;
/** The console's sessions, each expiring 12 hours after it was last written. */
export const CONSOLE_SESSIONS_BUCKET = 'lore-console-sessions';
export const CONSOLE_SESSION_MAX_AGE_MS = 12 * 60 * 60 * 1000;
