// Package webhooks is the webhooks page (w): the company's webhooks and
// each one's recent deliveries; t sends a test event, r redelivers an
// event.
package webhooks
