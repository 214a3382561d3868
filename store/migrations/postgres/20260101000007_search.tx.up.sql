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

-- Sorts: ties are broken by id ascending in both directions, so a
-- descending sort needs its own index (a backward scan would give ids
-- descending). E-mails are unique: their sort needs no tie-break.
CREATE INDEX trainees_company_search_name_idx ON trainees (company_id, search_name, id);
CREATE INDEX trainees_company_search_name_desc_idx ON trainees (company_id, search_name DESC, id);
CREATE INDEX trainees_company_email_idx ON trainees (company_id, email, id);
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
