-- Search at index speed (issue 27): the FTS5 trigram index of migration
-- 000008 moves from users to trainees. Keyed by trainees.id (the FTS
-- rowid), a candidate is the trainee itself: the count and the page read
-- the trainee by its primary key, one B-tree descent, where users_fts
-- needed the trainees (user_id) index and then the row; and the
-- candidates come in id order, so a page sorted by id stops after its
-- rows. It indexes the copies of the user's searched columns that
-- trainees carry (migration 000007), the same text as before:
--
-- * case_sensitive 1 over lower(): lower() folds ASCII only, exactly the
--   folding of SQLite's LIKE; search_name and q are lower-cased in Go.
-- * Two char(1) after the name and the e-mail: every character of the
--   text then starts a trigram, so a query of one or two characters can be
--   served from the trigrams that begin with it (store/search.go qMatch).
-- * contentless (content=''): the index keeps no copy of the text;
--   contentless_delete=1 lets the triggers delete a trainee's entry.
DROP TRIGGER users_fts_insert;
DROP TRIGGER users_fts_update;
DROP TRIGGER users_fts_delete;
DROP TABLE users_fts_terms;
DROP TABLE users_fts;

CREATE VIRTUAL TABLE trainees_fts USING fts5 (
    search_name, email, phone,
    content = '', contentless_delete = 1,
    tokenize = 'trigram case_sensitive 1'
);

-- The terms of the index, for the trigrams that begin with a short query.
CREATE VIRTUAL TABLE trainees_fts_terms USING fts5vocab (trainees_fts, 'instance');

INSERT INTO trainees_fts (rowid, search_name, email, phone)
SELECT id, lower(search_name) || char(1, 1), lower(email) || char(1, 1), phone FROM trainees;

CREATE TRIGGER trainees_fts_insert AFTER INSERT ON trainees BEGIN
    INSERT INTO trainees_fts (rowid, search_name, email, phone)
    VALUES (new.id, lower(new.search_name) || char(1, 1), lower(new.email) || char(1, 1), new.phone);
END;

CREATE TRIGGER trainees_fts_update AFTER UPDATE OF id, search_name, email, phone ON trainees BEGIN
    DELETE FROM trainees_fts WHERE rowid = old.id;
    INSERT INTO trainees_fts (rowid, search_name, email, phone)
    VALUES (new.id, lower(new.search_name) || char(1, 1), lower(new.email) || char(1, 1), new.phone);
END;

CREATE TRIGGER trainees_fts_delete AFTER DELETE ON trainees BEGIN
    DELETE FROM trainees_fts WHERE rowid = old.id;
END;

-- A search's count reads, for each candidate of the index, the trainee's
-- company and status from this index instead of the row: a narrow index
-- stays in the page cache, where the rows of a big company do not
-- (store/search.go ftsMatchCount, which names it with INDEXED BY). It
-- begins with id so that the planner never takes it for a walk of a
-- company's trainees, which the indexes of each sort serve.
CREATE INDEX trainees_id_status_idx ON trainees (id, company_id, enabled, expiration_date);
