package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// How a bulk file's cells and the flags read trainers by name and phone
// numbers in a region: one reading for both.

// cellTrainers looks up the trainerId cells that name a trainer, as
// --trainer does (whole name, any case): the company's trainers are read
// once (GET /public-api/trainers), at the first such cell.
func cellTrainers(ctx context.Context, f *cmdutil.Factory) func(name string) (int64, error) {
	var (
		byName map[string][]int64
		err    error
	)
	return func(name string) (int64, error) {
		if byName == nil && err == nil {
			byName, err = trainersByName(ctx, f)
		}
		if err != nil {
			return 0, err
		}
		switch ids := byName[strings.ToLower(strings.TrimSpace(name))]; len(ids) {
		case 1:
			return ids[0], nil
		case 0:
			return 0, fmt.Errorf("no trainer is named %q (traineectl trainers lists them)", name)
		default:
			return 0, fmt.Errorf("%d trainers are named %q: give the trainer's id", len(ids), name)
		}
	}
}

// trainersByName is the company's trainers by lower-cased whole name,
// from the factory's one read of them (f.TrainerNames).
func trainersByName(ctx context.Context, f *cmdutil.Factory) (map[string][]int64, error) {
	names := f.TrainerNames(ctx)
	if names == nil {
		return nil, errors.New("the trainers could not be read to find a trainer by name: give the trainer's id")
	}
	m := map[string][]int64{}
	for id, name := range names {
		k := strings.ToLower(strings.TrimSpace(name))
		m[k] = append(m[k], id)
	}
	return m, nil
}

// phoneRegion is the region of ReadOptions.PhoneRegion (phoneRegionFunc
// over the run's one read of the key).
func (o *BulkOptions) phoneRegion(ctx context.Context, f *cmdutil.Factory) func() (string, error) {
	return phoneRegionFunc(o.PhoneRegion, func() (*api.CurrentKey, error) { return o.currentKey(ctx, f, false) })
}

// phoneRegionFunc is the region national phone numbers are read in, by
// the bulk cells and the --phone flags alike (api.PhoneInput): flag
// (--phone-region), else the country of the company's time zone, read
// with key (GET /keys/current) at the first national number only.
func phoneRegionFunc(flag string, key func() (*api.CurrentKey, error)) func() (string, error) {
	var (
		region string
		err    error
		asked  bool
	)
	return func() (string, error) {
		if flag != "" {
			return strings.ToUpper(flag), nil
		}
		if !asked {
			asked = true
			region, err = companyPhoneRegion(key)
		}
		return region, err
	}
}

// companyPhoneRegion is the country of the company's time zone.
func companyPhoneRegion(key func() (*api.CurrentKey, error)) (string, error) {
	k, err := key()
	if err != nil {
		return "", fmt.Errorf("reading the company's time zone for its phone region: %w", err)
	}
	region, ok := api.PhoneRegionOfZone(k.TimeZone)
	if !ok {
		return "", &cmdutil.UsageError{Err: fmt.Errorf("a number without + needs --phone-region: the company's time zone %s names no one country", k.TimeZone)}
	}
	return region, nil
}

// checkPhoneRegion refuses a --phone-region that names no country.
func checkPhoneRegion(region string) error {
	if region != "" && !api.PhoneRegionKnown(region) {
		return cmdutil.Usagef("--phone-region %q is not a country code libphonenumber knows (GB, US, DE, ...)", region)
	}
	return nil
}

// phoneFlag reads the text of a --phone flag as a bulk cell is read
// (api.PhoneInput, in region: phoneRegionFunc): a national number becomes
// E.164, said on stderr; one that is no number of the region is a usage
// error quoting it.
func phoneFlag(ctx context.Context, f *cmdutil.Factory, region, text string) (string, error) {
	key := func() (*api.CurrentKey, error) {
		c, err := f.Client()
		if err != nil {
			return nil, err
		}
		return c.CurrentKey(ctx)
	}
	inRegion, regionErr := phoneRegionFunc(region, key), error(nil)
	v, converted, err := api.PhoneInput(text, func() (string, error) {
		r, err := inRegion()
		regionErr = err
		return r, err
	})
	var ue *cmdutil.UsageError
	switch {
	case err != nil && err == regionErr && errors.As(err, &ue): // no region to read it in
		return "", cmdutil.Usagef("--phone %q: %v", strings.TrimSpace(text), ue.Err)
	case err != nil && err == regionErr: // the key could not be read
		return "", err
	case err != nil:
		return "", cmdutil.Usagef("--phone %v", err)
	}
	if converted {
		fmt.Fprintf(f.IOStreams.ErrOut, "note: --phone %s read as %s\n", api.EscapeText(strings.TrimSpace(text)), v)
	}
	return v, nil
}

// notePhones says on stderr how national phone numbers were read: the
// first ten, and how many in all.
func notePhones(f *cmdutil.Factory, name string, converted []string) {
	for i, c := range converted {
		if i == 10 {
			fmt.Fprintf(f.IOStreams.ErrOut, "note: %s: %d phone numbers read in the phone region in all\n", name, len(converted))
			break
		}
		fmt.Fprintf(f.IOStreams.ErrOut, "note: %s: phone number %s\n", name, api.EscapeText(c))
	}
}
