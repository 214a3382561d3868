package form

import (
	"fmt"

	"github.com/traineed/traineed/api"
)

// phoneValue reads the phone input as traineectl's --phone and a bulk
// cell do (api.PhoneInput, the one parser of all three): with + as typed
// (the API checks it); without, a national number of the company's
// country, by the time zone of the key in use. Without a known country
// (no key read, a zone such as UTC) the text goes as typed, and the API's
// check says it wants the international form.
func (f *Model) phoneValue(text string) (any, string) {
	v, _, err := api.PhoneInput(text, func() (string, error) {
		if k := f.Opt.Key; k != nil {
			if r, ok := api.PhoneRegionOfZone(k.TimeZone); ok {
				return r, nil
			}
		}
		return "", nil
	})
	if err != nil {
		return nil, fmt.Sprintf("%d %v", api.CodeInvalidPhone, err)
	}
	return v, ""
}
