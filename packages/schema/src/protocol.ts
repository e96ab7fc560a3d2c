/**
 * The MCP protocol revision whose stateless requests Lore answers on its fast paths (the direct
 * exchange, the aggregator's relay) and never opens a 2025-11-25 session for. The SDK knows it
 * (it classifies requests by it) but exports no name for it; this is the one name Lore uses.
 */
export const MODERN_PROTOCOL_REVISION = '2026-07-28';
