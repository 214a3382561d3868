-- The coach's cockpit (issue 28).
--
-- Optimistic concurrency: every write of a trainee's row bumps version
-- (the store sets it: an update, a delete or restore, an automation's
-- change, lastTrained moved by tracked data); GET /trainees/{id} and the
-- answers of PUT and DELETE carry it as the ETag, and If-Match is checked
-- against it under the row's lock.
ALTER TABLE trainees ADD COLUMN version INTEGER NOT NULL DEFAULT 1;

-- An idempotent PUT or DELETE answers with an ETag: a repeat gets it again.
ALTER TABLE idempotency_keys ADD COLUMN etag TEXT NOT NULL DEFAULT '';

-- GET /trainees/stats counts a company's trainees in one pass: this index
-- covers every column its conditions read (a covering index scan).
CREATE INDEX trainees_company_stats_idx ON trainees (company_id, enabled, expiration_date, last_trained, created_at);
