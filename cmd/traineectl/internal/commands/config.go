package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/config"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

func newConfigCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config <command>",
		Short: "Manage saved profiles (server address and API key)",
		Long: `Profiles save a server address and an API key under a name, in
$XDG_CONFIG_HOME/traineectl/config.yaml (else ~/.config/traineectl/config.yaml),
readable by you only (permissions 0600). The current profile is used when
neither a flag nor an environment variable gives a setting; --profile picks
another one for one command.`,
		Example: `  traineectl config set-profile prod --base-url https://trainees.example.com   # asks for the key
  traineed key create --company 1 --name cli | traineectl config set-profile local --base-url http://127.0.0.1:8080 --api-key-stdin
  traineectl config use local
  traineectl config list
  traineectl config current
  traineectl config get base-url
  traineectl config delete-profile old
  traineectl --profile prod search ada`,
	}
	cmd.AddCommand(newConfigSetProfileCmd(f, nil), newConfigUseCmd(f, nil), newConfigListCmd(f, nil),
		newConfigDeleteProfileCmd(f, nil), newConfigCurrentCmd(f, nil), newConfigGetCmd(f, nil))
	return cmd
}

// ConfigSetProfileOptions are the inputs of `traineectl config
// set-profile`; a nil setting is left as it is.
type ConfigSetProfileOptions struct {
	Name            string
	BaseURL, APIKey *string
	// APIKeyStdin reads the key from the first line of stdin.
	APIKeyStdin bool
	// KeepCurrent leaves the current profile as it is, even when there is
	// none (keys create --save-profile: a key made for someone else never
	// becomes the maker's own).
	KeepCurrent bool
}

func newConfigSetProfileCmd(f *cmdutil.Factory, runF func(*ConfigSetProfileOptions) error) *cobra.Command {
	var baseURL, apiKey string
	o := &ConfigSetProfileOptions{}
	cmd := &cobra.Command{
		Use:   "set-profile NAME [--base-url URL] [--api-key-stdin | --api-key KEY]",
		Short: "Create or change a profile",
		Long: `Create the profile NAME or change the settings given. The first profile
created becomes the current one.

Keep the key out of your shell history and of ps: give it on stdin with
--api-key-stdin, or, on a terminal, leave it out and type it at the prompt
(nothing is echoed; an empty answer keeps the profile's key). --api-key KEY
works too, but the key is then visible to other users of the machine.`,
		Example: `  traineectl config set-profile prod --base-url https://trainees.example.com   # then type the key
  traineectl config set-profile prod --api-key-stdin < key.txt                  # rotate the key
  traineed key create --company 1 --name cli | traineectl config set-profile local --api-key-stdin`,
		Args:              cmdutil.ExactArgs(1, "a profile name"),
		ValidArgsFunction: completeProfiles(f, true),
		RunE: func(cmd *cobra.Command, args []string) error {
			fs := cmd.Flags()
			if o.APIKeyStdin && fs.Changed("api-key") {
				return cmdutil.Usagef("--api-key and --api-key-stdin cannot be used together")
			}
			o.Name = args[0]
			o.BaseURL = ifChanged(fs, "base-url", &baseURL)
			o.APIKey = ifChanged(fs, "api-key", &apiKey)
			return runWith(cmd.Context(), f, o, runF, runConfigSetProfile)
		},
	}
	cmd.Flags().StringVar(&baseURL, "base-url", "", "address of the trainee API, like https://trainees.example.com")
	cmd.Flags().StringVar(&apiKey, "api-key", "", "API key (pk_...); visible in shell history and ps: prefer --api-key-stdin or the prompt")
	cmd.Flags().BoolVar(&o.APIKeyStdin, "api-key-stdin", false, "read the API key from the first line of stdin")
	_ = cmd.RegisterFlagCompletionFunc("api-key", cobra.NoFileCompletions)
	_ = cmd.RegisterFlagCompletionFunc("base-url", cobra.NoFileCompletions)
	return cmd
}

// runConfigSetProfile creates or changes the profile; the first one
// becomes the current one.
func runConfigSetProfile(_ context.Context, f *cmdutil.Factory, o *ConfigSetProfileOptions) error {
	if o.BaseURL != nil {
		if err := cmdutil.CheckBaseURL(*o.BaseURL); err != nil {
			return &cmdutil.UsageError{Err: fmt.Errorf("--base-url: %w", err)}
		}
	}
	if err := readProfileKey(f, o); err != nil {
		return err
	}
	if o.BaseURL == nil && o.APIKey == nil {
		return cmdutil.Usagef("give --base-url, the key (--api-key-stdin, or the prompt on a terminal) or both")
	}
	if o.APIKey != nil && !api.WellFormedKey(*o.APIKey) {
		return cmdutil.Usagef("that is not an API key: keys are pk_ and 40 letters and digits, as `traineed key create` prints them")
	}
	state, current := "", ""
	path, err := editConfig(f, func(cfg *config.File) error {
		p := cfg.Profiles[o.Name]
		if p == nil {
			p = &config.Profile{}
			cfg.Profiles[o.Name] = p
		}
		if o.BaseURL != nil {
			p.BaseURL = *o.BaseURL
		}
		if o.APIKey != nil {
			p.APIKey = *o.APIKey
		}
		if cfg.Current == "" && !o.KeepCurrent {
			cfg.Current = o.Name
		}
		if cfg.Current == o.Name {
			state = " (current)"
		}
		current = cfg.Current
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(f.IOStreams.ErrOut, "Saved profile %s%s in %s\n", o.Name, state, path)
	if current != o.Name && !o.KeepCurrent {
		fmt.Fprintf(f.IOStreams.ErrOut, "The current profile is still %s: use this one with --profile %s, or switch with `traineectl config use %s`\n",
			current, o.Name, o.Name)
	}
	return nil
}

// profileNote is how keys create and keys rotate tell where a secret
// saved into profile name went: never made the current profile (a key
// made for someone else must not become yours by itself), so the note
// says how to use it, and how to make it current.
func profileNote(f *cmdutil.Factory, name string) string {
	cfg, err := f.Config()
	switch {
	case err == nil && cfg.Current == name:
		return fmt.Sprintf("Saved into profile %s, the current one; the key is not shown.", name)
	case err == nil && cfg.Current != "":
		return fmt.Sprintf("Use it with --profile %s (the current profile stays %s; `traineectl config use %s` switches); the key is not shown.", name, cfg.Current, name)
	}
	return fmt.Sprintf("Use it with --profile %s, or make it the current profile with `traineectl config use %s` (no profile is current, and a saved key never becomes current by itself); the key is not shown.", name, name)
}

// readProfileKey sets o.APIKey from stdin (--api-key-stdin) or, on a
// terminal when no key was given, from a prompt that does not echo; an
// empty answer leaves the key as it is.
func readProfileKey(f *cmdutil.Factory, o *ConfigSetProfileOptions) error {
	ios := f.IOStreams
	switch {
	case o.APIKeyStdin:
		k, err := cmdutil.ReadLine(ios.In)
		k = strings.TrimSpace(k)
		if k == "" {
			if err != nil && !errors.Is(err, io.EOF) {
				return fmt.Errorf("read the API key from stdin: %w", err)
			}
			return cmdutil.Usagef("--api-key-stdin: stdin holds no key")
		}
		o.APIKey = &k
	case o.APIKey == nil && ios.StdinPiped:
		// A key piped without --api-key-stdin would be dropped, and the
		// profile saved without it: say so instead, saving nothing.
		k, _ := cmdutil.ReadLine(ios.In)
		if api.WellFormedKey(strings.TrimSpace(k)) {
			return cmdutil.Usagef("stdin holds an API key, but --api-key-stdin was not given: add it to save the key (nothing was saved)")
		}
	case o.APIKey == nil && ios.CanPrompt() && ios.ReadPassword != nil:
		fmt.Fprintf(ios.ErrOut, "API key for profile %s (pk_..., not echoed; empty keeps the current one): ", o.Name)
		k, err := ios.ReadPassword()
		fmt.Fprintln(ios.ErrOut)
		if err != nil {
			return err
		}
		if k = strings.TrimSpace(k); k != "" {
			o.APIKey = &k
		}
	}
	return nil
}

// ConfigUseOptions are the inputs of `traineectl config use`.
type ConfigUseOptions struct {
	Name string
}

func newConfigUseCmd(f *cmdutil.Factory, runF func(*ConfigUseOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:               "use NAME",
		Short:             "Make a profile the current one",
		Example:           `  traineectl config use prod`,
		Args:              cmdutil.ExactArgs(1, "a profile name"),
		ValidArgsFunction: completeProfiles(f, true),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := &ConfigUseOptions{Name: args[0]}
			return runWith(cmd.Context(), f, o, runF, runConfigUse)
		},
	}
}

// runConfigUse makes the profile the current one.
func runConfigUse(_ context.Context, f *cmdutil.Factory, o *ConfigUseOptions) error {
	_, err := editConfig(f, func(cfg *config.File) error {
		if _, ok := cfg.Profiles[o.Name]; !ok {
			return cmdutil.Usagef("no profile %q: create it with `traineectl config set-profile %s --base-url ... --api-key ...`", o.Name, o.Name)
		}
		cfg.Current = o.Name
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(f.IOStreams.ErrOut, "Now using profile %s\n", o.Name)
	return nil
}

// ConfigListOptions are the inputs of `traineectl config list`: none.
type ConfigListOptions struct{}

type profileJSON struct {
	Name    string `json:"name"`
	Current bool   `json:"current"`
	BaseURL string `json:"baseUrl"`
	APIKey  string `json:"apiKey"`
}

func newConfigListCmd(f *cmdutil.Factory, runF func(*ConfigListOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:     "list",
		Short:   "List the profiles, keys masked",
		Example: `  traineectl config list`,
		Args:    cmdutil.ExactArgs(0, "none"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := &ConfigListOptions{}
			return runWith(cmd.Context(), f, o, runF, runConfigList)
		},
	}
}

// runConfigList prints the profiles, their keys masked.
func runConfigList(_ context.Context, f *cmdutil.Factory, _ *ConfigListOptions) error {
	cfg, _, err := loadConfig(f)
	if err != nil {
		return err
	}
	list := []profileJSON{}
	for _, n := range cfg.Names() {
		p := cfg.Profiles[n]
		list = append(list, profileJSON{n, n == cfg.Current, p.BaseURL, client.MaskKey(p.APIKey)})
	}
	rows := make([][]string, len(list))
	csvRows := make([][]string, len(list))
	for i, p := range list {
		cur := ""
		if p.Current {
			cur = "*"
		}
		rows[i] = []string{cur, p.Name, p.BaseURL, p.APIKey}
		csvRows[i] = []string{fmt.Sprint(p.Current), p.Name, p.BaseURL, p.APIKey}
	}
	return f.Print(output.View{Value: list, CSVHeader: []string{"current", "name", "baseUrl", "apiKey"}, CSVRows: csvRows,
		Columns: []output.Column{
			{Header: "CURRENT", Field: "current"}, {Header: "NAME", Field: "name", Flex: true},
			{Header: "BASE URL", Field: "baseUrl", Flex: true}, {Header: "API KEY", Field: "apiKey"},
		}, Rows: rows})
}

func loadConfig(f *cmdutil.Factory) (*config.File, string, error) {
	path, err := f.ConfigPath()
	if err != nil {
		return nil, "", err
	}
	cfg, err := f.Config()
	return cfg, path, err
}

// editConfig loads the profile file, lets edit change it, and saves it
// unless edit fails; it gives the file's path.
func editConfig(f *cmdutil.Factory, edit func(*config.File) error) (string, error) {
	cfg, path, err := loadConfig(f)
	if err != nil {
		return "", err
	}
	if err := edit(cfg); err != nil {
		return "", err
	}
	return path, cfg.Save(path)
}

// ConfigDeleteProfileOptions are the inputs of `traineectl config
// delete-profile`.
type ConfigDeleteProfileOptions struct {
	Name string
}

func newConfigDeleteProfileCmd(f *cmdutil.Factory, runF func(*ConfigDeleteProfileOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "delete-profile NAME",
		Short: "Delete a saved profile",
		Long: `Delete the profile NAME and its key from the profile file. When it was the
current profile, no profile is current afterwards: choose one with
"traineectl config use".`,
		Example:           `  traineectl config delete-profile old`,
		Args:              cmdutil.ExactArgs(1, "a profile name"),
		ValidArgsFunction: completeProfiles(f, true),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := &ConfigDeleteProfileOptions{Name: args[0]}
			return runWith(cmd.Context(), f, o, runF, runConfigDeleteProfile)
		},
	}
}

// runConfigDeleteProfile removes the profile; deleting the current one
// leaves none current.
func runConfigDeleteProfile(_ context.Context, f *cmdutil.Factory, o *ConfigDeleteProfileOptions) error {
	wasCurrent := false
	path, err := editConfig(f, func(cfg *config.File) error {
		if _, ok := cfg.Profiles[o.Name]; !ok {
			return cmdutil.Usagef("no profile %q: see `traineectl config list`", o.Name)
		}
		delete(cfg.Profiles, o.Name)
		if cfg.Current == o.Name {
			cfg.Current, wasCurrent = "", true
		}
		return nil
	})
	if err != nil {
		return err
	}
	note := ""
	if wasCurrent {
		note = "; no profile is current now (choose one with `traineectl config use NAME`)"
	}
	fmt.Fprintf(f.IOStreams.ErrOut, "Deleted profile %s from %s%s\n", o.Name, path, note)
	return nil
}

// ConfigCurrentOptions are the inputs of `traineectl config current`
// (none).
type ConfigCurrentOptions struct{}

func newConfigCurrentCmd(f *cmdutil.Factory, runF func(*ConfigCurrentOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "current",
		Short: "Print the name of the current profile",
		Long: `Print the name of the current profile. With none, nothing is printed and
the exit status is 1.`,
		Example: `  traineectl config current`,
		Args:    cmdutil.ExactArgs(0, "none"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := &ConfigCurrentOptions{}
			return runWith(cmd.Context(), f, o, runF, runConfigCurrent)
		},
	}
}

// runConfigCurrent prints the current profile's name.
func runConfigCurrent(_ context.Context, f *cmdutil.Factory, _ *ConfigCurrentOptions) error {
	cfg, _, err := loadConfig(f)
	if err != nil {
		return err
	}
	if cfg.Current == "" {
		return &cmdutil.StatusError{Code: cmdutil.ExitFailure, Err: errors.New("no current profile: choose one with `traineectl config use NAME`")}
	}
	return f.Print(output.View{Value: map[string]string{"name": cfg.Current},
		CSVHeader: []string{"name"}, CSVRows: [][]string{{cfg.Current}},
		Text: func(w io.Writer) error { _, err := fmt.Fprintln(w, cfg.Current); return err }})
}

// configKeys are the settings `config get` knows, with their help.
var configKeys = []string{"base-url\taddress of the trainee API", "api-key\tthe API key (masked unless --show-key)", "profile\tthe profile in use"}

// ConfigGetOptions are the inputs of `traineectl config get`.
type ConfigGetOptions struct {
	Key     string // "" for every setting
	ShowKey bool
}

type settingJSON struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	From  string `json:"from"`
}

func newConfigGetCmd(f *cmdutil.Factory, runF func(*ConfigGetOptions) error) *cobra.Command {
	o := &ConfigGetOptions{}
	cmd := &cobra.Command{
		Use:   "get [base-url|api-key|profile]",
		Short: "Print the settings in use and where each comes from",
		Long: `Print the settings a command would use, resolved as every command resolves
them (flag, else environment, else profile, else default), and where each
comes from. With a name, print only that value. The key is masked unless
--show-key.`,
		Example: `  traineectl config get
  traineectl --profile prod config get base-url
  traineectl config get api-key --show-key | pbcopy`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: fixedValues(configKeys...),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Key = args[0]
			}
			return runWith(cmd.Context(), f, o, runF, runConfigGet)
		},
	}
	cmd.Flags().BoolVar(&o.ShowKey, "show-key", false, "print the API key whole")
	return cmd
}

func runConfigGet(_ context.Context, f *cmdutil.Factory, o *ConfigGetOptions) error {
	s, err := f.Settings()
	if err != nil {
		return err
	}
	key := client.MaskKey(s.APIKey)
	if o.ShowKey {
		key = s.APIKey
	}
	all := []settingJSON{
		{"base-url", s.BaseURL, s.BaseURLFrom},
		{"api-key", key, s.APIKeyFrom},
		{"profile", s.Profile, "current profile"},
	}
	if f.Global.ProfileSet {
		all[2].From = "--profile"
	}
	if s.Profile == "" {
		all[2].From = ""
	}
	if o.Key != "" {
		for _, st := range all {
			if st.Name == o.Key {
				if st.Value == "" {
					return &cmdutil.StatusError{Code: cmdutil.ExitFailure, Err: fmt.Errorf("%s: not set", st.Name)}
				}
				return f.Print(output.View{Value: st, CSVHeader: []string{"name", "value", "from"}, CSVRows: [][]string{{st.Name, st.Value, st.From}},
					Text: func(w io.Writer) error { _, err := fmt.Fprintln(w, st.Value); return err }})
			}
		}
		return cmdutil.Usagef("unknown setting %q: use base-url, api-key or profile", o.Key)
	}
	rows := make([][]string, len(all))
	for i, st := range all {
		rows[i] = []string{st.Name, st.Value, st.From}
	}
	return f.Print(output.View{Value: all, CSVHeader: []string{"name", "value", "from"}, CSVRows: rows,
		Columns: []output.Column{{Header: "NAME", Field: "name"}, {Header: "VALUE", Field: "value", Flex: true}, {Header: "FROM", Field: "from"}},
		Rows:    rows})
}
