package commands_test

import (
	"strings"
	"testing"
)

// The tracked-data endpoints are tested against a stub of the contract's
// response bodies (section 3): the server side is built separately.
func trackedStub(t *testing.T) *stubAPI {
	s := newStubAPI(t)
	s.handle("GET /public-api/trainees/41/weight-history", 200,
		`{"timestamp":1795255200,"traineeId":41,"from":"01-11-2026","to":"21-11-2026","unit":"KG","entries":[{"date":"01-11-2026","weight":81.4},{"date":"02-11-2026","weight":81}]}`)
	s.handle("GET /public-api/trainees/41/measurements", 200,
		`{"timestamp":1795255200,"traineeId":41,"from":"22-10-2026","to":"21-11-2026","measurements":[{"date":"01-11-2026","type":"CUSTOM","name":"Wrist","value":17,"unit":"CM"},{"date":"01-11-2026","type":"WAIST","name":null,"value":82.5,"unit":"CM"}]}`)
	s.handle("GET /public-api/trainees/41/nutrition", 200,
		`{"timestamp":1795255200,"traineeId":41,"date":"20-11-2026","meals":[{"meal":"BREAKFAST","items":[{"name":"Oats","quantity":80,"unit":"g","calories":300,"protein":10,"carbs":54,"fat":5},{"name":"Milk","quantity":200,"unit":"ml","calories":100,"protein":7,"carbs":10,"fat":3.5}],"totals":{"calories":400,"protein":17,"carbs":64,"fat":8.5}}],"totals":{"calories":400,"protein":17,"carbs":64,"fat":8.5}}`)
	s.handle("GET /public-api/trainees/42/nutrition", 200,
		`{"timestamp":1795255200,"traineeId":42,"date":"21-11-2026","meals":[],"totals":{"calories":0,"protein":0,"carbs":0,"fat":0}}`)
	s.handle("GET /public-api/trainees/41/average-steps", 200,
		`{"timestamp":1795255200,"traineeId":41,"from":"15-11-2026","to":"21-11-2026","averageSteps":8421,"daysWithData":5}`)
	s.handle("GET /public-api/trainees/42/average-steps", 200,
		`{"timestamp":1795255200,"traineeId":42,"from":"15-11-2026","to":"21-11-2026","averageSteps":null,"daysWithData":0}`)
	s.handle("GET /public-api/trainees/9/weight-history", 500, "", "X-Error-Reason", "trainee-not-found")
	s.handle("GET /public-api/trainees/41/measurements/", 404, "")
	return s
}

func TestTrackedCommands(t *testing.T) {
	s := trackedStub(t)
	h := newHarness(t, s.URL, stubKey)
	for _, tc := range []struct {
		args []string
		want string
		tty  bool // a terminal 100 columns wide
	}{
		{[]string{"weight", "41", "--from", "2026-11-01", "--to", "today"},
			"DATE        WEIGHT (KG)\n01-11-2026         81.4\n02-11-2026           81\n", true},
		{[]string{"weight", "41", "--from", "2026-11-01", "--to", "today"},
			"DATE\tWEIGHT (KG)\n01-11-2026\t81.4\n02-11-2026\t81\n", false},
		{[]string{"weight", "41", "-o", "json"},
			"{\n  \"traineeId\": 41,\n  \"from\": \"01-11-2026\",\n  \"to\": \"21-11-2026\",\n  \"unit\": \"KG\",\n  \"entries\": [\n    {\n      \"date\": \"01-11-2026\",\n      \"weight\": 81.4\n    },\n    {\n      \"date\": \"02-11-2026\",\n      \"weight\": 81\n    }\n  ]\n}\n", false},
		{[]string{"weight", "41", "-o", "yaml"},
			"traineeId: 41\nfrom: 01-11-2026\nto: 21-11-2026\nunit: KG\nentries:\n  - date: 01-11-2026\n    weight: 81.4\n  - date: 02-11-2026\n    weight: 81\n", false},
		{[]string{"weight", "41", "-o", "csv"},
			"date,weight,unit\n01-11-2026,81.4,KG\n02-11-2026,81,KG\n", false},
		{[]string{"measurements", "41", "--type", "waist", "--from", "yesterday"},
			"DATE        TYPE    NAME   VALUE  UNIT\n01-11-2026  Custom  Wrist     17  CM\n01-11-2026  Waist   -       82.5  CM\n", true},
		{[]string{"measurements", "41", "-o", "json"},
			"{\n  \"traineeId\": 41,\n  \"from\": \"22-10-2026\",\n  \"to\": \"21-11-2026\",\n  \"measurements\": [\n    {\n      \"date\": \"01-11-2026\",\n      \"type\": \"CUSTOM\",\n      \"name\": \"Wrist\",\n      \"value\": 17,\n      \"unit\": \"CM\"\n    },\n    {\n      \"date\": \"01-11-2026\",\n      \"type\": \"WAIST\",\n      \"name\": null,\n      \"value\": 82.5,\n      \"unit\": \"CM\"\n    }\n  ]\n}\n", false},
		{[]string{"measurements", "41", "-o", "csv"},
			"date,type,name,value,unit\n01-11-2026,CUSTOM,Wrist,17,CM\n01-11-2026,WAIST,,82.5,CM\n", false},
		{[]string{"measurements", "41", "-o", "yaml"},
			"traineeId: 41\nfrom: 22-10-2026\nto: 21-11-2026\nmeasurements:\n  - date: 01-11-2026\n    type: CUSTOM\n    name: Wrist\n    value: 17\n    unit: CM\n  - date: 01-11-2026\n    type: WAIST\n    name: null\n    value: 82.5\n    unit: CM\n", false},
		{[]string{"nutrition", "41", "--date", "yesterday"},
			"MEAL       ITEM             QTY  UNIT  KCAL  PROTEIN  CARBS  FAT\n" +
				"BREAKFAST  Oats              80  g      300       10     54    5\n" +
				"           Milk             200  ml     100        7     10  3.5\n" +
				"           breakfast total              400       17     64  8.5\n" +
				"TOTAL                                   400       17     64  8.5\n", true},
		{[]string{"nutrition", "41", "--date", "yesterday"},
			"MEAL\tITEM\tQTY\tUNIT\tKCAL\tPROTEIN\tCARBS\tFAT\nBREAKFAST\tOats\t80\tg\t300\t10\t54\t5\n" +
				"\tMilk\t200\tml\t100\t7\t10\t3.5\n\tbreakfast total\t\t\t400\t17\t64\t8.5\nTOTAL\t\t\t\t400\t17\t64\t8.5\n", false},
		{[]string{"nutrition", "41", "-o", "csv"},
			"date,meal,name,quantity,unit,calories,protein,carbs,fat\n20-11-2026,BREAKFAST,Oats,80,g,300,10,54,5\n20-11-2026,BREAKFAST,Milk,200,ml,100,7,10,3.5\n", false},
		{[]string{"nutrition", "42", "-o", "json"},
			"{\n  \"traineeId\": 42,\n  \"date\": \"21-11-2026\",\n  \"meals\": [],\n  \"totals\": {\n    \"calories\": 0,\n    \"protein\": 0,\n    \"carbs\": 0,\n    \"fat\": 0\n  }\n}\n", false},
		{[]string{"nutrition", "42", "-o", "yaml"},
			"traineeId: 42\ndate: 21-11-2026\nmeals: []\ntotals:\n  calories: 0\n  protein: 0\n  carbs: 0\n  fat: 0\n", false},
		{[]string{"steps", "41"}, "FROM        TO          AVERAGE STEPS  DAYS WITH DATA\n15-11-2026  21-11-2026           8421               5\n", true},
		{[]string{"steps", "42"}, "FROM        TO          AVERAGE STEPS  DAYS WITH DATA\n15-11-2026  21-11-2026              -               0\n", true},
		{[]string{"steps", "42", "-o", "json"},
			"{\n  \"traineeId\": 42,\n  \"from\": \"15-11-2026\",\n  \"to\": \"21-11-2026\",\n  \"averageSteps\": null,\n  \"daysWithData\": 0\n}\n", false},
		{[]string{"steps", "41", "-o", "csv"}, "traineeId,from,to,averageSteps,daysWithData\n41,15-11-2026,21-11-2026,8421,5\n", false},
		{[]string{"steps", "42", "-o", "yaml"}, "traineeId: 42\nfrom: 15-11-2026\nto: 21-11-2026\naverageSteps: null\ndaysWithData: 0\n", false},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := h.runWith(runOpts{tty: tc.tty}, tc.args...).expect(t, 0)
			if r.out != tc.want {
				t.Errorf("stdout:\n%s\nwant:\n%s", r.out, tc.want)
			}
			if r.err != "" && !tc.tty {
				t.Errorf("stderr: %q", r.err)
			}
		})
	}
	equalLines(t, "requests", s.requestLines(), []string{
		"GET /public-api/trainees/41/weight-history?from=01-11-2026&to=21-11-2026",
		"GET /public-api/trainees/41/weight-history?from=01-11-2026&to=21-11-2026",
		"GET /public-api/trainees/41/weight-history",
		"GET /public-api/trainees/41/weight-history",
		"GET /public-api/trainees/41/weight-history",
		"GET /public-api/trainees/41/measurements?from=20-11-2026&type=WAIST",
		"GET /public-api/trainees/41/measurements",
		"GET /public-api/trainees/41/measurements",
		"GET /public-api/trainees/41/measurements",
		"GET /public-api/trainees/41/nutrition?date=20-11-2026",
		"GET /public-api/trainees/41/nutrition?date=20-11-2026",
		"GET /public-api/trainees/41/nutrition",
		"GET /public-api/trainees/42/nutrition",
		"GET /public-api/trainees/42/nutrition",
		"GET /public-api/trainees/41/average-steps",
		"GET /public-api/trainees/42/average-steps",
		"GET /public-api/trainees/42/average-steps",
		"GET /public-api/trainees/41/average-steps",
		"GET /public-api/trainees/42/average-steps",
	})
}

func TestTrackedOnTerminal(t *testing.T) {
	s := trackedStub(t)
	h := newHarness(t, s.URL, stubKey)
	r := h.runWith(runOpts{tty: true}, "weight", "41").expect(t, 0)
	if r.err != "Weight of trainee 41, 01-11-2026 to 21-11-2026: 2 days with data\n" {
		t.Errorf("stderr: %q", r.err)
	}
	r = h.runWith(runOpts{tty: true}, "nutrition", "42").expect(t, 0)
	if r.err != "Nutrition of trainee 42 on 21-11-2026: nothing logged\n" || r.out != "MEAL   ITEM  QTY  UNIT  KCAL  PROTEIN  CARBS  FAT\nTOTAL                      0        0      0    0\n" {
		t.Errorf("%s", r)
	}
}

func TestTrackedErrors(t *testing.T) {
	s := trackedStub(t)
	h := newHarness(t, s.URL, stubKey)
	r := h.run("weight", "9").expect(t, 4)
	if r.out != "" || r.err != "error: trainee 9 not found\n" {
		t.Errorf("%s", r)
	}
	for _, args := range [][]string{
		{"weight", "41", "--from", "31-02-2026"},
		{"weight", "41", "--to", "tomorrow"},
		{"nutrition", "41", "--date", "2026/11/01"},
		{"measurements", "41", "--from", "1-11-2026"},
		{"steps"},
		{"steps", "41", "42"},
		{"steps", "abc"},
	} {
		r := h.run(args...).expect(t, 2)
		if r.out != "" || !strings.HasPrefix(r.err, "error: ") {
			t.Errorf("%v: %s", args, r)
		}
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("%d requests: a usage error must send nothing", n)
	}
}
