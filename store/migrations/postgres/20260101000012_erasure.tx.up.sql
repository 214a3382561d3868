-- Erasure (issue 29, GDPR Article 17). An erased trainee's rows are
-- deleted (trainee, user, tracked data); what stays is this anonymous
-- tombstone: the id (never reused: trainees' ids come from an identity
-- sequence), its company, its user id, when it was created and when it was
-- erased, so that counts over time stay right and an erase asked again
-- answers the same 200. It holds nothing about the person.
CREATE TABLE erased_trainees (
    id         BIGINT PRIMARY KEY,
    company_id BIGINT NOT NULL REFERENCES companies (id),
    user_id    BIGINT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    erased_at  TIMESTAMPTZ NOT NULL,
    CONSTRAINT erased_trainees_company_id_id_key UNIQUE (company_id, id)
);
