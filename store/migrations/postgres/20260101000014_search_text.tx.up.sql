-- The count of a search with q (issue 27): a narrow copy of the columns a
-- search with q and a status filters on, kept by triggers in the
-- transaction that writes trainees, with one trigram index over the name
-- and the e-mail together. The count of a q that many trainees match
-- rechecks up to 10,001 rows: here they are about 90 bytes instead of
-- about 170, and one GIN scan replaces a BitmapOr of two
-- (docs/performance.md, "Search at index speed").
CREATE TABLE trainee_search (
    id              BIGINT PRIMARY KEY,
    company_id      BIGINT NOT NULL,
    enabled         BOOLEAN NOT NULL,
    expiration_date INTEGER,
    search_name     TEXT COLLATE "C" NOT NULL,
    email           TEXT COLLATE "C" NOT NULL
);

INSERT INTO trainee_search (id, company_id, enabled, expiration_date, search_name, email)
SELECT id, company_id, enabled, expiration_date, search_name, email FROM trainees ORDER BY id;

-- chr(1) between the two: a q without it matches the joined text exactly
-- when it matches the name or the e-mail (the store still checks both).
CREATE INDEX trainee_search_text_idx ON trainee_search
    USING gin ((search_name || chr(1) || email) gin_trgm_ops);

CREATE FUNCTION traineed_trainee_search_sync() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO trainee_search (id, company_id, enabled, expiration_date, search_name, email)
        VALUES (NEW.id, NEW.company_id, NEW.enabled, NEW.expiration_date, NEW.search_name, NEW.email);
    ELSIF TG_OP = 'UPDATE' THEN
        UPDATE trainee_search SET company_id = NEW.company_id, enabled = NEW.enabled,
            expiration_date = NEW.expiration_date, search_name = NEW.search_name, email = NEW.email
        WHERE id = NEW.id;
    ELSE
        DELETE FROM trainee_search WHERE id = OLD.id;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER trainee_search_insert AFTER INSERT ON trainees
    FOR EACH ROW EXECUTE FUNCTION traineed_trainee_search_sync();
CREATE TRIGGER trainee_search_update AFTER UPDATE ON trainees
    FOR EACH ROW WHEN ((OLD.company_id, OLD.enabled, OLD.expiration_date, OLD.search_name, OLD.email)
        IS DISTINCT FROM (NEW.company_id, NEW.enabled, NEW.expiration_date, NEW.search_name, NEW.email))
    EXECUTE FUNCTION traineed_trainee_search_sync();
CREATE TRIGGER trainee_search_delete AFTER DELETE ON trainees
    FOR EACH ROW EXECUTE FUNCTION traineed_trainee_search_sync();

ANALYZE trainee_search;
