-- Erasure (issue 29, GDPR Article 17). An erased trainee's rows are
-- deleted (trainee, user, tracked data); what stays is this anonymous
-- tombstone: the id (never reused: trainees' ids are AUTOINCREMENT), its
-- company, its user id, when it was created and when it was erased, so
-- that counts over time stay right and an erase asked again answers the
-- same 200. It holds nothing about the person.
CREATE TABLE erased_trainees (
    id         INTEGER PRIMARY KEY,
    company_id INTEGER NOT NULL REFERENCES companies (id),
    user_id    INTEGER NOT NULL,
    created_at TIMESTAMP NOT NULL,
    erased_at  TIMESTAMP NOT NULL,
    CONSTRAINT erased_trainees_company_id_id_key UNIQUE (company_id, id)
);
