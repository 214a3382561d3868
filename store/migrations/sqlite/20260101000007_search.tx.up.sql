-- Search reads trainees alone (issue 15): the user columns a search
-- matches or sorts by are copied onto trainees, kept equal to the user's
-- by the store in the transaction that writes either (store.insertTrainee,
-- store.writeUpdate). search_name is strings.ToLower(name), computed in Go.
ALTER TABLE trainees ADD COLUMN search_name TEXT NOT NULL DEFAULT '';
ALTER TABLE trainees ADD COLUMN email TEXT NOT NULL DEFAULT '';
ALTER TABLE trainees ADD COLUMN phone TEXT;

UPDATE trainees SET
    search_name = (SELECT u.search_name FROM users AS u WHERE u.id = trainees.user_id),
    email = (SELECT u.email FROM users AS u WHERE u.id = trainees.user_id),
    phone = (SELECT u.phone FROM users AS u WHERE u.id = trainees.user_id);

-- The name and e-mail sorts and their keyset bounds.
CREATE INDEX trainees_company_search_name_idx ON trainees (company_id, search_name, id);
CREATE INDEX trainees_company_email_idx ON trainees (company_id, email, id);
