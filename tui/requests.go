package tui

import (
	"context"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
)

// slot names a kind of request. Only the latest request of a slot counts:
// an answer to an earlier one is dropped.
type slot int

const (
	slotList slot = iota
	slotTrainee
	slotWeight
	slotMeasurements
	slotNutrition
	slotSteps
	slotMutate
	slotTrainers
	slotWebhooks
	slotDeliveries
	slotWebhookAction
	slotAutomations
	slotRuns
	slotHome
	slotBulk
	slotForm
	slotOpen // :open's read of the trainee
	slotKeys // the Settings page's keys, trainers, company, and its changes
	slotStaff
	slotCompany
	slotAdmin
	slotCount
)

// resultMsg is the answer to one request.
type resultMsg struct {
	slot slot
	seq  uint64
	val  any
	err  error
}

// requests is the component every page starts its requests with: each
// runs as a tea.Cmd under the options' context and timeout, tagged with a
// sequence number, and the spinner turns while any is in flight.
type requests struct {
	ctx     context.Context
	timeout time.Duration

	seq      uint64
	inflight [slotCount]uint64 // the sequence number each slot waits for; 0: none
	cancels  [slotCount]context.CancelFunc
	dropped  int // answers dropped because a newer request replaced them

	spin     spinner.Model
	spinning bool
}

func newRequests(ctx context.Context, timeout time.Duration) requests {
	return requests{ctx: ctx, timeout: timeout, spin: spinner.New(spinner.WithSpinner(spinner.MiniDot))}
}

// call starts a request of slot s; a previous request of the slot is
// cancelled (reads) and its answer will be dropped.
func (r *requests) call(s slot, fn func(ctx context.Context) (any, error)) tea.Cmd {
	if s != slotMutate && s != slotWebhookAction && s != slotAdmin && r.cancels[s] != nil {
		r.cancels[s]()
	}
	r.seq++
	seq := r.seq
	ctx, cancel := context.WithTimeout(r.ctx, r.timeout)
	r.inflight[s], r.cancels[s] = seq, cancel
	run := func() tea.Msg {
		defer cancel()
		v, err := fn(ctx)
		return resultMsg{slot: s, seq: seq, val: v, err: err}
	}
	return tea.Batch(run, r.startSpinner())
}

// accept reports whether msg answers the latest request of its slot, which
// then waits for nothing more; an older answer is counted and dropped.
func (r *requests) accept(msg resultMsg) bool {
	if r.inflight[msg.slot] != msg.seq {
		r.dropped++
		return false
	}
	r.inflight[msg.slot], r.cancels[msg.slot] = 0, nil
	return true
}

// forget drops whatever the slots wait for: their answers will be dropped.
func (r *requests) forget(slots ...slot) {
	for _, s := range slots {
		if r.cancels[s] != nil {
			r.cancels[s]()
			r.cancels[s] = nil
		}
		r.inflight[s] = 0
	}
}

func (r *requests) loading(s slot) bool { return r.inflight[s] != 0 }

func (r *requests) busy() bool {
	for _, seq := range r.inflight {
		if seq != 0 {
			return true
		}
	}
	return false
}

func (r *requests) startSpinner() tea.Cmd {
	if r.spinning {
		return nil
	}
	r.spinning = true
	return r.spin.Tick
}

// tick turns the spinner while anything is loading, and stops it after.
func (r *requests) tick(msg spinner.TickMsg) tea.Cmd {
	if !r.busy() {
		r.spinning = false
		return nil
	}
	var cmd tea.Cmd
	r.spin, cmd = r.spin.Update(msg)
	return cmd
}

// spinnerView is the spinner while anything is loading, else blank.
func (r *requests) spinnerView() string {
	if !r.busy() {
		return " "
	}
	return r.spin.View()
}
