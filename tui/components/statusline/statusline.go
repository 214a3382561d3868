package statusline

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/tui/components/layout"
	"github.com/traineed/traineed/tui/components/theme"
)

// statusKind colours the status line.
type statusKind int

const (
	StatusInfo statusKind = iota
	StatusOK
	StatusError
)

// StatusPlace is what the status line speaks about: a screen and the
// trainee selected or shown there (0: none).
type StatusPlace struct {
	Screen  int // the page's screen
	Trainee int64
	Tab     int // of the trainee screen
}

// StatusLine is the component under every page: one message, an error's
// or a note's, that stays as long as it speaks about what is shown.
type StatusLine struct {
	Status     string
	statusKind statusKind
	// statusFresh: the status was set during the message being handled;
	// statusAt is where it was shown first (the screen and trainee once
	// that message was handled). A message that is not an error goes when
	// the screen or the trainee changes; an error when the screen does.
	statusFresh bool
	statusAt    StatusPlace
	// unreachable: the status says the server could not be reached; it
	// goes as soon as the server answers again (ServerAnswered).
	unreachable bool
	// Background is what the status line says while it has nothing else
	// to say: a lasting state (the event feed is unreachable).
	Background string
	// KeyGone is what a refused key (401) means once this TUI revoked or
	// disabled its own key: said instead of "check --api-key".
	KeyGone string
}

// SettleStatus runs after each message: a fresh status belongs to where
// the message left the screen (now); an older one is cleared once the
// screen changes, or, unless it is an error, once the trainee or the tab
// does: "Cancelled" never follows the user around.
func (s *StatusLine) SettleStatus(now StatusPlace) {
	switch {
	case s.statusFresh:
		s.statusFresh, s.statusAt = false, now
	case s.Status == "":
	case now.Screen != s.statusAt.Screen,
		s.statusKind != StatusError && (now.Trainee != s.statusAt.Trainee || now.Tab != s.statusAt.Tab):
		s.Status, s.statusKind = "", StatusInfo
	}
}

// SetStatus sets the status line; its string arguments are data (names,
// ids, errors the server wrote) and are shown escaped (api.EscapeText).
func (s *StatusLine) SetStatus(k statusKind, format string, args ...any) {
	for i, a := range args {
		if text, ok := a.(string); ok {
			args[i] = api.EscapeText(text)
		}
	}
	s.ShowStatus(k, fmt.Sprintf(format, args...))
}

func (s *StatusLine) ShowStatus(k statusKind, text string) {
	s.statusKind, s.Status = k, text
	s.statusFresh, s.unreachable = true, false
}

func (s *StatusLine) SetError(err error) {
	if s.KeyGone != "" && IsAuthRefused(err) {
		s.ShowStatus(StatusError, s.KeyGone)
		return
	}
	s.ShowStatus(StatusError, Describe(err))
	var ne *client.NetworkError
	s.unreachable = errors.As(err, &ne)
}

// ServerAnswered clears a status that said the server could not be
// reached: it answered since, so the status no longer holds.
func (s *StatusLine) ServerAnswered() {
	if s.unreachable {
		s.Status, s.statusKind, s.unreachable = "", StatusInfo, false
	}
}

// IsAuthRefused reports whether err is the server's refusal of the key
// (401).
func IsAuthRefused(err error) bool {
	var auth *client.AuthRefusedError
	return errors.As(err, &auth)
}

// ClearStale clears a status set before the message being handled: it
// belonged to an action done with (a question or a section opens next),
// while one the same message set stays.
func (s *StatusLine) ClearStale() {
	if !s.statusFresh {
		s.Status, s.statusKind = "", StatusInfo
	}
}

// StatusLines is the status line, on two lines of width w when it is
// longer (an error's cause on the first, its URL on the second); what two
// lines cannot hold is cut with "…".
func (s *StatusLine) StatusLines(w int) []string {
	if s.Status == "" && s.Background == "" || w <= 0 {
		return []string{""}
	}
	prefix := ""
	switch s.statusKind {
	case StatusError:
		prefix = "✗ "
	case StatusOK:
		prefix = "✓ "
	}
	text := prefix + s.Status
	if s.Status == "" {
		text = "⚠ " + s.Background
	}
	if one := strings.ReplaceAll(text, "\n", " "); ansi.StringWidth(one) <= w {
		return []string{one}
	}
	// A status of two parts (cause, then URL) breaks between them;
	// another wraps at spaces only (never inside a date: 31-02-2027).
	var lines []string
	if before, after, ok := strings.Cut(text, "\n"); ok {
		lines = []string{before, after}
	} else {
		lines = layout.WrapWords(text, w)
	}
	if len(lines) > 2 {
		lines = []string{lines[0], strings.Join(lines[1:], " ")}
	}
	for i := range lines {
		lines[i] = ansi.Truncate(lines[i], w, "…")
	}
	return lines
}

// PaintStatus colours one line of the status (see statusLines).
func (s *StatusLine) PaintStatus(th theme.Theme, line string) string {
	switch {
	case s.Status == "":
		return th.WarnText.Render(line)
	}
	switch s.statusKind {
	case StatusError:
		return th.ErrText.Render(line)
	case StatusOK:
		return th.OkText.Render(line)
	}
	return th.Dim.Render(line)
}

// keyRefusals are the words of a route refused to the key in use (a 403
// before anything changed), by error code.
var keyRefusals = map[int]string{
	api.CodeReadOnlyKey: "This API key is read-only: changes need a full key",
	api.CodeAdminScope:  "This API key is not an admin key: the company's keys, and changes to its trainers and settings, need one",
	api.CodeOwnTrainees: "This API key acts for its trainer's trainees only: this reaches beyond them",
}

// Describe turns an error into the status line's words, what the server
// or the network said escaped (api.EscapeText); a network failure's
// request goes on a second line.
func Describe(err error) string {
	cause, request := DescribeParts(err)
	if request != "" {
		return api.EscapeText(cause) + "\n" + api.EscapeText(request)
	}
	return api.EscapeText(cause)
}

// DescribeParts is an error's words and, for a network failure, the
// request that failed.
func DescribeParts(err error) (cause, request string) {
	var rej *client.RejectedError
	var nf *client.TraineeNotFoundError
	switch {
	case IsAuthRefused(err):
		return "The API key was refused (401): check --api-key, TRAINEECTL_API_KEY or the profile.", ""
	case errors.As(err, &nf):
		return fmt.Sprintf("Trainee %d was not found in your company.", nf.ID), ""
	case errors.As(err, &rej):
		if rej.Status == http.StatusNotFound {
			return "The server has no such endpoint (404): it may be older than this traineectl.", ""
		}
		if rej.ErrorCode == 0 {
			return rej.Error(), ""
		}
		if words, ok := keyRefusals[rej.ErrorCode]; ok {
			return fmt.Sprintf("%s (%d %d).", words, rej.Status, rej.ErrorCode), ""
		}
		s := fmt.Sprintf("Rejected: %d", rej.ErrorCode)
		if rej.Field != "" {
			s += " " + rej.Field
		}
		return s + ": " + rej.Message, ""
	case errors.Is(err, context.DeadlineExceeded):
		return "The server did not answer in time.", ""
	case errors.Is(err, context.Canceled):
		return "Cancelled.", ""
	}
	var ne *client.NetworkError
	if errors.As(err, &ne) {
		// The cause first and the URL last: a narrow status line keeps
		// what matters.
		s := "Cannot reach the server: " + networkCause(ne.Err)
		if ne.Attempts > 1 {
			s += fmt.Sprintf(" (after %d attempts)", ne.Attempts)
		}
		return s + ".", ne.Method + " " + ne.URL
	}
	return err.Error(), ""
}

// networkCause is the innermost words of a connection failure:
// "connect: connection refused", not "dial tcp 127.0.0.1:1: ...".
func networkCause(err error) string {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err.Error()
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
