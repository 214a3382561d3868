-- Who made the change an event records (issue 28, the feed's "who"):
-- actor_type is 'key' (a request with the API key actor_id), 'automation'
-- (the automation actor_id's action) or 'system' (the server itself:
-- the evaluator, an endpoint it disabled, the operator's commands; no
-- actor_id). Both are NULL on the events written before this migration.
-- No foreign key: a key or an automation deleted since keeps its events
-- and their actor's id; the feed reads the name when it reads the event.
-- A delivery's body (payload) is unchanged: the actor is the feed's.
ALTER TABLE webhook_events ADD COLUMN actor_type TEXT;
ALTER TABLE webhook_events ADD COLUMN actor_id BIGINT;
