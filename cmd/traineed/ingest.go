package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
)

var ingestLong = `Reads tracked data as JSON Lines from FILE, or from standard input with "-": one
record a line, its "type" picking the shape. Every line is validated on its own:
a bad line is reported on stderr as "line N: reason" (N counts the file's lines
from 1) and nothing of it is stored; the good lines are stored. A summary goes
to stdout. The exit status is 1 when any line was rejected.

A weight or a step count replaces the one the trainee already has for that day
(the last one recorded counts), so ingesting a file again changes nothing;
measurements and nutrition items are appended. A workout moves the trainee's
lastTrained forward, never back. Weights in LB are stored in kilograms.

The input is streamed and committed every ` + fmt.Sprint(store.IngestBatchLines) + ` lines, so files of any size
ingest in constant memory; lines longer than ` + fmt.Sprint(store.MaxIngestLine>>10) + ` KiB are rejected.

Records (dates dd-MM-yyyy, at most today in the company's time zone):
  {"type":"weight","traineeId":41,"date":"01-11-2026","weight":81.4,"unit":"KG"}
  {"type":"measurement","traineeId":41,"date":"01-11-2026","measurement":"WAIST","value":82,"unit":"CM"}
  {"type":"measurement","traineeId":41,"date":"01-11-2026","measurement":"CUSTOM","name":"Wrist","value":17,"unit":"CM"}
  {"type":"nutrition","traineeId":41,"date":"01-11-2026","meal":"BREAKFAST","name":"Oats","quantity":80,"unit":"g","calories":300,"protein":10,"carbs":54,"fat":5}
  {"type":"steps","traineeId":41,"date":"01-11-2026","steps":9500}
  {"type":"workout","traineeId":41,"date":"01-11-2026"}

Ranges: weight 20-400 kg; measurements: circumferences (CHEST, WAIST, HIPS, NECK,
SHOULDERS, LEFT_/RIGHT_ARM, _THIGH, _CALF) in CM or IN up to 300 cm, BODY_FAT in
PERCENT 1-75, WEIGHT in KG or LB 20-400 kg, CUSTOM with a name in any of those
units, 0-10000; meals BREAKFAST, LUNCH, DINNER, SNACK with a name, a unit and a
quantity, calories, protein, carbs and fat that are not negative; steps an
integer 0-200000.`

func newIngestCmd(e *env) *cobra.Command {
	var company int64
	c := &cobra.Command{
		Use:   "ingest --company ID FILE|-",
		Short: "Load tracked data (weights, measurements, nutrition, steps, workouts) from JSON Lines",
		Long:  ingestLong,
		Example: `  traineed ingest --company 3 tracked.jsonl
  gunzip -c export.jsonl.gz | traineed ingest --company 3 -`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error { return runIngest(e, company, args[0]) },
	}
	c.Flags().Int64Var(&company, "company", 0, "company id (required)")
	_ = c.MarkFlagRequired("company")
	return c
}

// runIngest ingests path ("-": stdin) into company: rejected lines on
// stderr, the summary on stdout, an error when any line was rejected.
func runIngest(e *env, company int64, path string) error {
	var in io.Reader = e.in
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	return e.withStore(func(s *store.Store) error {
		errOut := bufio.NewWriter(e.errOut)
		defer errOut.Flush()
		sum, err := s.Ingest(e.ctx, company, in, func(l store.IngestLine) {
			fmt.Fprintf(errOut, "line %d: %s\n", l.Line, api.EscapeText(l.Reason))
		})
		if ferr := errOut.Flush(); err == nil {
			err = ferr
		}
		if sum.Lines > 0 || err == nil {
			fmt.Fprintln(e.out, sum)
		}
		if err != nil {
			return err
		}
		if sum.Rejected > 0 {
			return fmt.Errorf("%d of %d lines rejected", sum.Rejected, sum.Lines)
		}
		return nil
	})
}
