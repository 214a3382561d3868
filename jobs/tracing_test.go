package jobs_test

import (
	"strconv"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/jobs"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// TestEvaluationSpans: an evaluation of the time automations is a span,
// with a child per automation saying how many runs it fired, and the
// store's statements under them.
func TestEvaluationSpans(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ten := storetest.SetupTenants(t, s)
		soon := api.Today(time.Now(), time.UTC).AddDays(3)
		n := storetest.NewTrainee("ends soon", "ends.soon@trace.example")
		n.ExpirationDate = &soon
		storetest.MustCreate(t, s, ten.A, n)
		a := mustAutomation(t, s, ten.A, api.AutomationSpec{Name: "a week before", Enabled: true,
			TriggerType: api.TriggerExpirationApproaching, Days: ptr(7), ActionType: api.ActionDisableTrainee})

		exp := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
		s.SetTracerProvider(tp)
		ev := jobs.NewEvaluator(s, jobs.EvaluatorConfig{TracerProvider: tp})
		res, err := ev.Evaluate(ctx)
		if err != nil || res.Fired != 1 {
			t.Fatalf("evaluation: %+v, %v", res, err)
		}
		var root, child *tracetest.SpanStub
		spans := exp.GetSpans()
		for i, sp := range spans {
			switch sp.Name {
			case "automations.evaluate":
				root = &spans[i]
			case "automations.evaluate_automation":
				if attrOf(sp, "traineed.automation.id") == strconv.FormatInt(a.ID, 10) {
					child = &spans[i]
				}
			}
		}
		if root == nil || child == nil {
			t.Fatalf("spans: root %v, the automation's %v", root != nil, child != nil)
		}
		if child.Parent.SpanID() != root.SpanContext.SpanID() || attrOf(*child, "traineed.automations.fired") != "1" ||
			attrOf(*root, "traineed.automations.fired") != "1" {
			t.Errorf("automation span: parent %s (root %s), attributes %v; root %v", child.Parent.SpanID(), root.SpanContext.SpanID(), child.Attributes, root.Attributes)
		}
		var stmts int
		for _, sp := range spans {
			if attrOf(sp, "db.system") != "" && sp.Parent.SpanID() == child.SpanContext.SpanID() {
				stmts++
			}
		}
		if stmts == 0 {
			t.Errorf("no statement span under the automation's")
		}
	})
}

func attrOf(s tracetest.SpanStub, key string) string {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value.Emit()
		}
	}
	return ""
}
