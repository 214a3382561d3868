package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/jobs"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// gauge returns the value of the metric family name without labels.
func metricValue(t *testing.T, fams []*dto.MetricFamily, name string) float64 {
	t.Helper()
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
		m := f.GetMetric()[0]
		switch {
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Counter != nil:
			return m.Counter.GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// The store's metrics are read at each scrape: the outbox's backlog and
// the pool; the jobs' hooks count attempts and evaluations.
func TestServerMetricsReadTheStore(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		m := newServerMetrics(s)
		fams, err := m.reg.Gather()
		must(t, err)
		if v := metricValue(t, fams, "traineed_webhook_outbox_pending"); v != 0 {
			t.Errorf("pending = %v on an empty outbox", v)
		}
		tn := storetest.SetupTenants(t, s)
		storetest.AddWebhook(t, s, tn.A, "http://127.0.0.1:9/all")
		storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Xena Cole", "xena@example.com"))
		storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Yuri Moss", "yuri@example.com"))
		m.onAttempt(jobs.OutcomeDelivered)
		m.onAttempt(jobs.OutcomeRetry)
		m.onAttempt(jobs.OutcomeRetry)
		m.onEvaluation(jobs.Evaluation{Fired: 3, Expirations: 2}, nil)
		fams, err = m.reg.Gather()
		must(t, err)
		if v := metricValue(t, fams, "traineed_webhook_outbox_pending"); v != 2 {
			t.Errorf("pending = %v, want 2", v)
		}
		if v := metricValue(t, fams, "traineed_webhook_outbox_oldest_pending_age_seconds"); v < 0 || v > 60 {
			t.Errorf("oldest pending age = %v s", v)
		}
		if v := metricValue(t, fams, "traineed_db_pool_open_connections"); v < 1 {
			t.Errorf("open connections = %v", v)
		}
		if v := metricValue(t, fams, "traineed_db_pool_max_open_connections"); v < 1 {
			t.Errorf("max open connections = %v", v)
		}
		if v := metricValue(t, fams, "traineed_automation_runs_total"); v != 3 {
			t.Errorf("runs = %v, want 3", v)
		}
		if v := metricValue(t, fams, "traineed_automation_expirations_total"); v != 2 {
			t.Errorf("expirations = %v, want 2", v)
		}
		byLabel := func(name, label string) map[string]float64 {
			out := map[string]float64{}
			for _, f := range fams {
				if f.GetName() == name {
					for _, mm := range f.GetMetric() {
						for _, l := range mm.GetLabel() {
							if l.GetName() == label {
								out[l.GetValue()] = mm.GetCounter().GetValue()
							}
						}
					}
				}
			}
			return out
		}
		att := byLabel("traineed_webhook_attempts_total", "outcome")
		if att["delivered"] != 1 || att["retry"] != 2 || att["failed"] != 0 || len(att) != 6 {
			t.Errorf("attempts by outcome: %v", att)
		}
		if ev := byLabel("traineed_automation_evaluations_total", "result"); ev["ok"] != 1 || ev["error"] != 0 {
			t.Errorf("evaluations: %v", ev)
		}
		if v := metricValue(t, fams, "traineed_build_info"); v != 1 {
			t.Errorf("build info = %v", v)
		}
	})
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	must(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	must(t, err)
	return res.StatusCode, string(b)
}

// With --metrics-addr, /metrics moves to its own listener, and counts the
// main listener's requests.
func TestServeMetricsAddr(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	maddr := ln.Addr().String()
	ln.Close()
	base, cmd, _ := startServer(t, storetest.SQLiteURL(t), "--metrics-addr", maddr)
	if code, _ := get(t, base+"/healthz"); code != 200 {
		t.Fatalf("healthz %d", code)
	}
	if code, _ := get(t, base+"/metrics"); code != 404 {
		t.Errorf("main listener's /metrics: %d, want 404 with --metrics-addr", code)
	}
	code, text := get(t, "http://"+maddr+"/metrics")
	if code != 200 {
		t.Fatalf("metrics listener: %d", code)
	}
	for _, want := range []string{
		`traineed_http_requests_total{method="GET",pattern="GET /healthz",reason="none",status="200"} 1`,
		`traineed_http_requests_total{method="GET",pattern="unmatched",reason="none",status="404"} 1`,
		`traineed_build_info{`,
		`traineed_webhook_outbox_pending 0`,
		`traineed_db_pool_max_open_connections `,
		`go_goroutines `,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	must(t, cmd.Process.Signal(syscall.SIGTERM))
	must(t, cmd.Process.Signal(syscall.SIGTERM)) // end the drain
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v", err)
	}
}

// Every traineed_ metric the Grafana dashboard queries exists.
func TestGrafanaDashboardUsesTheMetrics(t *testing.T) {
	raw, err := os.ReadFile("../../docs/grafana-dashboard.json")
	must(t, err)
	var doc map[string]any
	must(t, json.Unmarshal(raw, &doc))
	s := storetest.SQLite(t)
	m := newServerMetrics(s)
	h := server.NewHandler(s, server.WithMetrics(m.http, true))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/healthz", nil))
	fams, err := m.reg.Gather()
	must(t, err)
	have := map[string]bool{}
	for _, f := range fams {
		have[f.GetName()] = true
	}
	used := regexp.MustCompile(`traineed_[a-z_]+`).FindAllString(string(raw), -1)
	if len(used) < 10 {
		t.Fatalf("the dashboard uses %d metrics", len(used))
	}
	for _, name := range used {
		base := regexp.MustCompile(`_(bucket|count|sum)$`).ReplaceAllString(name, "")
		if !have[name] && !have[base] {
			t.Errorf("the dashboard queries %s, which traineed does not export", name)
		}
	}
}

// A --metrics-addr that cannot be listened on fails the start before any
// demo key is made, and says which address.
func TestServeMetricsAddrTakenMakesNoKey(t *testing.T) {
	db := storetest.SQLiteURL(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer ln.Close()
	cmd := exec.Command(binary(t), "serve", "--demo", "--db", db, "--addr", "127.0.0.1:0", "--metrics-addr", ln.Addr().String())
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err == nil {
		t.Fatal("serve with a taken --metrics-addr succeeded")
	}
	if stdout.String() != "" || !strings.Contains(stderr.String(), "--metrics-addr") || !strings.Contains(stderr.String(), "address already in use") {
		t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
}
