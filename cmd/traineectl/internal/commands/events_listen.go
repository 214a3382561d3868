package commands

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/api/outbound"
	"github.com/traineed/traineed/cmd/internal/textout"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// EventsListenOptions are the inputs of `events listen`.
type EventsListenOptions struct {
	ForwardTo string
	Types     []string
	// Since chooses where to start: "" resumes after the last event this
	// profile's listener saw (or starts now the first time), "now" skips
	// what is already there, "all" starts at the oldest event kept, an
	// event id starts after it.
	Since string
	// Wait is the long-poll of each feed request, in seconds.
	Wait int
	// StatePath is the listener's state file (cursor and secret); "" is
	// under the configuration directory, one per profile and server.
	StatePath string
}

// ListenTimeout bounds one forward to the local URL.
const ListenTimeout = 10 * time.Second

func newEventsListenCmd(f *cmdutil.Factory, runF func(*EventsListenOptions) error) *cobra.Command {
	var o EventsListenOptions
	var types string
	cmd := &cobra.Command{
		Use:   "listen [--forward-to URL] [--events LIST] [--since now|all|EVENT-ID]",
		Short: "Follow the event feed, print each event, and forward it to a local URL",
		Long: `Follow your company's event feed (long-polling it) and print each event as it
arrives: a line per event on a terminal; with -o json one JSON object per
line, with -o yaml one YAML document per event, with -o csv a header and one
row per event.

With --forward-to, every event is also POSTed to that URL exactly as a webhook
delivery is: the same body and webhook-id, signed as Standard Webhooks
specifies with a secret printed at start (kept in the state file, so it stays
the same across restarts). Each forward's status and latency are reported; a
forward that fails is reported and not retried.

Where it starts: after the last event a previous "events listen" of the same
profile and server saw (so a restart loses and repeats nothing), or, the first
time, at the end of the feed. --since now skips to the end, --since all starts
at the oldest event kept, --since EVENT-ID after that event. Ctrl-C prints a
summary. When the server cannot be reached it keeps trying (1 s, 5 s, then
every 30 s).`,
		Example: `  traineectl events listen
  traineectl events listen --forward-to http://127.0.0.1:3000/webhooks
  traineectl events listen --events trainee.created,trainee.deleted -o json | jq .id`,
		Args: cmdutil.ExactArgs(0, "none"),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if o.Types, err = parseTypesFlag(types); err != nil {
				return err
			}
			if o.ForwardTo != "" {
				if err := api.ValidateURLFlag("--forward-to", o.ForwardTo); err != nil {
					return cmdutil.Usagef("%v", err)
				}
			}
			switch {
			case o.Since == "", o.Since == "now", o.Since == "all", strings.HasPrefix(o.Since, api.WebhookEventIDPrefix):
			default:
				return cmdutil.Usagef("--since takes now, all or an event id (evt_...), not %q", o.Since)
			}
			if o.Wait < 1 || o.Wait > api.MaxEventWait {
				return cmdutil.Usagef("--wait must be 1 to %d seconds", api.MaxEventWait)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runWith(ctx, f, &o, runF, runEventsListen)
		},
	}
	cmd.Flags().StringVar(&o.ForwardTo, "forward-to", "", "POST each event, signed, to this URL")
	cmd.Flags().StringVar(&types, "events", "", "only these comma-separated event types")
	cmd.Flags().StringVar(&o.Since, "since", "", "where to start: now, all or an event id (default: after the last event seen)")
	cmd.Flags().IntVar(&o.Wait, "wait", 25, "long-poll of each feed request, in seconds (1 to 30)")
	cmd.Flags().StringVar(&o.StatePath, "state-file", "", "where to keep the cursor and secret (default: under the configuration directory, per profile)")
	_ = cmd.RegisterFlagCompletionFunc("events", fixedValues(api.FeedEventTypes...))
	_ = cmd.RegisterFlagCompletionFunc("since", fixedValues("now", "all"))
	return cmd
}

// listenState is what a listener keeps between runs.
type listenState struct {
	After  string `json:"after"`
	Secret string `json:"secret"`
}

// listenStatePath is the state file of the settings: one per profile and
// server, beside the configuration file.
func listenStatePath(f *cmdutil.Factory, s cmdutil.Settings) (string, error) {
	cfg, err := f.ConfigPath()
	if err != nil {
		return "", err
	}
	name := s.Profile
	if name == "" {
		name = "default"
	}
	h := sha256.Sum256([]byte(s.BaseURL))
	return filepath.Join(filepath.Dir(cfg), "listen", name+"-"+hex.EncodeToString(h[:4])+".json"), nil
}

func loadListenState(path string) (*listenState, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &listenState{}, nil
	}
	if err != nil {
		return nil, err
	}
	var st listenState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("listen state %s: %w", path, err)
	}
	return &st, nil
}

// save writes the state atomically (a temporary file renamed over it).
func (st *listenState) save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, _ := json.Marshal(st)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// listenLine is one event under -o json.
type listenLine struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	CreatedAt time.Time       `json:"createdAt"`
	Payload   json.RawMessage `json:"payload"`
	Forward   *forwardResult  `json:"forward,omitempty"`
}

type forwardResult struct {
	OK         bool    `json:"ok"`
	StatusCode *int    `json:"statusCode"`
	LatencyMs  float64 `json:"latencyMs"`
	Error      string  `json:"error,omitempty"`
}

// listenRetry is the wait before each retry of a feed request that failed
// for a reason other than the request itself (the network, a 5xx after the
// client's own retries); the last repeats.
var listenRetry = []time.Duration{time.Second, 5 * time.Second, 30 * time.Second}

func runEventsListen(ctx context.Context, f *cmdutil.Factory, o *EventsListenOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	st, path, err := openListenState(ctx, f, c, o)
	if err != nil {
		return err
	}
	ios := f.IOStreams
	if o.ForwardTo != "" {
		fmt.Fprintf(ios.ErrOut, "Ready! Forwarding to %s. Webhook signing secret: %s (^C to quit)\n", o.ForwardTo, st.Secret)
	} else {
		fmt.Fprintln(ios.ErrOut, "Ready! Listening for events (^C to quit)")
	}
	l := &listener{f: f, o: o, st: st, path: path, format: f.OutputFormat(),
		// The developer's own receiver, on their own machine: every
		// address is theirs to reach (the server's policy is for
		// companies' URLs).
		fwd: outbound.New(outbound.Config{Policy: outbound.Policy{Allow: outbound.Everywhere}})}
	if l.format == output.CSV {
		if err := csvLine(ios, listenCSVHeader); err != nil {
			return err
		}
	}
	return l.run(ctx, c)
}

// openListenState loads (or starts) the listener's saved state, its cursor
// and secret, moves the cursor as --since says (all, an event id, or now:
// the end of the feed, also where a first run starts) and saves it.
func openListenState(ctx context.Context, f *cmdutil.Factory, c *client.Client, o *EventsListenOptions) (*listenState, string, error) {
	path := o.StatePath
	if path == "" {
		s, err := f.Settings()
		if err != nil {
			return nil, "", err
		}
		if path, err = listenStatePath(f, s); err != nil {
			return nil, "", err
		}
	}
	st, err := loadListenState(path)
	if err != nil {
		return nil, "", err
	}
	if st.Secret == "" {
		st.Secret = api.GenerateWebhookSecret()
	}
	switch {
	case o.Since == "all":
		st.After = ""
	case strings.HasPrefix(o.Since, api.WebhookEventIDPrefix):
		st.After = o.Since
	case o.Since == "now" || st.After == "" && o.Since == "":
		after := ""
		for {
			page, err := c.Events(ctx, client.EventParams{After: after, Limit: api.MaxEventLimit})
			if err != nil {
				return nil, "", err
			}
			after = page.Next
			if !page.HasMore {
				break
			}
		}
		st.After = after
	}
	return st, path, st.save(path)
}

// listener follows the feed: it prints each event, forwards it when asked,
// and saves the cursor after each one.
type listener struct {
	f      *cmdutil.Factory
	o      *EventsListenOptions
	st     *listenState
	path   string
	format output.Format
	fwd    *outbound.Client

	received, forwarded, failed int
}

// summary is the line printed when the listener stops.
func (l *listener) summary() {
	msg := output.Count(l.received, "event", "events") + " received"
	if l.o.ForwardTo != "" {
		msg += fmt.Sprintf(", %d forwarded, %s failed", l.forwarded, output.Count(l.failed, "forward", "forwards"))
	}
	fmt.Fprintf(l.f.IOStreams.ErrOut, "%s; resume after %s\n", msg, api.EscapeText(orNone(l.st.After)))
}

// run long-polls the feed until ctx ends, retrying a failure of the
// network or the server on listenRetry.
func (l *listener) run(ctx context.Context, c *client.Client) error {
	fails := 0
	for {
		page, err := c.Events(ctx, client.EventParams{After: l.st.After, Types: l.o.Types, Limit: api.DefaultEventLimit, Wait: l.o.Wait})
		if ctx.Err() != nil {
			l.summary()
			return nil
		}
		if err != nil {
			var nerr *client.NetworkError
			var serr *client.ServerError
			if !errors.As(err, &nerr) && !errors.As(err, &serr) {
				l.summary()
				return err
			}
			d := listenRetry[min(fails, len(listenRetry)-1)]
			fails++
			fmt.Fprintf(l.f.IOStreams.ErrOut, "warning: %s; retrying in %s\n", api.EscapeText(err.Error()), d)
			select {
			case <-ctx.Done():
				l.summary()
				return nil
			case <-time.After(d):
			}
			continue
		}
		fails = 0
		for _, e := range page.Events {
			if err := l.handle(ctx, e); err != nil {
				return err
			}
		}
	}
}

// handle prints (and forwards) one event and moves the cursor past it.
func (l *listener) handle(ctx context.Context, e *api.Event) error {
	l.received++
	line := listenLine{ID: e.ID, Type: e.Type, CreatedAt: e.CreatedAt, Payload: e.Payload}
	if l.o.ForwardTo != "" {
		// Not cancelled by Ctrl-C: the event in hand is finished, so that
		// the cursor and the receiver agree.
		res := l.fwd.Send(context.WithoutCancel(ctx), ListenTimeout, l.o.ForwardTo, []string{l.st.Secret}, e.ID, time.Now().UTC(), e.Payload)
		fr := &forwardResult{OK: res.OK(), LatencyMs: float64(res.Latency.Microseconds()) / 1000, Error: res.Err}
		if res.StatusCode != 0 {
			code := res.StatusCode
			fr.StatusCode = &code
		}
		line.Forward = fr
		if fr.OK {
			l.forwarded++
		} else {
			l.failed++
		}
	}
	if err := printListenLine(l.f.IOStreams, l.format, line); err != nil {
		return err
	}
	l.st.After = e.ID
	return l.st.save(l.path)
}

// listenCSVHeader is the header of `events listen -o csv`.
var listenCSVHeader = []string{"id", "type", "createdAt", "forwardOk", "forwardStatus", "forwardLatencyMs", "forwardError"}

// printListenLine prints one event as it arrives: a JSON object on one
// line, a YAML document, a CSV row, or a line of text.
func printListenLine(ios *iostreams.IOStreams, format output.Format, l listenLine) error {
	switch format {
	case output.JSON:
		return textout.WriteJSONLine(ios.Out, l)
	case output.YAML:
		if _, err := fmt.Fprintln(ios.Out, "---"); err != nil {
			return err
		}
		return textout.WriteYAML(ios.Out, l)
	case output.CSV:
		row := []string{l.ID, l.Type, output.Instant(l.CreatedAt), "", "", "", ""}
		if fr := l.Forward; fr != nil {
			row[3], row[5], row[6] = strconv.FormatBool(fr.OK), num(fr.LatencyMs), fr.Error
			if fr.StatusCode != nil {
				row[4] = strconv.Itoa(*fr.StatusCode)
			}
		}
		return csvLine(ios, row)
	}
	_, err := fmt.Fprintln(ios.Out, api.EscapeText(listenText(l)))
	return err
}

// csvLine writes one CSV record at once (the stream is read as it comes),
// escaped as every CSV is.
func csvLine(ios *iostreams.IOStreams, rec []string) error {
	return textout.WriteCSV(ios.Out, rec, nil)
}

func orNone(s string) string {
	if s == "" {
		return "the start"
	}
	return s
}

// listenText is one event's line on a terminal, with the trainee it is
// about (id and name) when it is about one.
func listenText(l listenLine) string {
	s := fmt.Sprintf("%s  %-17s %s", output.Stamp(l.CreatedAt), l.Type, l.ID)
	if who := listenWho(l.Payload); who != "" {
		s += "  " + who
	}
	if fr := l.Forward; fr != nil {
		status := "-"
		if fr.StatusCode != nil {
			status = strconv.Itoa(*fr.StatusCode) + " " + http.StatusText(*fr.StatusCode)
		}
		s += fmt.Sprintf("  → %s (%.1f ms)", status, fr.LatencyMs)
		if fr.Error != "" {
			s += "  " + fr.Error
		}
	}
	return s
}

// listenWho is "trainee 41 Ada Park" for an event about a trainee (its
// payload's data.trainee, as events list reads it), "" otherwise; an
// erased trainee's event carries its id alone.
func listenWho(payload []byte) string {
	var ev api.WebhookEvent
	if json.Unmarshal(payload, &ev) != nil || eventTrainee(ev.Data) == "" {
		return ""
	}
	return strings.TrimSpace("trainee " + eventTrainee(ev.Data) + " " + eventName(ev.Data))
}
