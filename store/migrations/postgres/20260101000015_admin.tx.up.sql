-- Company administration over the API (issue 34): an admin scope, keys
-- bound to a trainer (and limited to that trainer's trainees), key expiry,
-- rotation with an overlap, revocation that keeps the row, who made a key;
-- trainers that can be deactivated.
--
-- Expand only: the previous release keeps serving on this schema. It reads
-- an admin key as a full one (its routes do not exist there), refuses a
-- revoked key (revocation also sets disabled), and, during a rolling
-- upgrade, does not yet refuse an expired key nor accept a rotated key's
-- previous secret: both take effect once every instance runs this release.

ALTER TABLE api_keys DROP CONSTRAINT api_keys_scope_check;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_scope_check CHECK (scope IN ('admin', 'full', 'read'));

-- The trainer the key acts as (NULL: the company's key), in the key's
-- company (the composite foreign key, as trainees have it).
ALTER TABLE api_keys ADD COLUMN trainer_id BIGINT;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_trainer_fkey FOREIGN KEY (company_id, trainer_id) REFERENCES trainers (company_id, id);
ALTER TABLE api_keys ADD COLUMN own_trainees_only BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE api_keys ADD COLUMN expires_at TIMESTAMPTZ;
-- A revoked key keeps its row (disabled, for good): the feed still names
-- the key that made a change.
ALTER TABLE api_keys ADD COLUMN revoked_at TIMESTAMPTZ;
-- Who made the key: 'key' (created_by_id) or 'system' (the operator).
ALTER TABLE api_keys ADD COLUMN created_by_type TEXT;
ALTER TABLE api_keys ADD COLUMN created_by_id BIGINT;
-- After a rotation the previous secret's hash works until
-- previous_expires_at; it is looked up only when key_hash finds no key.
ALTER TABLE api_keys ADD COLUMN previous_key_hash BYTEA;
ALTER TABLE api_keys ADD COLUMN previous_expires_at TIMESTAMPTZ;
CREATE UNIQUE INDEX api_keys_previous_hash_key ON api_keys (previous_key_hash);

-- A deactivated trainer takes no trainees and is not the default trainer.
ALTER TABLE trainers ADD COLUMN active BOOLEAN NOT NULL DEFAULT TRUE;
