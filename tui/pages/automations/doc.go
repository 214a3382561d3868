// Package automations is the automations page (a from the list): the
// company's automations with their last run and run count; enter opens an
// automation's runs (the runs page, through common.Router).
package automations
