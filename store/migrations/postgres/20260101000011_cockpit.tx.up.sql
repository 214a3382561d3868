-- The coach's cockpit (issue 28).
--
-- Optimistic concurrency: every write of a trainee's row bumps version
-- (the store sets it: an update, a delete or restore, an automation's
-- change, lastTrained moved by tracked data); GET /trainees/{id} and the
-- answers of PUT and DELETE carry it as the ETag, and If-Match is checked
-- against it under the row's lock. Adding a column with a constant
-- default rewrites no row.
ALTER TABLE trainees ADD COLUMN version BIGINT NOT NULL DEFAULT 1;

-- An idempotent PUT or DELETE answers with an ETag: a repeat gets it again.
ALTER TABLE idempotency_keys ADD COLUMN etag TEXT NOT NULL DEFAULT '';

-- GET /trainees/stats counts a company's trainees in one pass: this index
-- covers every column its conditions read, so the pass is an index-only
-- scan of the company's range (a million trainees: about 40 MB of index
-- rather than the whole heap). Its columns never change without one of
-- the existing indexes changing too, so it costs updates no HOT update.
CREATE INDEX trainees_company_stats_idx ON trainees (company_id)
    INCLUDE (enabled, expiration_date, last_trained, created_at);
