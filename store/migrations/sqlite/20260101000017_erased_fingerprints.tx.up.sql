-- Erased people stay erased (issue 38). An erase keeps a keyed hash of
-- the erased trainee's normalised e-mail address and phone number, so
-- that a create asked to (Traineed-Refuse-Erased) or a bulk import's plan
-- (POST /trainees/erased-check) can tell the person was erased. The hash
-- is HMAC-SHA256 under the company's own random secret (erasure_secrets,
-- 32 bytes, made at the company's first erase): neither the address nor
-- the number is stored, and the same address erased in two companies
-- gives two unrelated hashes. Expand-only: two new tables.
CREATE TABLE erasure_secrets (
    company_id INTEGER PRIMARY KEY REFERENCES companies (id),
    secret     BLOB NOT NULL,
    created_at TIMESTAMP NOT NULL
);

CREATE TABLE erased_fingerprints (
    company_id  INTEGER NOT NULL REFERENCES companies (id),
    kind        TEXT NOT NULL CHECK (kind IN ('email', 'phone')),
    fingerprint TEXT NOT NULL,
    erased_at   TIMESTAMP NOT NULL,
    PRIMARY KEY (company_id, kind, fingerprint)
);
