package server_test

import (
	"strconv"
	"testing"

	"github.com/traineed/traineed/api"
)

// Phone numbers over the API: stored and returned in E.164 whatever the
// international form sent (a national prefix after the country code
// dropped), unique on that form (the interface's duplicate 400, 1009, in a
// create and in an update), and refused with 1006 when libphonenumber finds
// no country code or a length the country does not use.
func TestPhoneNumbersInE164(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		b := newTraineeBody("Ada Park")
		b["phoneNumber"] = "+44 (0)7700 900123"
		ada := e.create(e.keyA, b)
		if ada.PhoneNumber == nil || *ada.PhoneNumber != "+447700900123" {
			t.Fatalf("stored %v", ada.PhoneNumber)
		}
		if got := e.do("GET", "/public-api/trainees/"+strconv.FormatInt(ada.ID, 10), e.keyA, nil).expect(t, 200).trainee(t); *got.PhoneNumber != "+447700900123" {
			t.Fatalf("read back %v", *got.PhoneNumber)
		}
		dup := newTraineeBody("Bob Park")
		dup["phoneNumber"] = "+447700900123"
		e.do("POST", api.PathTrainees, e.keyA, dup).expectError(t, api.CodePhoneTaken, "phoneNumber")
		bob := e.create(e.keyA, newTraineeBody("Bob Park"))
		e.do("PUT", "/public-api/trainees/"+strconv.FormatInt(bob.ID, 10), e.keyA, map[string]any{"phoneNumber": "+44 7700 900 123"}).
			expectError(t, api.CodePhoneTaken, "phoneNumber")
		for _, bad := range []string{"+99912345678", "+15550100", "07700 900123"} {
			body := newTraineeBody("Cy Park")
			body["phoneNumber"] = bad
			e.do("POST", api.PathTrainees, e.keyA, body).expectError(t, api.CodeInvalidPhone, "phoneNumber")
		}
	})
}
