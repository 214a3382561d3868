-- Search reads trainees alone (issue 15): the user columns a search
-- matches or sorts by are copied onto trainees, kept equal to the user's
-- by the store in the transaction that writes either (store.insertTrainee,
-- store.writeUpdate), so one company's search can walk one index.
-- search_name is strings.ToLower(name), computed in Go as on users.
ALTER TABLE trainees ADD COLUMN search_name TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE trainees ADD COLUMN email TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE trainees ADD COLUMN phone TEXT COLLATE "C";

UPDATE trainees AS t SET search_name = u.search_name, email = u.email, phone = u.phone
FROM users AS u WHERE u.id = t.user_id;

ALTER TABLE trainees ALTER COLUMN search_name DROP DEFAULT;
ALTER TABLE trainees ALTER COLUMN email DROP DEFAULT;

-- Substring search (q): trigrams of the three columns.
CREATE INDEX trainees_search_name_trgm_idx ON trainees USING gin (search_name gin_trgm_ops);
CREATE INDEX trainees_email_trgm_idx ON trainees USING gin (email gin_trgm_ops);
CREATE INDEX trainees_phone_trgm_idx ON trainees USING gin (phone gin_trgm_ops);

-- A q of one or two characters has no trigram: the search then also asks
-- for it among the name's and the e-mail's characters and pairs of
-- characters, which this expression index serves. It is a necessary and
-- sufficient condition of the LIKE (kept beside it): a string of at most
-- two characters is a substring exactly when it is one of those.
CREATE FUNCTION traineed_short_grams(a TEXT, b TEXT) RETURNS TEXT[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN string_to_array(a, NULL) || string_to_array(b, NULL)
        || ARRAY(SELECT substr(a, i, 2) FROM generate_series(1, length(a) - 1) AS i)
        || ARRAY(SELECT substr(b, i, 2) FROM generate_series(1, length(b) - 1) AS i);
CREATE INDEX trainees_short_grams_idx ON trainees USING gin (traineed_short_grams(search_name, email));

-- Sorts: ties are broken by id ascending in both directions, so a
-- descending sort needs its own index (a backward scan would give ids
-- descending). E-mails are unique: their sort needs no tie-break.
-- The indexes of the id, name and e-mail sorts cover every column a
-- search filters on (status: enabled, expiration_date; q: search_name,
-- email, phone): the search picks a page's ids by an index-only scan, so
-- a q that matches one row in ten costs no heap fetch per row it skips,
-- and neither does the bounded count.
CREATE INDEX trainees_company_id_search_idx ON trainees (company_id, id)
    INCLUDE (enabled, expiration_date, search_name, email, phone);
CREATE INDEX trainees_company_search_name_idx ON trainees (company_id, search_name, id)
    INCLUDE (enabled, expiration_date, email, phone);
CREATE INDEX trainees_company_search_name_desc_idx ON trainees (company_id, search_name DESC, id)
    INCLUDE (enabled, expiration_date, email, phone);
CREATE INDEX trainees_company_email_idx ON trainees (company_id, email, id)
    INCLUDE (enabled, expiration_date, search_name, phone);
-- The nullable sorts read their non-null part, then their null part
-- (id ascending): trainees_company_expiration_idx and
-- trainees_company_last_trained_idx serve the ascending part and the null
-- part, these the descending part.
CREATE INDEX trainees_company_expiration_desc_idx ON trainees (company_id, expiration_date DESC, id);
CREATE INDEX trainees_company_last_trained_desc_idx ON trainees (company_id, last_trained DESC, id);

-- Nothing searches or sorts users any more.
DROP INDEX users_search_name_trgm_idx;
DROP INDEX users_email_trgm_idx;
DROP INDEX users_phone_trgm_idx;
DROP INDEX users_search_name_idx;
