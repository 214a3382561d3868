-- SQLite's FTS5 index (issue 15); PostgreSQL serves substring search from
-- its pg_trgm indexes. This file keeps both dialects on one numbering.
SELECT 1;
