-- Automations (issue 11): a company's rules, each owning (for WEBHOOK
-- actions) a hidden row of webhooks that the outbox delivers through, and
-- the runs: exactly one per occurrence, held by a unique constraint.

CREATE TABLE automations (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id   INTEGER NOT NULL REFERENCES companies (id),
    name         TEXT NOT NULL,
    enabled      BOOLEAN NOT NULL DEFAULT TRUE,
    trigger_type TEXT NOT NULL,
    trigger_days INTEGER,
    trainer_id   INTEGER,
    status       TEXT,
    action_type  TEXT NOT NULL,
    url          TEXT,
    created_at   TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at   TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE INDEX automations_company_idx ON automations (company_id, id);
CREATE INDEX automations_trigger_idx ON automations (company_id, trigger_type) WHERE enabled;

-- The endpoint of a WEBHOOK automation: not listed with the company's
-- webhooks, subscribed to no event type, deleted with its automation.
ALTER TABLE webhooks ADD COLUMN automation_id INTEGER REFERENCES automations (id) ON DELETE CASCADE;
CREATE UNIQUE INDEX webhooks_automation_idx ON webhooks (automation_id);

-- One row per occurrence: (automation, trainee, what happened). Runs
-- outlive their automation (no foreign key) for 30 days after its
-- deletion (automation_deleted_at). delivery_id is the outbox delivery of
-- a WEBHOOK run.
CREATE TABLE automation_runs (
    id                    INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id            INTEGER NOT NULL REFERENCES companies (id),
    automation_id         INTEGER NOT NULL,
    trainee_id            INTEGER NOT NULL,
    occurrence            TEXT NOT NULL,
    fired_at              TIMESTAMP NOT NULL,
    outcome               TEXT NOT NULL,
    error                 TEXT,
    delivery_id           INTEGER,
    automation_deleted_at TIMESTAMP,
    CONSTRAINT automation_runs_occurrence_key UNIQUE (automation_id, trainee_id, occurrence)
);

CREATE INDEX automation_runs_automation_idx ON automation_runs (automation_id, id);
CREATE INDEX automation_runs_deleted_idx ON automation_runs (automation_deleted_at) WHERE automation_deleted_at IS NOT NULL;

-- The trainee.expired webhook event, once per trainee and expiration date.
CREATE TABLE trainee_expirations (
    company_id      INTEGER NOT NULL REFERENCES companies (id),
    trainee_id      INTEGER NOT NULL,
    expiration_date INTEGER NOT NULL,
    created_at      TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (trainee_id, expiration_date)
);

-- INACTIVE for trainees who never trained counts from their creation.
CREATE INDEX trainees_company_never_trained_idx ON trainees (company_id, created_at, id) WHERE last_trained IS NULL;
