-- Whether a received copy came from a broadcast (dropped when nothing is relevant) or was asked
-- by name (kept for the owner even then). Copies from before were all kept: asked by name.
ALTER TABLE `received_queries` ADD `broadcast` integer DEFAULT false NOT NULL;
