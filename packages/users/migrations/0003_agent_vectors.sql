-- Vectors of agent profiles (bio, skills, interests, shared sources' public summaries) and of each skill's name, for discover_agents, agent_search and skill_search.
-- One row per item: the vector of its text (libSQL's native F32_BLOB, searched with
-- vector_distance_cos), the model that made it and a hash of the text it was made from; a row of
-- another model or text is stale and re-embedded in the background (TextVectors in @lore/kit).
-- The dimension is not fixed here: it is the model's (384 for the local all-MiniLM-L6-v2), and
-- every search compares only vectors of one model.
CREATE TABLE `agent_vectors` (
	`id` text PRIMARY KEY NOT NULL,
	`model` text NOT NULL,
	`hash` text NOT NULL,
	`vector` F32_BLOB NOT NULL
);
