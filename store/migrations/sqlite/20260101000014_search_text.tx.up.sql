-- PostgreSQL's narrow copy of the searched columns for the count of a
-- search with q (trainee_search); SQLite counts from its FTS5 index
-- (migration 000010). This file keeps both dialects on one numbering.
SELECT 1;
