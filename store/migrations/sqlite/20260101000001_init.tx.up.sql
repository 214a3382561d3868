-- Calendar dates are integers YYYYMMDD (api.Date.Int); instants are TIMESTAMP
-- text written by bun in UTC.
CREATE TABLE companies (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    name       TEXT NOT NULL,
    time_zone  TEXT NOT NULL DEFAULT 'UTC',
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- Users are shared by trainers and trainees: user ids and trainee ids differ.
-- search_name is strings.ToLower(name), computed in Go for both databases.
CREATE TABLE users (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    email         TEXT NOT NULL,
    phone         TEXT,
    name          TEXT NOT NULL,
    search_name   TEXT NOT NULL,
    password_hash TEXT NOT NULL DEFAULT '',
    created_at    TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT users_email_key UNIQUE (email),
    CONSTRAINT users_phone_key UNIQUE (phone)
);

CREATE TABLE trainers (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id INTEGER NOT NULL REFERENCES companies (id),
    user_id    INTEGER NOT NULL REFERENCES users (id),
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT trainers_user_id_key UNIQUE (user_id),
    CONSTRAINT trainers_company_id_id_key UNIQUE (company_id, id)
);

-- A trainee's trainer belongs to the trainee's company: the composite
-- foreign key enforces it (a NULL trainer_id satisfies it).
CREATE TABLE trainees (
    id                    INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id            INTEGER NOT NULL REFERENCES companies (id),
    user_id               INTEGER NOT NULL REFERENCES users (id),
    trainer_id            INTEGER,
    date_of_birth         INTEGER,
    expiration_date       INTEGER,
    last_trained          INTEGER,
    enabled               BOOLEAN NOT NULL DEFAULT TRUE,
    created_by_type       TEXT NOT NULL DEFAULT 'ADMIN' CHECK (created_by_type IN ('ADMIN', 'TRAINER', 'SELF')),
    force_password_change BOOLEAN NOT NULL DEFAULT FALSE,
    weight_unit           TEXT NOT NULL DEFAULT 'KG' CHECK (weight_unit IN ('KG', 'LB')),
    created_at            TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at            TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    deleted_at            TIMESTAMP,
    CONSTRAINT trainees_user_id_key UNIQUE (user_id),
    CONSTRAINT trainees_company_id_id_key UNIQUE (company_id, id),
    CONSTRAINT trainees_trainer_fkey FOREIGN KEY (company_id, trainer_id) REFERENCES trainers (company_id, id)
);

CREATE INDEX trainees_company_expiration_idx ON trainees (company_id, expiration_date, id);
CREATE INDEX trainees_company_last_trained_idx ON trainees (company_id, last_trained, id);
CREATE INDEX trainees_trainer_idx ON trainees (trainer_id);

-- Only the SHA-256 of a key is stored, with its first 8 characters.
CREATE TABLE api_keys (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id   INTEGER NOT NULL REFERENCES companies (id),
    name         TEXT NOT NULL,
    key_hash     BLOB NOT NULL,
    prefix       TEXT NOT NULL,
    created_at   TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    last_used_at TIMESTAMP,
    disabled     BOOLEAN NOT NULL DEFAULT FALSE,
    CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash)
);

CREATE INDEX api_keys_company_idx ON api_keys (company_id, id);
