-- A copy nothing was drafted for keeps the passages of the recipient's knowledge that came
-- closest (JSON: source, excerpt, score), shown to the recipient only. Copies from before have none.
ALTER TABLE `received_queries` ADD `closest` text;
