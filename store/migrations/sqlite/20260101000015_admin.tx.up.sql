-- Company administration over the API (issue 34): an admin scope, keys
-- bound to a trainer (and limited to that trainer's trainees), key expiry,
-- rotation with an overlap, revocation that keeps the row, who made a key;
-- trainers that can be deactivated. See the PostgreSQL migration for what
-- the previous release does on this schema.
--
-- SQLite cannot change a CHECK constraint in place: api_keys is made anew
-- with the admin scope and the new columns, and its rows copied (no table
-- refers to api_keys).
CREATE TABLE api_keys_new (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id          INTEGER NOT NULL REFERENCES companies (id),
    name                TEXT NOT NULL,
    key_hash            BLOB NOT NULL,
    prefix              TEXT NOT NULL,
    created_at          TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    last_used_at        TIMESTAMP,
    disabled            BOOLEAN NOT NULL DEFAULT FALSE,
    scope               TEXT NOT NULL DEFAULT 'full' CHECK (scope IN ('admin', 'full', 'read')),
    trainer_id          INTEGER,
    own_trainees_only   BOOLEAN NOT NULL DEFAULT FALSE,
    expires_at          TIMESTAMP,
    revoked_at          TIMESTAMP,
    created_by_type     TEXT,
    created_by_id       INTEGER,
    CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash),
    CONSTRAINT api_keys_trainer_fkey FOREIGN KEY (company_id, trainer_id) REFERENCES trainers (company_id, id),
    CONSTRAINT api_keys_own_trainees_check CHECK (NOT own_trainees_only OR (trainer_id IS NOT NULL AND scope <> 'admin'))
);
INSERT INTO api_keys_new (id, company_id, name, key_hash, prefix, created_at, last_used_at, disabled, scope)
    SELECT id, company_id, name, key_hash, prefix, created_at, last_used_at, disabled, scope FROM api_keys;
DROP TABLE api_keys;
ALTER TABLE api_keys_new RENAME TO api_keys;
CREATE INDEX api_keys_company_idx ON api_keys (company_id, id);

CREATE TABLE api_key_secrets (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    key_id     INTEGER NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    key_hash   BLOB NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    CONSTRAINT api_key_secrets_key_hash_key UNIQUE (key_hash)
);
CREATE INDEX api_key_secrets_key_idx ON api_key_secrets (key_id);

ALTER TABLE trainers ADD COLUMN active BOOLEAN NOT NULL DEFAULT TRUE;
