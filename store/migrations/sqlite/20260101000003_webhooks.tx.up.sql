-- Outbound webhooks (contract section 7): endpoints, the transactional
-- outbox of events, one delivery per event and subscribed endpoint, and
-- every attempt of a delivery.

-- events is the comma-separated list of subscribed event types. The secret
-- is kept as is: it is needed to sign every delivery.
CREATE TABLE webhooks (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id INTEGER NOT NULL REFERENCES companies (id),
    url        TEXT NOT NULL,
    events     TEXT NOT NULL,
    secret     TEXT NOT NULL,
    enabled    BOOLEAN NOT NULL DEFAULT TRUE,
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE INDEX webhooks_company_idx ON webhooks (company_id, id);

-- One row per committed trainee change, written in the change's own
-- transaction. payload is the exact body sent (so retries send the same
-- bytes); public_id is the webhook-id header.
CREATE TABLE webhook_events (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    public_id  TEXT NOT NULL,
    company_id INTEGER NOT NULL REFERENCES companies (id),
    trainee_id INTEGER NOT NULL,
    type       TEXT NOT NULL,
    payload    TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT webhook_events_public_id_key UNIQUE (public_id)
);

CREATE INDEX webhook_events_created_idx ON webhook_events (created_at);

-- A delivery is pending until an attempt succeeds or the last one fails.
-- A dispatcher leases it (locked_until, lease) while it sends; a lease that
-- expires (the dispatcher died) makes it due again.
CREATE TABLE webhook_deliveries (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id        INTEGER NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    webhook_id      INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMP NOT NULL,
    locked_until    TIMESTAMP,
    lease           TEXT,
    created_at      TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at      TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, id);
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);

-- response holds at most the first KiB of the receiver's body.
CREATE TABLE webhook_attempts (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id INTEGER NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt     INTEGER NOT NULL,
    started_at  TIMESTAMP NOT NULL,
    status_code INTEGER,
    latency_us  INTEGER NOT NULL,
    error       TEXT,
    response    TEXT
);

CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, attempt);
