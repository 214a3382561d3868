-- Company self-service (issue 12): read-only keys, webhook secret rotation
-- and the event feed.

-- A key's scope: 'full' may call every route, 'read' only GET (and HEAD).
ALTER TABLE api_keys ADD COLUMN scope TEXT NOT NULL DEFAULT 'full' CHECK (scope IN ('full', 'read'));

-- After a rotation the previous secret keeps signing, beside the new one,
-- until previous_secret_expires_at.
ALTER TABLE webhooks ADD COLUMN previous_secret TEXT;
ALTER TABLE webhooks ADD COLUMN previous_secret_expires_at TIMESTAMP;

-- The feed reads a company's events by id. SQLite has one writer at a
-- time, so ids are taken in commit order.
CREATE INDEX webhook_events_feed_idx ON webhook_events (company_id, id);
