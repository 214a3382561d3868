package api

import (
	"fmt"
	"strings"
	"time"
)

// CompanyEnvelope is the body of GET and PATCH /public-api/company.
type CompanyEnvelope struct {
	Timestamp int64    `json:"timestamp"`
	Company   *Company `json:"company"`
}

// CompanyPatch is a change to the company's settings; nil fields are left
// alone.
type CompanyPatch struct {
	Name     *string `json:"name,omitempty"`
	TimeZone *string `json:"timeZone,omitempty"`
}

// ParseCompanyPatch reads PATCH /public-api/company: name (1 to 100
// characters), timeZone (an IANA name, 1004).
func ParseCompanyPatch(body []byte) (*CompanyPatch, error) {
	m, err := object(body)
	if err != nil {
		return nil, err
	}
	f := &fields{m: m, v: &ValidationError{}, skip: map[string]bool{}}
	p := &CompanyPatch{}
	if raw, ok := f.present("name", false, false); ok {
		var s string
		if f.companyName(raw, &s) {
			p.Name = &s
		}
	}
	if raw, ok := f.present("timeZone", false, false); ok {
		var s string
		if f.str("timeZone", raw, &s) {
			s = strings.TrimSpace(s)
			if err := CheckTimeZone(s); err != nil {
				f.v.Add(CodeInvalidEnum, "timeZone", "%s", err.Error())
			}
			p.TimeZone = &s
		}
	}
	return p, f.v.Err()
}

// CheckTimeZone reports whether zone is an IANA time zone name.
func CheckTimeZone(zone string) error {
	if _, err := time.LoadLocation(zone); err != nil || zone == "" || zone == "Local" {
		return fmt.Errorf("unknown time zone %q: want an IANA name like Europe/London", zone)
	}
	return nil
}
