package store

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/traineed/traineed/api"
)

// Ingest limits.
const (
	// IngestBatchLines is how many lines one transaction of Ingest covers.
	IngestBatchLines = 500
	// MaxIngestLine is the longest line Ingest accepts, newline included.
	// A longer line is rejected and skipped without being held in memory.
	MaxIngestLine = 64 << 10
)

// IngestLine is one line of an ingest as Ingest reports it.
type IngestLine struct {
	Line   int    // file line number, from 1
	Reason string // why it was rejected
}

// Ingest reads tracked data as JSON Lines from r and stores it in company
// companyID (see api.ParseTrackedRecord and IngestTracked). It streams: it
// holds one line and one batch of IngestBatchLines lines at a time, and
// commits each batch in its own transaction. reject is called for every
// rejected line, in line order, with its 1-based line number; blank lines
// are skipped. "Today", the latest date a record may carry, is the
// company's. A database error stops the ingest: the batches before it stay
// committed, the summary counts them, and the error is returned.
func (s *Store) Ingest(ctx context.Context, companyID int64, r io.Reader, reject func(IngestLine)) (api.IngestSummary, error) {
	var zone string
	err := s.db.NewSelect().Model((*companyRow)(nil)).Column("c.time_zone").Where("c.id = ?", companyID).Scan(ctx, &zone)
	if err != nil {
		return api.IngestSummary{}, fmt.Errorf("company %d: %w", companyID, dbError(err))
	}
	loc, err := s.location(zone)
	if err != nil {
		return api.IngestSummary{}, err
	}
	today := api.Today(s.now(), loc)
	b := &ingestBuffer{s: s, companyID: companyID, reject: reject}

	br := bufio.NewReaderSize(r, MaxIngestLine)
	for n := 1; ; n++ {
		line, tooLong, rerr := readLine(br)
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return b.sum, errors.Join(fmt.Errorf("line %d: read: %w", n, rerr), b.flush(ctx))
		}
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
		}
		switch line = bytes.TrimSpace(line); {
		case tooLong:
			b.rejectLine(n, fmt.Sprintf("longer than %d KiB", MaxIngestLine>>10))
		case len(line) == 0:
		default:
			if rec, err := api.ParseTrackedRecord(line, today); err != nil {
				b.rejectLine(n, err.Error())
			} else {
				b.add(n, *rec)
			}
		}
		if len(b.pending) >= IngestBatchLines || rerr != nil {
			if err := b.flush(ctx); err != nil {
				return b.sum, err
			}
		}
		if rerr != nil { // io.EOF
			return b.sum, nil
		}
		if err := ctx.Err(); err != nil {
			return b.sum, errors.Join(err, b.flush(ctx))
		}
	}
}

// ingestBuffer is Ingest's batch: every non-blank line, in order, either a
// record (rec >= 0, an index into recs) or a rejection; and the summary so
// far.
type ingestBuffer struct {
	s         *Store
	companyID int64
	reject    func(IngestLine)
	pending   []pendingLine
	recs      []api.TrackedRecord
	sum       api.IngestSummary
}

type pendingLine struct {
	line   int
	rec    int
	reason string
}

func (b *ingestBuffer) rejectLine(n int, reason string) {
	b.pending = append(b.pending, pendingLine{line: n, rec: -1, reason: reason})
}

func (b *ingestBuffer) add(n int, rec api.TrackedRecord) {
	b.pending = append(b.pending, pendingLine{line: n, rec: len(b.recs)})
	b.recs = append(b.recs, rec)
}

// flush stores the batch's records in one transaction and reports and
// counts every line of it.
func (b *ingestBuffer) flush(ctx context.Context) error {
	var results []api.IngestResult
	if len(b.recs) > 0 {
		var err error
		if results, err = b.s.IngestTracked(ctx, b.companyID, b.recs); err != nil {
			return fmt.Errorf("lines %d-%d: %w", b.pending[0].line, b.pending[len(b.pending)-1].line, err)
		}
	}
	for _, p := range b.pending {
		status, reason := api.IngestRejected, p.reason
		if p.rec >= 0 {
			status, reason = results[p.rec].Status, results[p.rec].Reason
		}
		b.sum.Lines++
		b.sum.Add(status)
		if status == api.IngestRejected && b.reject != nil {
			b.reject(IngestLine{Line: p.line, Reason: reason})
		}
	}
	b.pending, b.recs = b.pending[:0], b.recs[:0]
	return nil
}

// readLine returns the next line of br (valid until the next read), or
// tooLong when it does not fit br's buffer, in which case the rest of it
// is read and dropped. err is io.EOF at the end of the input, with the
// last line when it had no newline.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	line, err = br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, false, err
	}
	for errors.Is(err, bufio.ErrBufferFull) {
		_, err = br.ReadSlice('\n')
	}
	return nil, true, err
}
