package commands

import (
	"context"
	"fmt"
	"iter"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// Every list command (search, events list, webhooks deliveries,
// automations list, automations runs, keys list) pages the same way: one
// page without more, --limit N rows across pages, --all every row; the
// pages follow the server's cursors, and a line on stderr says when fewer
// rows were printed than the list has, or that there were none.

// listFlags are the flags every list command shares.
type listFlags struct {
	Limit int  // at most this many rows, across pages (0: one page)
	All   bool // every page
	Quiet bool // no note on stderr
	// LimitSet and PageSet: --limit and --page were given (RunE records
	// them: record).
	LimitSet, PageSet bool
	noun              string
	// what is what the list holds, for the note of an empty list ("No
	// expired keys found"); "": the noun's plural.
	what string
}

// register adds --limit, --all and -q to cmd, whose rows are nouns (noun
// is the singular).
func (l *listFlags) register(cmd *cobra.Command, noun string) {
	l.noun = noun
	fl := cmd.Flags()
	fl.BoolVar(&l.All, "all", false, "fetch every page")
	fl.IntVar(&l.Limit, "limit", 0, "fetch up to this many "+noun+"s, across pages")
	fl.BoolVarP(&l.Quiet, "quiet", "q", false, "leave out the note on stderr that more "+noun+"s follow than were printed")
	_ = cmd.RegisterFlagCompletionFunc("limit", cobra.NoFileCompletions)
}

// record records which of the flags were given; changed is the flag
// set's Changed (false for a flag the command does not have).
func (l *listFlags) record(changed func(name string) bool) {
	l.LimitSet, l.PageSet = changed("limit"), changed("page")
}

// check refuses the flags that cannot go together: --all with --limit,
// either with --page (where the command has it), and a --limit below 1.
func (l *listFlags) check() error {
	page := l.PageSet
	if l.All && page {
		return cmdutil.Usagef("--all and --page cannot be used together")
	}
	if l.LimitSet {
		switch {
		case l.All:
			return cmdutil.Usagef("--all and --limit cannot be used together")
		case page:
			return cmdutil.Usagef("--limit and --page cannot be used together: --limit counts from the first %s", l.noun)
		case l.Limit < 1:
			return cmdutil.Usagef("--limit must be at least 1 (--all fetches every %s)", l.noun)
		}
	}
	return nil
}

// walks reports whether the command follows the pages (--limit or --all).
func (l *listFlags) walks() bool { return l.All || l.Limit > 0 }

// note writes line on stderr, unless -q.
func (l *listFlags) note(f *cmdutil.Factory, line string) {
	if !l.Quiet {
		fmt.Fprintln(f.IOStreams.ErrOut, line)
	}
}

// pagingFlags are --page and --size, of the list commands that had them
// before cursors (automations runs and test, webhooks deliveries).
type pagingFlags struct {
	Page, Size int
	SizeSet    bool // --size was given (RunE records it: record)
}

func (p *pagingFlags) register(cmd *cobra.Command, noun string) {
	cmd.Flags().IntVar(&p.Page, "page", 0, "page number, from 0")
	cmd.Flags().IntVar(&p.Size, "size", 0, fmt.Sprintf("%ss per page, 1 to %d (default %d)", noun, api.MaxPageSize, api.DefaultPageSize))
}

// record records which of the flags were given; changed is the flag
// set's Changed.
func (p *pagingFlags) record(changed func(name string) bool) { p.SizeSet = changed("size") }

// check refuses a negative --page and a --size out of range.
func (p *pagingFlags) check() error {
	if p.Page < 0 {
		return cmdutil.Usagef("--page counts from 0")
	}
	if p.SizeSet && (p.Size < 1 || p.Size > api.MaxPageSize) {
		return cmdutil.Usagef("--size must be 1 to %d", api.MaxPageSize)
	}
	return nil
}

// pagedList is the flags of a list with both: --page and --size, and
// --limit, --all and -q.
type pagedList struct {
	pagingFlags
	listFlags
}

func (p *pagedList) register(cmd *cobra.Command, noun string) {
	p.pagingFlags.register(cmd, noun)
	p.listFlags.register(cmd, noun)
}

// record records which of the flags were given; changed is the flag
// set's Changed.
func (p *pagedList) record(changed func(name string) bool) {
	p.pagingFlags.record(changed)
	p.listFlags.record(changed)
}

// check is both checks, paging's first.
func (p *pagedList) check() error {
	if err := p.pagingFlags.check(); err != nil {
		return err
	}
	return p.listFlags.check()
}

// params are the paging the flags ask for (0: the server's default).
func (p *pagingFlags) params() client.ListParams {
	return client.ListParams{Page: p.Page, Limit: p.Size}
}

// emptyLine is the note of an empty list, on stderr in the table format
// (a terminal then shows no header): "No events found", "No expired keys
// found".
func (l *listFlags) emptyLine() string {
	what := l.what
	if what == "" {
		what = l.noun + "s"
	}
	return "No " + what + " found"
}

// moreLine is the note when fewer rows were printed than the list has:
// "Showing 20 of 144 trainees; use --limit N or --all for more" (of is
// what the list has: "144 trainees", "at least 10001 trainees", "more
// events"). limited is a print that --limit cut short.
func moreLine(shown int, of string, limited bool) string {
	hint := "use --limit N or --all for more"
	if limited {
		hint = "use a larger --limit or --all for more"
	}
	return fmt.Sprintf("Showing %d of %s; %s", shown, of, hint)
}

// listPrinter prints a list as its pages arrive: each page at once where
// the format streams (stream), else the whole list at the end (whole).
type listPrinter[T any] struct {
	stream *output.Stream[T] // nil: gather, then whole
	whole  func([]T) error
	all    []T
	n      int
}

func (p *listPrinter[T]) write(rows []T) error {
	p.n += len(rows)
	if p.stream == nil {
		p.all = append(p.all, rows...)
		return nil
	}
	return p.stream.Write(rows)
}

func (p *listPrinter[T]) close() error {
	if p.stream != nil {
		return p.stream.Close()
	}
	return p.whole(p.all)
}

// runList prints the list that list iterates, as rows say, from the page
// p names: that page alone without --limit and --all, else the pages until
// --limit rows or the last. When it stopped with more rows to read, it
// says so on stderr: "Showing 20 of 57 runs; ..." where the list counts
// its rows, "Showing 100 of more events; ..." where it does not.
func runList[T any](ctx context.Context, f *cmdutil.Factory, l *listFlags, list func(context.Context, client.ListParams, ...client.RequestOption) iter.Seq2[T, error], p client.ListParams, rows output.Rows[T]) error {
	table := f.OutputOptions().NeedsTable()
	pr := &listPrinter[T]{whole: func(ts []T) error {
		if len(ts) == 0 && table && f.IOStreams.StdoutTTY {
			return nil // a bare header tells a person nothing: the note below does
		}
		return f.Print(rows.View(ts))
	}}
	if l.All && p.Limit == 0 {
		p.Limit = api.MaxPageSize
	}
	p.Pages = 1
	if l.walks() {
		var err error
		if pr.stream, err = output.NewStream(f.IOStreams, f.OutputOptions(), rows); err != nil {
			return err
		}
		p.Pages, p.Max = 0, l.Limit
	}
	var resp client.Response
	if err := client.ByPage(list(ctx, p, client.WithResponse(&resp)), &resp, pr.write); err != nil {
		return err
	}
	if err := pr.close(); err != nil {
		return err
	}
	if pr.n == 0 && table {
		l.note(f, l.emptyLine())
	}
	if resp.More {
		of := "more " + l.noun + "s"
		if resp.Counted && resp.Page.TotalExact {
			of = output.Count(resp.Page.TotalElements, l.noun, l.noun+"s")
		}
		l.note(f, moreLine(pr.n, of, l.Limit > 0))
	}
	return nil
}
