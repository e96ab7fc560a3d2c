-- Chunk vectors are computed in the background after an ingest (no longer during it) and carry
-- the model that made them: a vector of another model is stale and re-embedded, and searches
-- compare only vectors of the configured model. Vectors written before this column existed
-- have no model and are re-embedded once.
ALTER TABLE `chunks` ADD `vector_model` text;
