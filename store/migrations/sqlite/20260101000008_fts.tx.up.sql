-- Substring search on SQLite (issue 15): an FTS5 trigram index over the
-- searched text of every user, keyed by users.id (the FTS rowid). It is a
-- prefilter only: a search keeps its LIKE on the real columns, which
-- rechecks every candidate, so SQLite and PostgreSQL answer the same.
--
-- * case_sensitive 1 over lower(): lower() folds ASCII only, exactly the
--   folding of SQLite's LIKE; search_name and q are lower-cased in Go, so
--   the index never folds a character that LIKE would not.
-- * Two char(1) after the name and the e-mail: every character of the
--   text then starts a trigram, so a query of one or two characters can be
--   served from the trigrams that begin with it (store/search.go qMatch).
-- * contentless (content=''): the index keeps no copy of the text;
--   contentless_delete=1 lets the triggers delete a user's entry.
CREATE VIRTUAL TABLE users_fts USING fts5 (
    search_name, email, phone,
    content = '', contentless_delete = 1,
    tokenize = 'trigram case_sensitive 1'
);

-- The terms of the index, for the trigrams that begin with a short query.
CREATE VIRTUAL TABLE users_fts_terms USING fts5vocab (users_fts, 'instance');

INSERT INTO users_fts (rowid, search_name, email, phone)
SELECT id, lower(search_name) || char(1, 1), lower(email) || char(1, 1), phone FROM users;

CREATE TRIGGER users_fts_insert AFTER INSERT ON users BEGIN
    INSERT INTO users_fts (rowid, search_name, email, phone)
    VALUES (new.id, lower(new.search_name) || char(1, 1), lower(new.email) || char(1, 1), new.phone);
END;

CREATE TRIGGER users_fts_update AFTER UPDATE OF id, search_name, email, phone ON users BEGIN
    DELETE FROM users_fts WHERE rowid = old.id;
    INSERT INTO users_fts (rowid, search_name, email, phone)
    VALUES (new.id, lower(new.search_name) || char(1, 1), lower(new.email) || char(1, 1), new.phone);
END;

CREATE TRIGGER users_fts_delete AFTER DELETE ON users BEGIN
    DELETE FROM users_fts WHERE rowid = old.id;
END;
