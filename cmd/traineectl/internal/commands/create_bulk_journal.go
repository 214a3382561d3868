package commands

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/bulkimport"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// The bulk import's journal: whose it is (server and company) and the
// key that tells.

// startJournal records the run in the journal, refusing one that belongs
// to an import into another server or company (journalFits).
func (o *BulkOptions) startJournal(ctx context.Context, f *cmdutil.Factory, j *bulkimport.Journal, journalPath string) error {
	owner, err := o.journalFits(ctx, f, j, journalPath)
	if err != nil {
		return err
	}
	input := o.File
	if abs, err := filepath.Abs(o.File); err == nil && o.File != "-" {
		input = abs
	}
	return j.Run(owner.base, owner.company, input)
}

// importFor is whom an import's rows go to: the server, and the company
// of the API key in use. A journal records both; its rows' outcomes
// ("already done") hold for them only.
type importFor struct {
	base    string
	company int64
}

// journalFits refuses a journal of an import into another server, then
// (GET /keys/current: a read, so a dry run sends no change) one into
// another company, a key of another company on the same server: its
// outcomes are not this import's, and taking them would report rows
// "already done" that were never created here. A journal from before runs
// recorded the company is checked for its server only. A journal that is
// not new cannot be used unless the key's company is known (the read's
// error is the command's); for a new one the read is quiet and its failure
// leaves the company unrecorded (the import then meets the same server).
// It answers whom the import is for.
func (o *BulkOptions) journalFits(ctx context.Context, f *cmdutil.Factory, j *bulkimport.Journal, journalPath string) (importFor, error) {
	s, err := f.Settings()
	if err != nil {
		return importFor{}, err
	}
	w := importFor{base: strings.TrimRight(s.BaseURL, "/")}
	if prev := j.BaseURL(); prev != "" && prev != w.base {
		return w, cmdutil.Usagef("the journal %s belongs to an import into %s, not %s: give another --journal", journalPath, prev, w.base)
	}
	k, err := o.currentKey(ctx, f, !j.Started())
	switch {
	case err != nil && j.Started():
		return w, err
	case err != nil:
		return w, nil
	}
	w.company = k.CompanyID
	if prev := j.CompanyID(); prev != 0 && prev != w.company {
		return w, cmdutil.Usagef("the journal %s belongs to an import into company %d at %s, not into company %d (%s), the API key's: give another --journal",
			journalPath, prev, w.base, w.company, api.EscapeText(k.CompanyName))
	}
	return w, nil
}

// checkJournalOwner is a dry run's check of the journal its run would use:
// the run's verdict (journalFits), asked only of a journal that is not new.
func (o *BulkOptions) checkJournalOwner(ctx context.Context, f *cmdutil.Factory, j *bulkimport.Journal, journalPath string) error {
	if j == nil || !j.Started() {
		return nil
	}
	_, err := o.journalFits(ctx, f, j, journalPath)
	return err
}

// currentKey is GET /keys/current, read once for the run (the journal's
// company and the phone region both need it): quiet (no retries, no
// trace) when its failure is not the command's.
func (o *BulkOptions) currentKey(ctx context.Context, f *cmdutil.Factory, quiet bool) (*api.CurrentKey, error) {
	if o.key != nil {
		return o.key, nil
	}
	open := f.Client
	if quiet {
		open = f.CompletionClient
	}
	c, err := open()
	if err != nil {
		return nil, err
	}
	if o.key, err = c.CurrentKey(ctx); err != nil {
		o.key = nil
	}
	return o.key, err
}
