-- Outbound safety (issue 24): why an endpoint or an automation was
-- disabled by the server (a 410 Gone answer, or an address the outbound
-- policy refuses), shown until it is enabled again; and the leased
-- deliveries per endpoint, which the claim counts to send at most a few
-- at once to one endpoint.
ALTER TABLE webhooks ADD COLUMN disabled_reason TEXT;
ALTER TABLE automations ADD COLUMN disabled_reason TEXT;
CREATE INDEX webhook_deliveries_leased_idx ON webhook_deliveries (webhook_id) WHERE locked_until IS NOT NULL;
