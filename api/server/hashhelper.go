package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// HashHelperEnv, set in a process's environment, makes it a hashing
// helper (ServeHashHelperIfAsked): NewHasherHelper starts its executable
// again with it.
const HashHelperEnv = "TRAINEED_HASH_HELPER"

// ServeHashHelperIfAsked makes this process a hashing helper when
// HashHelperEnv is set: it hashes the jobs read from stdin until stdin
// closes (the server stopped or died), then exits. traineed's main calls it
// first, and test binaries that start helpers from TestMain.
func ServeHashHelperIfAsked() {
	if os.Getenv(HashHelperEnv) != "1" {
		return
	}
	debug.SetGCPercent(helperGCPercent)
	nameProcess(helperName)
	if err := ServeHashHelper(pollable(os.Stdin), pollable(os.Stdout)); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// helperName is the helper's argv[0] and, on Linux, its process name (ps
// and top would otherwise show "exe", the name of /proc/self/exe).
const helperName = "traineed-hash"

// helperGCPercent is the helper's GOGC, whatever the server's environment
// says: its heap is little more than the hashes in flight (19 MiB each).
// With its input read through the poller (pollable), BenchmarkHashParallel
// took 13.45 ms/op at 100 and 13.28 at 200 against 15.33 at 50 (four
// interleaved rounds, 23-11-2026; 12.82 on plain goroutines): 100 keeps
// the rate at half 200's peak memory over the live hashes. (50 looked best
// only while blocking reads idled a core: docs/performance.md.)
const helperGCPercent = 100

// hashRequest and hashReply are the helper's protocol: one JSON object a
// line each way, replies in any order, matched by ID.
type hashRequest struct {
	ID       uint64 `json:"id"`
	Password string `json:"password"`
	Memory   uint32 `json:"m"`
	Time     uint32 `json:"t"`
	Threads  uint8  `json:"p"`
}

type hashReply struct {
	ID   uint64 `json:"id"`
	Hash string `json:"hash"`
}

// ServeHashHelper hashes every request read from in, each on its own
// goroutine (the server bounds how many it sends at once), and writes the
// replies to out, until in ends.
func ServeHashHelper(in io.Reader, out io.Writer) error {
	dec := json.NewDecoder(bufio.NewReader(in))
	var (
		mu     sync.Mutex // guards enc, active and idle
		enc    = json.NewEncoder(out)
		active int
		idle   *time.Timer
		wg     sync.WaitGroup
	)
	defer wg.Wait()
	for {
		var r hashRequest
		if err := dec.Decode(&r); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		mu.Lock()
		active++
		if idle != nil {
			idle.Stop()
		}
		mu.Unlock()
		wg.Go(func() {
			h := hash(PasswordParams{MemoryKiB: r.Memory, Time: r.Time, Threads: r.Threads}, r.Password)
			mu.Lock()
			defer mu.Unlock()
			_ = enc.Encode(hashReply{ID: r.ID, Hash: h})
			if active--; active == 0 {
				// A burst is over: hand its memory back to the system
				// rather than keep it until the next one.
				idle = time.AfterFunc(helperIdle, debug.FreeOSMemory)
			}
		})
	}
}

// helperIdle is how long the helper waits without a job before it returns
// its memory to the system.
const helperIdle = time.Second

// hashHelper is the server's side of a helper process, started on the
// first hash and again after it died.
type hashHelper struct {
	exe    string
	procs  int         // the helper's GOMAXPROCS: one per hash it runs at once
	failed atomic.Bool // the process could not be started: hash in the server

	mu  sync.Mutex
	cur *helperProc
}

type helperProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser

	wmu sync.Mutex
	enc *json.Encoder

	mu      sync.Mutex
	next    uint64
	pending map[uint64]chan string
	dead    bool

	answered atomic.Bool // it has answered a job: it is a working helper
}

var errHelperDied = errors.New("hash helper ended")

// proc returns the running helper, starting one when there is none.
func (h *hashHelper) proc() (*helperProc, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cur != nil {
		return h.cur, nil
	}
	cmd := exec.Command(h.exe)
	cmd.Args = []string{helperName} // what ps shows, rather than /proc/self/exe
	// GOMAXPROCS last, so that it wins over the server's own (an operator
	// may run the server with GOMAXPROCS=1: docs/performance.md).
	cmd.Env = append(os.Environ(), HashHelperEnv+"=1", "GOMAXPROCS="+strconv.Itoa(h.procs))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := startNiced(cmd); err != nil {
		h.failed.Store(true)
		return nil, err
	}
	p := &helperProc{cmd: cmd, stdin: stdin, enc: json.NewEncoder(stdin), pending: map[uint64]chan string{}}
	h.cur = p
	go h.read(p, stdout)
	return p, nil
}

// read delivers p's replies until it ends, then fails what is pending
// and forgets p, so that the next hash starts a new helper.
func (h *hashHelper) read(p *helperProc, stdout io.Reader) {
	dec := json.NewDecoder(bufio.NewReader(stdout))
	for {
		var r hashReply
		if err := dec.Decode(&r); err != nil {
			break
		}
		p.answered.Store(true)
		p.mu.Lock()
		ch := p.pending[r.ID]
		delete(p.pending, r.ID)
		p.mu.Unlock()
		if ch != nil {
			ch <- r.Hash
		}
	}
	h.mu.Lock()
	if h.cur == p {
		h.cur = nil
	}
	h.mu.Unlock()
	if !p.answered.Load() {
		// It ended without answering anything (not a helper, or it cannot
		// run): do not start one per hash; hash in the server from now on.
		h.failed.Store(true)
	}
	p.mu.Lock()
	p.dead = true
	for id, ch := range p.pending {
		close(ch)
		delete(p.pending, id)
	}
	p.mu.Unlock()
	_ = p.stdin.Close()
	_ = p.cmd.Wait()
}

// hash has the helper hash password. It reports whether it took over
// release: on success it calls it before it returns; when ctx ends first it
// returns ctx's error and calls release once the helper has answered (or
// died), so that a slot is free only when the helper no longer holds the
// job's memory. On any other error it leaves release to the caller, which
// still holds its slot.
func (h *hashHelper) hash(ctx context.Context, pp PasswordParams, password string, release func()) (string, bool, error) {
	p, err := h.proc()
	if err != nil {
		return "", false, err
	}
	ch := make(chan string, 1)
	p.mu.Lock()
	if p.dead {
		p.mu.Unlock()
		return "", false, errHelperDied
	}
	p.next++
	id := p.next
	p.pending[id] = ch
	p.mu.Unlock()
	p.wmu.Lock()
	err = p.enc.Encode(hashRequest{ID: id, Password: password, Memory: pp.MemoryKiB, Time: pp.Time, Threads: pp.Threads})
	p.wmu.Unlock()
	if err != nil {
		p.mu.Lock()
		delete(p.pending, id)
		p.mu.Unlock()
		if !p.answered.Load() {
			// It took no job before its stdin broke (not a helper, or it
			// cannot run): as read decides when it sees it end, but now,
			// so that the server hashes itself from this job on.
			h.failed.Store(true)
		}
		return "", false, err
	}
	select {
	case s, ok := <-ch:
		if !ok {
			return "", false, errHelperDied
		}
		release()
		return s, true, nil
	case <-ctx.Done():
		go func() {
			<-ch // the answer, dropped, or closed when the helper ends
			release()
		}()
		return "", true, ctx.Err()
	}
}

// close ends the running helper: its stdin closes and it exits once its
// jobs are done.
func (h *hashHelper) close() error {
	h.mu.Lock()
	p := h.cur
	h.cur = nil
	h.mu.Unlock()
	if p == nil {
		return nil
	}
	return p.stdin.Close()
}
