-- Idempotency keys (issue 16): the first answer to a POST with an
-- Idempotency-Key, per company and key, kept 24 hours. It is written in
-- the same transaction as the change it answers.
CREATE TABLE idempotency_keys (
    company_id   BIGINT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    key          TEXT NOT NULL,
    fingerprint  TEXT NOT NULL, -- hex SHA-256 of method, path and body
    status       INTEGER NOT NULL,
    content_type TEXT NOT NULL,
    body         TEXT NOT NULL,
    created_at   TIMESTAMP NOT NULL,
    PRIMARY KEY (company_id, key)
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (company_id, created_at);
