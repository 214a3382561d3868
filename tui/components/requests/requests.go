package requests

import (
	"context"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
)

// Slot names a kind of request. Only the latest request of a slot counts:
// an answer to an earlier one is dropped.
type Slot int

const (
	SlotList Slot = iota
	SlotTrainee
	SlotWeight
	SlotMeasurements
	SlotNutrition
	SlotSteps
	SlotMutate
	SlotTrainers
	SlotWebhooks
	SlotDeliveries
	SlotWebhookAction
	SlotAutomations
	SlotRuns
	SlotHome
	slotBulk
	SlotForm
	SlotOpen // :open's read of the trainee
	SlotKeys // the Settings page's keys, trainers, company, and its changes
	SlotStaff
	SlotCompany
	SlotAdmin
	slotCount
)

// ResultMsg is the answer to one request.
type ResultMsg struct {
	Slot Slot
	seq  uint64
	Val  any
	Err  error
}

// Requests is the component every page starts its requests with: each
// runs as a tea.Cmd under the options' context and timeout, tagged with a
// sequence number, and the spinner turns while any is in flight.
type Requests struct {
	ctx     context.Context
	timeout time.Duration

	seq      uint64
	inflight [slotCount]uint64 // the sequence number each slot waits for; 0: none
	cancels  [slotCount]context.CancelFunc
	Dropped  int // answers dropped because a newer request replaced them

	Spin     spinner.Model
	spinning bool
}

func NewRequests(ctx context.Context, timeout time.Duration) Requests {
	return Requests{ctx: ctx, timeout: timeout, Spin: spinner.New(spinner.WithSpinner(spinner.MiniDot))}
}

// Call starts a request of slot s; a previous request of the slot is
// cancelled (reads) and its answer will be dropped.
func (r *Requests) Call(s Slot, fn func(ctx context.Context) (any, error)) tea.Cmd {
	if s != SlotMutate && s != SlotWebhookAction && s != SlotAdmin && r.cancels[s] != nil {
		r.cancels[s]()
	}
	r.seq++
	seq := r.seq
	ctx, cancel := context.WithTimeout(r.ctx, r.timeout)
	r.inflight[s], r.cancels[s] = seq, cancel
	run := func() tea.Msg {
		defer cancel()
		v, err := fn(ctx)
		return ResultMsg{Slot: s, seq: seq, Val: v, Err: err}
	}
	return tea.Batch(run, r.startSpinner())
}

// Accept reports whether msg answers the latest request of its slot, which
// then waits for nothing more; an older answer is counted and dropped.
func (r *Requests) Accept(msg ResultMsg) bool {
	if r.inflight[msg.Slot] != msg.seq {
		r.Dropped++
		return false
	}
	r.inflight[msg.Slot], r.cancels[msg.Slot] = 0, nil
	return true
}

// Forget drops whatever the slots wait for: their answers will be dropped.
func (r *Requests) Forget(slots ...Slot) {
	for _, s := range slots {
		if r.cancels[s] != nil {
			r.cancels[s]()
			r.cancels[s] = nil
		}
		r.inflight[s] = 0
	}
}

func (r *Requests) Loading(s Slot) bool { return r.inflight[s] != 0 }

func (r *Requests) Busy() bool {
	for _, seq := range r.inflight {
		if seq != 0 {
			return true
		}
	}
	return false
}

func (r *Requests) startSpinner() tea.Cmd {
	if r.spinning {
		return nil
	}
	r.spinning = true
	return r.Spin.Tick
}

// Tick turns the spinner while anything is loading, and stops it after.
func (r *Requests) Tick(msg spinner.TickMsg) tea.Cmd {
	if !r.Busy() {
		r.spinning = false
		return nil
	}
	var cmd tea.Cmd
	r.Spin, cmd = r.Spin.Update(msg)
	return cmd
}

// SpinnerView is the spinner while anything is loading, else blank.
func (r *Requests) SpinnerView() string {
	if !r.Busy() {
		return " "
	}
	return r.Spin.View()
}
