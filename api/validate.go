package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/nyaruka/phonenumbers"
)

// Field limits of contract section 2.
const (
	MaxNameLength     = 100
	MaxEmailLength    = 254
	MinPasswordLength = 8
	MaxPasswordLength = 128
)

var (
	emailPattern = regexp.MustCompile(`^[^@\s<>()\[\],;:"\\]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.[A-Za-z]{2,63}$`)
	// phoneInternational is a number PhoneE164 parses: a + then digits.
	phoneInternational = regexp.MustCompile(`^\+[0-9]{1,17}$`)
	phoneNational      = regexp.MustCompile(`^[0-9]{1,17}$`)
	phoneStrip         = strings.NewReplacer(" ", "", "-", "", ".", "", "(", "", ")", "")
	minBirthDate       = Date{1900, 1, 1}
	// MinExpirationDate and MaxExpirationDate bound expirationDate.
	MinExpirationDate = Date{1900, 1, 1}
	MaxExpirationDate = Date{2199, 12, 31}
)

// NormalizeEmail trims and lower-cases an address.
func NormalizeEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// NormalizePhone is s in E.164 when it is an international number that
// PhoneE164 accepts (the form stored and compared); else s without spaces,
// dashes, dots and parentheses, for checkPhone to refuse.
func NormalizePhone(s string) string {
	if e, problem := PhoneE164(s); problem == "" {
		return e
	}
	return phoneStrip.Replace(strings.TrimSpace(s))
}

// PhoneE164 reads s as an international phone number (a + and the country
// code first; spaces, dashes, dots and parentheses allowed, and a national
// prefix after the country code, "+44 (0)7700 900123", dropped) with
// libphonenumber's metadata, and gives it in E.164. A number is accepted
// when its length is one that its country's plan uses for full numbers
// (IsPossibleNumberWithReason: IS_POSSIBLE), not only when the number is
// allocated: IsValidNumber would refuse fictional ranges such as Ofcom's
// 07700 900xxx, and every range allocated after the metadata. problem is
// "" when accepted, else the 1006's message.
func PhoneE164(s string) (e164, problem string) {
	stripped := phoneStrip.Replace(strings.TrimSpace(s))
	if !phoneInternational.MatchString(stripped) {
		return stripped, phoneFormatProblem
	}
	n, err := phonenumbers.Parse(stripped, "")
	if err != nil {
		return stripped, "phone number has no known country code: " + phoneFormatHint
	}
	switch phonenumbers.IsPossibleNumberWithReason(n) {
	case phonenumbers.IS_POSSIBLE:
		// A zero kept after the country code ("+44 0 77009001", read as
		// an Italian-style leading zero) is a national prefix left in
		// unless the plan has such numbers: it must then be a valid one.
		if n.GetItalianLeadingZero() && !phonenumbers.IsValidNumber(n) {
			return stripped, fmt.Sprintf("phone number is not a full number of its country code +%d: give the whole international number", n.GetCountryCode())
		}
		return phonenumbers.Format(n, phonenumbers.E164), ""
	case phonenumbers.INVALID_COUNTRY_CODE:
		return stripped, "phone number has no known country code: " + phoneFormatHint
	case phonenumbers.TOO_LONG:
		return stripped, fmt.Sprintf("phone number is too long for its country code +%d", n.GetCountryCode())
	}
	// TOO_SHORT, IS_POSSIBLE_LOCAL_ONLY (dialled within an area only),
	// INVALID_LENGTH.
	return stripped, fmt.Sprintf("phone number is not a full number of its country code +%d: give the whole international number", n.GetCountryCode())
}

// PhoneE164In is PhoneE164 for a number that may be national: one
// without a leading + is read as a number of region (an ISO 3166 code,
// "GB": "07700 900123" is +447700900123) when region is given. The API
// takes international numbers only; the clients' bulk import converts.
func PhoneE164In(s, region string) (e164, problem string) {
	stripped := phoneStrip.Replace(strings.TrimSpace(s))
	if region == "" || strings.HasPrefix(stripped, "+") {
		return PhoneE164(s)
	}
	if !phoneNational.MatchString(stripped) {
		return stripped, phoneFormatProblem
	}
	n, err := phonenumbers.Parse(stripped, strings.ToUpper(region))
	if err != nil {
		return stripped, fmt.Sprintf("phone number is not a number of region %s: %s", strings.ToUpper(region), phoneFormatHint)
	}
	return PhoneE164("+" + strconv.Itoa(int(n.GetCountryCode())) + phonenumbers.GetNationalSignificantNumber(n))
}

// PhoneInput reads a phone number as a person types it, in traineectl's
// --phone flags and its bulk cells alike (the one parser of both): a
// number with its leading + stays as written (the server validates and
// normalises it), and one without is a national number of the region
// that region gives (asked only then: --phone-region, else the company's
// country), returned in E.164 with converted set. A national number that
// is no full number of the region is an error quoting it; region's error
// is returned as it is. Without a region ("") the text stays as written.
func PhoneInput(s string, region func() (string, error)) (value string, converted bool, err error) {
	stripped := phoneStrip.Replace(strings.TrimSpace(s))
	if stripped == "" || strings.HasPrefix(stripped, "+") || region == nil {
		return s, false, nil
	}
	r, err := region()
	if err != nil {
		return "", false, err
	}
	if r == "" {
		return s, false, nil
	}
	e164, problem := PhoneE164In(s, r)
	if problem != "" {
		return "", false, fmt.Errorf("%q, read as a national number of %s: %s", strings.TrimSpace(s), strings.ToUpper(r), problem)
	}
	return e164, true, nil
}

// PhoneRegionOfZone is the country whose national numbers a company in
// time zone zone writes (zone.tab's one country of each zone): "Europe/
// London" is GB. ok is false for a zone without one (UTC, a link).
func PhoneRegionOfZone(zone string) (region string, ok bool) {
	region, ok = zoneCountry[zone]
	return region, ok
}

// PhoneRegionKnown reports whether region is a region libphonenumber has
// a numbering plan for ("GB", any case).
func PhoneRegionKnown(region string) bool {
	return phonenumbers.GetCountryCodeForRegion(strings.ToUpper(region)) != 0
}

const (
	phoneFormatHint    = "give the international format, like +447700900123"
	phoneFormatProblem = "phone number must be in international format, like +447700900123"
)

// PhoneDigits returns q's digits when q looks like a phone number (at least
// three digits once separators and a leading + are removed, nothing else),
// else "".
func PhoneDigits(q string) string {
	d := strings.TrimPrefix(phoneStrip.Replace(strings.TrimSpace(q)), "+")
	if len(d) < 3 {
		return ""
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return ""
		}
	}
	return d
}

// checkName checks a person's name (a trainee's, a trainer's): no
// invisible character but a joiner inside an Indic or Arabic-script word
// (1016, see nameInvisibleChar; looked for before trimming, as a control
// character is), then trimmed, 1 to 100 characters (1007).
func checkName(v *ValidationError, name *string) {
	if !checkNameChars(v, "name", *name) {
		return
	}
	*name = strings.TrimSpace(*name)
	if n := utf8.RuneCountInString(*name); n == 0 || n > MaxNameLength {
		v.Add(CodeTextLength, "name", "name must be 1 to %d characters", MaxNameLength)
	}
}

// checkEmail normalises an address and checks it: no invisible character
// anywhere, the trimmed part included (invisibleChar), then the pattern
// and the length; each is a 1002.
func checkEmail(v *ValidationError, email *string) {
	clean := checkEmailChars(v, *email)
	*email = NormalizeEmail(*email)
	if clean && (len(*email) > MaxEmailLength || !emailPattern.MatchString(*email)) {
		v.Add(CodeInvalidEmail, "email", "e-mail address is not valid")
	}
}

func checkPassword(v *ValidationError, p string) {
	if n := utf8.RuneCountInString(p); n < MinPasswordLength || n > MaxPasswordLength {
		v.Add(CodePasswordLength, "password", "password must be %d to %d characters", MinPasswordLength, MaxPasswordLength)
	}
}

// checkPhone normalises a phone number and checks it: no invisible
// character anywhere, the trimmed part included (invisibleChar), then
// E.164; each is a 1006.
func checkPhone(v *ValidationError, p *string) {
	clean := checkPhoneChars(v, *p)
	var problem string
	*p, problem = PhoneE164(*p)
	if clean && problem != "" {
		v.Add(CodeInvalidPhone, "phoneNumber", "%s", problem)
	}
}

func checkBirth(v *ValidationError, d Date, today Date) {
	if d.Before(minBirthDate) || d.After(today) {
		v.Add(CodeInvalidDate, "dateOfBirth", "date of birth must be between 01-01-1900 and today")
	}
}

func checkExpiration(v *ValidationError, d Date) {
	if d.Before(MinExpirationDate) || d.After(MaxExpirationDate) {
		v.Add(CodeInvalidDate, "expirationDate", "expiration date must be between %s and %s", MinExpirationDate, MaxExpirationDate)
	}
}

func checkTrainer(v *ValidationError, id int64) {
	if id <= 0 {
		v.Add(CodeUnknownTrainer, "trainerId", "trainer %d is not a trainer of this company", id)
	}
}

// ValidateCreate normalises r in place (trimmed name, lower-case e-mail,
// phone without separators, KG by default) and checks every rule of the
// contract that needs no database. today is the company's calendar day.
func ValidateCreate(r *CreateRequest, today Date) error {
	v := &ValidationError{}
	validateCreate(v, r, today, map[string]bool{})
	return v.Err()
}

// validateCreate checks the fields that parsing did not already report
// (skip), and normalises them in place (see validateCreateFields).
func validateCreate(v *ValidationError, r *CreateRequest, today Date, skip map[string]bool) {
	p := r.Patch()
	validateCreateFields(v, &p, today, skip)
	setFrom(reflect.ValueOf(r).Elem(), &p)
}

// object reads a body that must be exactly one JSON object.
func object(body []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var m map[string]json.RawMessage
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, Invalid(CodeBadJSON, "", "body must be one JSON object")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, Invalid(CodeBadJSON, "", "body must be one JSON object and nothing after it")
	}
	return m, nil
}

// fields decodes the members of one JSON object, recording type errors.
type fields struct {
	m    map[string]json.RawMessage
	v    *ValidationError
	skip map[string]bool // fields already reported
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// present reports whether name is in the body and not null; a null for a
// field that allows none is reported as missing when nullable is false.
func (f *fields) present(name string, required, nullable bool) (raw json.RawMessage, ok bool) {
	raw, in := f.m[name]
	switch {
	case !in && required:
		f.v.Add(CodeRequired, name, "%s is required", name)
		f.skip[name] = true
	case in && isNull(raw) && (required || !nullable):
		f.v.Add(CodeRequired, name, "%s must not be null", name)
		f.skip[name] = true
	case in && !isNull(raw):
		return raw, true
	}
	return nil, false
}

func (f *fields) typeError(name, want string) {
	f.v.Add(CodeBadJSON, name, "%s must be %s", name, want)
	f.skip[name] = true
}

func (f *fields) str(name string, raw json.RawMessage, dst *string) bool {
	if err := json.Unmarshal(raw, dst); err != nil {
		f.typeError(name, "a string")
		return false
	}
	if !checkText(f.v, name, *dst) {
		f.skip[name] = true
		return false
	}
	return true
}

func (f *fields) boolean(name string, raw json.RawMessage, dst *bool) bool {
	if err := json.Unmarshal(raw, dst); err != nil {
		f.typeError(name, "true or false")
		return false
	}
	return true
}

func (f *fields) integer(name string, raw json.RawMessage, dst *int64) bool {
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '"' {
		f.typeError(name, "an integer") // json.Number would take a quoted number
		return false
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		f.typeError(name, "an integer")
		return false
	}
	i, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil {
		f.typeError(name, "an integer")
		return false
	}
	*dst = i
	return true
}

func (f *fields) date(name string, raw json.RawMessage, dst *Date) bool {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		f.typeError(name, "a dd-MM-yyyy string")
		return false
	}
	d, err := ParseDate(s)
	if err != nil {
		f.v.Add(CodeInvalidDate, name, "%s must be a real date written dd-MM-yyyy", name)
		f.skip[name] = true
		return false
	}
	*dst = d
	return true
}

// ParseCreate reads and validates a POST /trainees body. The result is
// normalised; its Password is still in clear. On a *ValidationError the
// request is returned too, holding what could be read (so that a caller can
// add the problems only the database can find).
func ParseCreate(body []byte, today Date) (*CreateRequest, error) {
	m, err := object(body)
	if err != nil {
		return nil, err
	}
	f := &fields{m: m, v: &ValidationError{}, skip: map[string]bool{}}
	var p TraineePatch
	for _, pf := range CreateFields {
		raw, ok := f.present(pf.Name, pf.Create == CreateRequired, pf.Create != CreateRequired)
		if !ok {
			continue
		}
		val, ok := f.value(pf, raw)
		switch {
		case !ok:
		case len(pf.Enum) > 0 && val == "": // only the default may be absent
			f.v.Add(CodeInvalidEnum, pf.Name, "%s must be %s", pf.Name, strings.Join(pf.Enum, " or "))
			f.skip[pf.Name] = true
		default:
			pf.Set(&p, val)
		}
	}
	validateCreateFields(f.v, &p, today, f.skip)
	r := CreateRequestOf(p)
	return &r, f.v.Err()
}

// patchRules are the rules of the TraineePatch fields that have one (an
// enum's values are checked for every enum), run as ParseUpdate reads the
// field; they normalise the value in place.
var patchRules = map[string]func(v *ValidationError, p *TraineePatch, today Date){
	"name":           func(v *ValidationError, p *TraineePatch, _ Date) { checkName(v, &p.Name.Value) },
	"email":          func(v *ValidationError, p *TraineePatch, _ Date) { checkEmail(v, &p.Email.Value) },
	"password":       func(v *ValidationError, p *TraineePatch, _ Date) { checkPassword(v, p.Password.Value) },
	"phoneNumber":    func(v *ValidationError, p *TraineePatch, _ Date) { checkPhone(v, &p.PhoneNumber.Value) },
	"dateOfBirth":    func(v *ValidationError, p *TraineePatch, today Date) { checkBirth(v, p.DateOfBirth.Value, today) },
	"expirationDate": func(v *ValidationError, p *TraineePatch, _ Date) { checkExpiration(v, p.ExpirationDate.Value) },
	"trainerId":      func(v *ValidationError, p *TraineePatch, _ Date) { checkTrainer(v, p.TrainerID.Value) },
}

// value decodes a present, non-null member as the field's kind.
func (f *fields) value(pf *PatchField, raw json.RawMessage) (any, bool) {
	switch pf.Kind {
	case KindDate:
		var d Date
		ok := f.date(pf.Name, raw, &d)
		return d, ok
	case KindInteger:
		var n int64
		ok := f.integer(pf.Name, raw, &n)
		return n, ok
	case KindBoolean:
		var b bool
		ok := f.boolean(pf.Name, raw, &b)
		return b, ok
	default:
		var s string
		ok := f.str(pf.Name, raw, &s)
		return s, ok
	}
}

// ParseUpdate reads and validates a PUT /trainees/{id} body into a
// TraineePatch: absent fields are left alone, null clears the nullable
// fields and is a 1001 for the others, and every field is checked by its
// kind and rule (patchRules), in the order of TraineePatch. Like
// ParseCreate, it returns what it could read along with a
// *ValidationError. A new password without forcePasswordChange sets it.
func ParseUpdate(body []byte, today Date) (*TraineePatch, error) {
	m, err := object(body)
	if err != nil {
		return nil, err
	}
	f := &fields{m: m, v: &ValidationError{}, skip: map[string]bool{}}
	p := &TraineePatch{}
	for i := range TraineePatchFields {
		pf := &TraineePatchFields[i]
		raw, in := m[pf.Name]
		switch {
		case !in:
			continue
		case isNull(raw) && pf.Nullable:
			pf.Set(p, nil)
			continue
		case isNull(raw):
			f.v.Add(CodeRequired, pf.Name, "%s must not be null", pf.Name)
			continue
		}
		val, ok := f.value(pf, raw)
		if !ok {
			continue
		}
		pf.Set(p, val)
		if len(pf.Enum) > 0 && !slices.Contains(pf.Enum, val.(string)) {
			f.v.Add(CodeInvalidEnum, pf.Name, "%s must be %s", pf.Name, strings.Join(pf.Enum, " or "))
		}
		if rule := patchRules[pf.Name]; rule != nil {
			rule(f.v, p, today)
		}
	}
	if err := f.v.Err(); err != nil {
		return p, err
	}
	if p.Password.Set && !p.ForcePasswordChange.Set {
		p.ForcePasswordChange = Val(true)
	}
	return p, nil
}
